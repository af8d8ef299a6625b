// `audit verify --unit U` and `audit export --unit U` echoed ANY --unit value back in
// `unit_unknown`'s ids (src/flows/audit/verify.ts, export.ts) — a rejected value printed raw, escape
// bytes included (a terminal control sequence reached stderr). The store's own rule
// (src/store/units.ts, src/flows/decide/unit-state.ts) names a well-formed unknown id and never a
// malformed one; both audit commands now do the same. Same code and exit either way (7).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { cleanupDirs, gov, govOk, makeWorld, storeDigest, tempDir } from './state-helpers.js';

afterEach(() => cleanupDirs());

const HOSTILE = '\u001b]0;owned\u0007\u001b[2Jsk-live-REJECTED-VALUE';
const WELL_FORMED = `UNIT-${'ab'.repeat(16)}`;

describe('audit --unit: a rejected value is never printed', () => {
  it('audit verify / audit export: malformed --unit → unit_unknown with no ids; well-formed unknown → named', () => {
    const w = makeWorld();
    govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    const before = storeDigest(w);
    const out = join(tempDir('governed-rtc-unit-'), 'export');
    for (const args of [
      ['audit', 'verify', '--unit', HOSTILE],
      ['audit', 'export', '--out', out, '--unit', HOSTILE],
    ]) {
      for (const json of [true, false]) {
        const r = gov(w, json ? [...args, '--json'] : args);
        expect(r.code).toBe(7);
        expect(r.stdout + r.stderr).not.toContain('REJECTED-VALUE');
        expect(r.stdout + r.stderr).not.toContain('\u001b');
        if (json) expect((jsonOut(r) as { error: { code: string; ids: string[] } }).error).toMatchObject({ code: 'unit_unknown', ids: [] });
      }
      const named = gov(w, [...args.slice(0, -1), WELL_FORMED, '--json']);
      expect(named.code).toBe(7);
      expect((jsonOut(named) as { error: { code: string; ids: string[] } }).error).toMatchObject({ code: 'unit_unknown', ids: [WELL_FORMED] });
    }
    expect(existsSync(out)).toBe(false);
    expect(storeDigest(w)).toBe(before);
  });
});
