// Writer-side naming of uncovered changes (docs/contract-init.md "Uncovered changes"): `status`
// and `unit bind --dry-run` list each changed path no live directive covers BEFORE review-challenge
// refuses it, and review-challenge names them on stderr when it refuses — while the coded error
// keeps only the count and nothing is recorded (positive control: once covered, none is listed and
// the challenge is issued).
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { jsonOut } from './helpers/cli.js';
import { cleanupDirs, contractDoc, expectRefused, gov, govOk, makeWorld, setupUnit, storeDigest, writeJsonFile } from './state-helpers.js';
import { join } from 'node:path';

afterAll(() => cleanupDirs());

describe('uncovered changes, named for the writer', () => {
  it('status, bind --dry-run and review-challenge name the path; the error ids stay a count; nothing is recorded', () => {
    const w = makeWorld({ baselineFiles: { 'src/export.ts': 'export const csv = "baseline";\n' } });
    const unit = setupUnit(w);
    w.repo.write('src/export.ts', 'export const csv = "changed";\n');
    w.repo.write('test/export.test.ts', 'test("csv", () => {});\n');
    w.repo.write('src/unplanned.ts', 'export {};\n');
    w.repo.write('docs/ünïcode name.md', 'x\n');

    const st = govOk(w, ['status', '--unit', unit]);
    expect(st.uncoveredChanges).toEqual(['docs/ünïcode name.md', 'src/unplanned.ts']);
    const human = gov(w, ['status', '--unit', unit]);
    expect(human.stdout).toContain('uncovered changes (2;');
    expect(human.stdout).toContain('  src/unplanned.ts');

    const before = storeDigest(w);
    const dry = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', w.contractFile, '--dry-run']);
    expect(dry.uncovered_changes).toEqual(['docs/ünïcode name.md', 'src/unplanned.ts']);
    expect(storeDigest(w)).toBe(before);

    const challenge = ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'coverage'];
    const { ids } = expectRefused(w, challenge, 'contract_change_uncovered', 8);
    expect(ids).toEqual(['uncovered:2']);
    const r = gov(w, [...challenge, '--json']);
    expect(r.stderr).toContain('governed: uncovered change: src/unplanned.ts\n');
    expect(JSON.stringify(jsonOut(r))).not.toContain('unplanned');

    // Covered by the next contract (dry run says none), and without the stray doc the challenge is issued.
    rmSync(join(w.repo.root, 'docs'), { recursive: true });
    const covered = writeJsonFile(join(w.dir, 'covered.json'), contractDoc({ extraImplPaths: ['src/unplanned.ts'] }));
    expect(govOk(w, ['unit', 'bind', '--unit', unit, '--contract', covered, '--dry-run']).uncovered_changes).toEqual([]);
    govOk(w, ['unit', 'bind', '--unit', unit, '--contract', covered]);
    expect(govOk(w, ['status', '--unit', unit]).uncoveredChanges).toEqual([]);
    expect(govOk(w, challenge).challenge_id).toMatch(/^CHL-/);
  });
});
