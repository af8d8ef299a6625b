// `governed keygen --out DIR` where DIR cannot be a directory. Before the fix an --out
// that is a regular file (or a path under one) ended in `internal_error` (exit 1, mkdirSync's ENOTDIR /
// EEXIST escaping uncoded); now `key_output_unwritable` (2), nothing written, nothing printed of the key.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonOut, runCli } from './helpers/cli.js';
import { cleanupDirs, tempDir } from './state-helpers.js';

afterEach(() => cleanupDirs());

describe('keygen: an output that cannot be a directory', () => {
  for (const [name, sub] of [
    ['is a regular file', ''],
    ['is under a regular file', '/keys'],
  ] as const) {
    it(`--out ${name}: key_output_unwritable (2), nothing written`, () => {
      const dir = tempDir('governed-rtc-keygen-');
      const file = join(dir, 'not-a-dir');
      writeFileSync(file, 'content of a file that is not a directory\n');
      const r = runCli(['keygen', '--credential', 'reviewer', '--out', `${file}${sub}`, '--json'], { cwd: dir });
      expect(r.code).toBe(2);
      const out = jsonOut(r) as { ok: boolean; error: { code: string; exit: number } };
      expect(out.ok).toBe(false);
      expect(out.error.code).toBe('key_output_unwritable');
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout + r.stderr).not.toContain('PRIVATE KEY');
      expect(readdirSync(dir)).toEqual(['not-a-dir']);
      expect(readFileSync(file, 'utf8')).toBe('content of a file that is not a directory\n');
    });
  }

  it('an existing key file is still key_output_exists (2) and is left alone', () => {
    const dir = tempDir('governed-rtc-keygen-');
    writeFileSync(join(dir, 'gate.pub'), 'theirs\n');
    const r = runCli(['keygen', '--credential', 'gate', '--out', dir, '--json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect((jsonOut(r) as { error: { code: string } }).error.code).toBe('key_output_exists');
    expect(readdirSync(dir)).toEqual(['gate.pub']);
    expect(readFileSync(join(dir, 'gate.pub'), 'utf8')).toBe('theirs\n');
  });
});
