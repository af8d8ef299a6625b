// runner/sandbox/bwrap.ts `bwrapVersion`: a process asks one bwrap file for its version once
// (docs/performance.md#separated-mode-benchrunnerd — the daemon's sandbox host lives for the
// daemon's life). Attacks: the file touched, replaced by other bytes, or made unusable after a
// version was remembered — each must be asked again (or refused), never answered from memory.
// Stub bwraps are real executables that log every execution.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapVersion, inspectBwrap } from '../runner/sandbox/bwrap.js';
import { isGovernedError } from '../src/core/errors.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gvd-bwrap-once-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const log = (): string => join(dir, 'asked.log');
const asked = (): number => (existsSync(log()) ? readFileSync(log(), 'utf8').split('\n').filter(Boolean).length : 0);

/** A stub bwrap at `name` printing `version` (or failing), logging each execution; replaced by rename (a new inode). */
function stub(name: string, body: string): string {
  const p = join(dir, name);
  const tmp = `${p}.new`;
  writeFileSync(tmp, `#!/bin/sh\necho asked >> '${log()}'\n${body}\n`);
  chmodSync(tmp, 0o755);
  renameSync(tmp, p);
  return p;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'none';
  } catch (e) {
    return isGovernedError(e) ? e.code : 'not-governed';
  }
}

describe('bwrapVersion: one execution per bwrap file identity and digest', () => {
  it('asks once for the same file; asks again after a touch, new bytes or a failure; a stale identity is refused', async () => {
    const path = stub('bwrap', 'echo "bubblewrap 0.9.0"');
    const before = asked();
    const first = await inspectBwrap(path);
    expect(await bwrapVersion(first)).toBe('0.9.0');
    expect(asked()).toBe(before + 1);
    // Positive control of the saving: the same file again (re-hashed, as every run does) is not executed.
    expect(await bwrapVersion(await inspectBwrap(path))).toBe('0.9.0');
    expect(await bwrapVersion(first)).toBe('0.9.0');
    expect(asked()).toBe(before + 1);

    // A touch changes the fingerprint (same bytes, same sha256): asked again.
    const t = new Date(Date.now() + 5_000);
    utimesSync(path, t, t);
    const touched = await inspectBwrap(path);
    expect(touched.sha256).toBe(first.sha256);
    // The identity hashed before the touch no longer matches the file: refused before any answer from memory.
    expect(await codeOf(bwrapVersion(first))).toBe('bwrap_changed');
    expect(await bwrapVersion(touched)).toBe('0.9.0');
    expect(asked()).toBe(before + 2);

    // Other bytes at the same path (a new inode): asked again, and its own answer counts.
    stub('bwrap', 'echo "bubblewrap 0.7.1"');
    const older = await inspectBwrap(path);
    expect(older.sha256).not.toBe(first.sha256);
    expect(await codeOf(bwrapVersion(older))).toBe('bwrap_too_old');
    expect(asked()).toBe(before + 3);
    // A refusal is not remembered: asked (and refused) again.
    expect(await codeOf(bwrapVersion(older))).toBe('bwrap_too_old');
    expect(asked()).toBe(before + 4);

    // Back to a good bwrap, then one that exits non-zero: never answered from the good one's memory.
    const good = await inspectBwrap(stub('bwrap', 'echo "bubblewrap 0.10.0"'));
    expect(await bwrapVersion(good)).toBe('0.10.0');
    const broken = await inspectBwrap(stub('bwrap', 'exit 1'));
    expect(await codeOf(bwrapVersion(broken))).toBe('bwrap_unusable');
    expect(asked()).toBe(before + 6);

    // Another path with the same bytes as a remembered file: its own execution.
    const goodAgain = await inspectBwrap(stub('bwrap', 'echo "bubblewrap 0.10.0"'));
    expect(await bwrapVersion(goodAgain)).toBe('0.10.0');
    const twin = await inspectBwrap(stub('bwrap-twin', 'echo "bubblewrap 0.10.0"'));
    expect(twin.sha256).toBe(goodAgain.sha256);
    expect(await bwrapVersion(twin)).toBe('0.10.0');
    expect(asked()).toBe(before + 8);
  });
});
