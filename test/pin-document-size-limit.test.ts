// One size limit for a policy or trust-root document (core/limits.ts PIN_DOCUMENT_MAX_BYTES): every command that reads
// one refuses a file one byte over it (input_too_large, 2, store unchanged) and reads a file exactly at it — before,
// `policy update`, `trust update` and `authority request --document` read up to 4 MiB what init, review-challenge and gate refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIN_DOCUMENT_MAX_BYTES } from '../src/core/limits.js';
import { loadDeployTrust } from '../src/flows/decide/gate.js';
import { jsonOut, type CliResult } from './helpers/cli.js';
import { cleanupDirs, gov, makeWorld, setupUnit, storeDigest, type World } from './state-helpers.js';

let w: World;
let unit: string;
const files = { policy: { at: '', over: '' }, trust: { at: '', over: '' } };

/** The document's own JSON text padded with trailing newlines to exactly `size` bytes (still the same document). */
function padded(src: string, size: number, out: string): string {
  const bytes = readFileSync(src);
  expect(bytes.length).toBeLessThan(size);
  writeFileSync(out, Buffer.concat([bytes, Buffer.alloc(size - bytes.length, 0x0a)]));
  return out;
}

beforeAll(() => {
  w = makeWorld();
  unit = setupUnit(w);
  for (const kind of ['policy', 'trust'] as const) {
    const src = kind === 'policy' ? w.policyFile : w.trustFile;
    files[kind].at = padded(src, PIN_DOCUMENT_MAX_BYTES, join(w.dir, `${kind}-at-limit.json`));
    files[kind].over = padded(src, PIN_DOCUMENT_MAX_BYTES + 1, join(w.dir, `${kind}-over-limit.json`));
  }
}, 120_000);
afterAll(() => cleanupDirs());

/** Every command that reads a policy or trust-root file, given `file` in that role. */
const COMMANDS: { name: string; kind: 'policy' | 'trust'; args: (file: string) => string[]; fresh?: boolean }[] = [
  { name: 'init --policy', kind: 'policy', fresh: true, args: (f) => ['init', '--policy', f, '--trust', w.trustFile] },
  { name: 'init --trust', kind: 'trust', fresh: true, args: (f) => ['init', '--policy', w.policyFile, '--trust', f] },
  { name: 'policy update', kind: 'policy', args: (f) => ['policy', 'update', '--policy', f, '--authority', `REC-${'0'.repeat(24)}`] },
  { name: 'trust update', kind: 'trust', args: (f) => ['trust', 'update', '--trust', f, '--authority', `REC-${'0'.repeat(24)}`] },
  { name: 'authority request --document (policy)', kind: 'policy', args: (f) => ['authority', 'request', '--operation', 'policy_update', '--document', f, '--out', join(w.dir, `req-${Math.random()}.json`)] },
  { name: 'authority request --document (trust)', kind: 'trust', args: (f) => ['authority', 'request', '--operation', 'trust_update', '--document', f, '--out', join(w.dir, `req-${Math.random()}.json`)] },
  { name: 'review-challenge --policy', kind: 'policy', args: (f) => ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'coverage', '--policy', f] },
  { name: 'review-challenge --trust', kind: 'trust', args: (f) => ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'coverage', '--trust', f] },
];

/** The error code of a refusal (gate's decision object carries `error` without `ok`). */
const codeOf = (r: CliResult): string | undefined => (jsonOut(r).error as { code?: string } | null)?.code;

function run(c: (typeof COMMANDS)[number], file: string): CliResult {
  const world = c.fresh === true ? { ...w, home: join(w.dir, `fresh-${Math.random()}`) } : w;
  return gov(world, [...c.args(file), '--json']);
}

describe('a policy or trust-root document has one size limit', () => {
  for (const c of COMMANDS) {
    it(`${c.name}: one byte over the limit is input_too_large (2), store unchanged`, () => {
      const before = storeDigest(w);
      const r = run(c, files[c.kind].over);
      expect([r.code, codeOf(r)]).toEqual([2, 'input_too_large']);
      expect(storeDigest(w)).toBe(before);
    });
    it(`${c.name}: a document exactly at the limit is read (whatever the command then decides)`, () => {
      const r = run(c, files[c.kind].at);
      expect(codeOf(r)).not.toBe('input_too_large');
    });
  }

  // The gate reports the worst of all its refusals (here gate_no_evidence, 7, outranks 2), so its trust-file
  // reader is asked directly: the same function `gate --trust` calls first.
  it('gate --trust (loadDeployTrust): one byte over is input_too_large, exactly at the limit loads', async () => {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await expect(loadDeployTrust(files.trust.over, now)).rejects.toMatchObject({ code: 'input_too_large' });
    await expect(loadDeployTrust(files.trust.at, now)).resolves.toHaveProperty('trust');
  });
});
