// A log entry's `time` is judged as an instant (receipts and authority records are
// verified with keys valid AT their entry's log time, src/flows/audit/verify.ts), but the chain check
// accepted any non-negative integer. An export (its manifest is unsigned; the chain recomputable)
// whose `run_receipt` entry says time 9e15 — replay uses the payload's `recorded_at`, so it still
// applies — crashed the audit with `internal_error` (exit 1: `new Date(9e15 * 1000).toISOString()`
// throws). Now the chain check refuses a time outside 0…253402300799 (9999-12-31T23:59:59Z, the last
// instant an ISO-seconds time can name) with `log_time_invalid` (4), on an export and on a store alike.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { entryHashOf, GENESIS_HASH, type LogRow } from '../src/store/index.js';
import { checkRow } from '../src/store/log.js';
import { jsonOut, runCli } from './helpers/cli.js';
import { tempDir } from './helpers/receipts.js';
import { eligibleStory, type Story } from './gate-world.js';
import { assertNoSecrets, gov } from './state-helpers.js';
import type { LogLine } from './audit-helpers.js';


let story: Story;
let exportDir: string;

beforeAll(() => {
  story = eligibleStory();
  exportDir = join(tempDir('governed-rtc-time-'), 'audit');
  expect(gov(story.w, ['audit', 'export', '--out', exportDir, '--json']).code).toBe(0);
}, 240_000);

/** A copy of the export whose entry `seq` says `time`, every later hash and the manifest recomputed. */
function withTime(pick: (lines: LogLine[]) => number, time: number): string {
  const dir = join(tempDir('governed-rtc-time-copy-'), 'audit');
  execFileSync('/bin/cp', ['-a', exportDir, dir]);
  const lines = readFileSync(join(dir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LogLine);
  const seq = pick(lines);
  let prev: string | null = null;
  for (const l of lines) {
    if (l.seq === seq) l.time = time;
    if (l.seq >= seq) {
      if (prev !== null) l.prev_hash = prev;
      l.entry_hash = entryHashOf(l);
    }
    prev = l.entry_hash;
  }
  writeFileSync(join(dir, 'log.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { log: { entries: number; head: string }; files: { path: string; sha256: string }[] };
  m.log = { entries: lines.length, head: (lines.at(-1) as LogLine).entry_hash };
  m.files = m.files.map((f) => ({ path: f.path, sha256: createHash('sha256').update(readFileSync(join(dir, f.path))).digest('hex') }));
  writeFileSync(join(dir, 'manifest.json'), `${canonicalJson(m as never)}\n`);
  return dir;
}

const lastReceipt = (lines: LogLine[]): number => (lines.filter((l) => l.type === 'run_receipt').at(-1) as LogLine).seq;

describe('log entry time outside what an instant can be', () => {
  it('audit verify --export: a run_receipt entry at time 9e15 is log_time_invalid (4), not internal_error', () => {
    const dir = withTime(lastReceipt, 9_000_000_000_000_000);
    const r = runCli(['audit', 'verify', '--export', dir, '--json'], { cwd: story.w.repo.root });
    assertNoSecrets(r);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const out = jsonOut(r) as { exit: number; failures?: { code: string; exit: number; ids: string[] }[]; error?: { code: string } };
    expect(out.error?.code).toBeUndefined();
    expect(r.code).toBe(4);
    expect(out.failures?.map((f) => f.code)).toEqual(['log_time_invalid']);
  });

  it('the last representable second still verifies as far as time goes; one more is refused', () => {
    const base = { seq: 1, type: 'store_init', unit: null, payload: Buffer.from('{}'), payload_digest: `sha256:${createHash('sha256').update('{}').digest('hex')}`, prev_hash: GENESIS_HASH };
    // (1.5 has no entry hash at all: the time is refused before the hash is looked at.)
    const row = (time: number): LogRow => ({ ...base, time, entry_hash: Number.isSafeInteger(time) ? entryHashOf({ ...base, time }) : GENESIS_HASH });
    expect(() => checkRow(row(253_402_300_799), { seq: 0, entryHash: GENESIS_HASH })).not.toThrow();
    expect(() => checkRow(row(0), { seq: 0, entryHash: GENESIS_HASH })).not.toThrow();
    for (const bad of [253_402_300_800, 9_000_000_000_000_000, -1, 1.5]) {
      expect(() => checkRow(row(bad), { seq: 0, entryHash: GENESIS_HASH })).toThrow(expect.objectContaining({ code: 'log_time_invalid' }));
    }
  });
});
