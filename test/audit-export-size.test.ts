// `audit verify --export DIR` reads an export into memory whole; its size is bounded
// before anything is read (src/flows/audit/export-verify.ts MAX_FILE_BYTES / MAX_EXPORT_BYTES,
// docs/audit.md). Before the fix a 2.2 GB sparse `log.jsonl` ended in `internal_error` (exit 1, from
// readFileSync's own 2 GiB limit) and a 1.9 GB one was read whole (≈2 GB resident) before being refused.
// Sparse files: no disk is used, only the sizes matter.
import { constants as bufferConstants } from 'node:buffer';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonOut, runCli } from './helpers/cli.js';
import { cleanupDirs, tempDir } from './state-helpers.js';

afterEach(() => cleanupDirs());

const CAP = bufferConstants.MAX_STRING_LENGTH;

function exportDirWith(files: Record<string, number>): string {
  const dir = join(tempDir('governed-rtc-size-'), 'audit');
  mkdirSync(join(dir, 'receipts'), { recursive: true });
  writeFileSync(join(dir, 'manifest.json'), '{}\n');
  for (const [path, size] of Object.entries(files)) {
    writeFileSync(join(dir, path), '');
    truncateSync(join(dir, path), size);
  }
  return dir;
}

function refused(dir: string): { code: string; exit: number; ids: string[] } {
  const r = runCli(['audit', 'verify', '--export', dir, '--json'], { cwd: dir });
  expect(r.code).toBe(4);
  const out = jsonOut(r) as { ok: boolean; error: { code: string; exit: number; ids: string[] } };
  expect(out.ok).toBe(false);
  expect(r.stdout.trim().split('\n')).toHaveLength(1); // one JSON object
  expect(r.stderr).not.toMatch(/at .*\.m?js:\d+/); // no stack trace
  return out.error;
}

describe('audit verify --export: size caps', () => {
  it('a log.jsonl over 2 GiB is a coded refusal, not internal_error', () => {
    const e = refused(exportDirWith({ 'log.jsonl': 2_200 * 1024 * 1024 }));
    expect(e).toEqual({ code: 'audit_export_invalid', exit: 4, ids: ['log.jsonl', 'size'], message: expect.any(String) });
  });

  it('a file one byte over the cap is refused before it is read; a small one is not refused for its size', () => {
    expect(refused(exportDirWith({ 'log.jsonl': CAP + 1 })).ids).toEqual(['log.jsonl', 'size']);
    // A small file is read and the export is refused for what it is (its manifest), not its size.
    expect(refused(exportDirWith({ 'log.jsonl': 1024 })).ids).toEqual(['manifest.json']);
  });

  it('the whole export is capped too, from the listing, before any file is read: many files each under the cap', () => {
    const big = Math.floor(CAP * 0.9);
    const e = refused(exportDirWith({ [`receipts/${'a'.repeat(64)}.json`]: big, [`receipts/${'b'.repeat(64)}.json`]: big, [`receipts/${'c'.repeat(64)}.json`]: big }));
    expect(e.ids).toEqual(['.', 'size']);
  });
});
