// Guards: a trust root that swaps the reviewer and runner roles between the two real keys is not
// accepted — the gate and `verify --policy` require the reviewer signature by the policy's reviewer
// key and the runner signature by its runner key (signature_not_credential_key, exit 6).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOut, runCli } from './helpers/cli.js';
import { trustRootDoc } from './helpers/receipts.js';
import { cleanupDirs, tempDir, writeJsonFile } from './state-helpers.js';
import { eligibleStory, expectGateRefused, gate, type Story } from './gate-world.js';

let s: Story;
let swapped: string;
let receiptFiles: string[];

beforeAll(() => {
  s = eligibleStory();
  const k = s.w.keys;
  const dir = tempDir('governed-swapped-trust-');
  swapped = writeJsonFile(
    join(dir, 'trust-swapped.json'),
    trustRootDoc([
      { key: k.reviewer, roles: ['runner'] },
      { key: k.runner, roles: ['reviewer'] },
      { key: k.gate, roles: ['gate'] },
      { key: k.log, roles: ['log'] },
      { key: k.authority, roles: ['authority'] },
    ]),
  );
  receiptFiles = s.receipts.slice(-2).map((r, i) => {
    const f = join(dir, `r${i}.json`);
    writeFileSync(f, r.envelope);
    return f;
  });
});
afterAll(() => cleanupDirs());

describe('gate', () => {
  it('control: the real trust root allows', () => {
    expect(gate(s).code).toBe(0);
  });

  it('a deploy trust root swapping the reviewer and runner roles: exit 6, store unchanged', () => {
    const d = expectGateRefused(s, { trust: swapped }, 'signature_not_credential_key', 6);
    expect(d.error?.ids).toEqual(['reviewer']);
  });
});

describe('verify', () => {
  const verify = (...extra: string[]) => runCli(['verify', ...receiptFiles, ...extra, '--json'], { cwd: s.w.dir });

  it('control: without --policy the swapped trust root verifies (the roles are all the trust root says)', () => {
    expect(verify('--trust', swapped).code).toBe(0);
    expect(verify('--trust', s.w.trustFile, '--policy', s.w.policyFile).code).toBe(0);
  });

  it('with --policy the swapped trust root is refused for every receipt: exit 6', () => {
    const r = verify('--trust', swapped, '--policy', s.w.policyFile);
    expect(r.code).toBe(6);
    const out = jsonOut(r) as { receipts: { valid: boolean; error?: { code: string; ids: string[] } }[] };
    expect(out.receipts.map((x) => [x.valid, x.error?.code, x.error?.ids])).toEqual(receiptFiles.map(() => [false, 'signature_not_credential_key', ['reviewer']]));
  });
});
