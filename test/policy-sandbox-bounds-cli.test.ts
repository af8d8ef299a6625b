// `governed init` refuses a policy the sandbox would refuse at every run (docs/threat-model.md#rules-that-hold-everywhere fail closed, docs/runner.md#the-run-step-by-step
// step 5): before this, init pinned it and every challenge it issued could never run. Through the
// built CLI: policy_invalid (exit 2) naming the field, never the value, and nothing created.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertNoSecrets, cleanupDirs, errorOf, gov, makeWorld, policyDoc, writeJsonFile } from './state-helpers.js';

afterEach(cleanupDirs);

describe('governed init: sandbox bounds at policy load', () => {
  const cases: readonly [string, (d: Record<string, any>) => void, string, string][] = [
    ['sandbox.max_output 512MiB (> 256 MiB)', (d) => (d.sandbox.max_output = '512MiB'), 'sandbox.max_output', '512MiB'],
    ['sandbox.timeout 2d (> 24 h)', (d) => (d.sandbox.timeout = '2d'), 'sandbox.timeout', '2d'],
    ['sandbox.memory 8MiB (< 16 MiB)', (d) => (d.sandbox.memory = '8MiB'), 'sandbox.memory', '8MiB'],
    ['interpreter /usr/bin/./node', (d) => (d.reviewers.coverage.interpreter = '/usr/bin/./node'), 'reviewers.coverage.interpreter', '/usr/bin/./node'],
  ];
  for (const [label, edit, path, value] of cases) {
    it(`${label} → policy_invalid (exit 2, ${path}), no store created`, () => {
      const w = makeWorld();
      const doc = policyDoc(w.keys) as Record<string, any>;
      edit(doc);
      const file = writeJsonFile(join(w.dir, 'bad-bounds.json'), doc);
      const r = gov(w, ['init', '--policy', file, '--trust', w.trustFile, '--json']);
      expect(r.code).toBe(2);
      expect(errorOf(r)).toMatchObject({ code: 'policy_invalid', exit: 2, ids: [path] });
      assertNoSecrets(r);
      expect(r.stdout + r.stderr).not.toContain(value);
      expect(existsSync(w.home)).toBe(false);
    });
  }

  it('control: the same world initialises with the edge values (256MiB, 24h, 16MiB)', () => {
    const w = makeWorld();
    const doc = policyDoc(w.keys) as Record<string, any>;
    doc.sandbox.max_output = '256MiB';
    doc.sandbox.timeout = '24h';
    doc.sandbox.memory = '16MiB';
    const file = writeJsonFile(join(w.dir, 'edge.json'), doc);
    const r = gov(w, ['init', '--policy', file, '--trust', w.trustFile, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(w.home, 'governed.db'))).toBe(true);
  });
});
