import { describe, it, expect } from 'vitest';
import { statSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash, createPublicKey } from 'node:crypto';
import { join } from 'node:path';
import { runCli, jsonOut } from './helpers/cli.js';
import { tempDir } from './helpers/receipts.js';

describe('governed keygen', () => {
  it('writes PKCS#8 0600 and SPKI, prints the key id = sha256(DER SPKI)', () => {
    const dir = join(tempDir(), 'keys');
    const r = runCli(['keygen', '--credential', 'reviewer', '--out', dir, '--json']);
    expect(r.code).toBe(0);
    const out = jsonOut(r);
    expect(statSync(join(dir, 'reviewer.key')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(dir, 'reviewer.key'), 'utf8')).toContain('BEGIN PRIVATE KEY');
    const der = createPublicKey(readFileSync(join(dir, 'reviewer.pub'))).export({ format: 'der', type: 'spki' });
    expect(out.key_id).toBe(createHash('sha256').update(der).digest('hex'));
    expect(r.stdout).not.toContain('PRIVATE');
  });

  it('refuses to overwrite either file and leaves the existing ones untouched', () => {
    const dir = tempDir();
    expect(runCli(['keygen', '--credential', 'gate', '--out', dir]).code).toBe(0);
    const before = readFileSync(join(dir, 'gate.key'));
    const r = runCli(['keygen', '--credential', 'gate', '--out', dir, '--json']);
    expect(r.code).toBe(2);
    expect((jsonOut(r).error as { code: string }).code).toBe('key_output_exists');
    expect(readFileSync(join(dir, 'gate.key')).equals(before)).toBe(true);
    const dir2 = tempDir();
    writeFileSync(join(dir2, 'log.pub'), 'x');
    expect(runCli(['keygen', '--credential', 'log', '--out', dir2]).code).toBe(2);
    expect(() => statSync(join(dir2, 'log.key'))).toThrow();
  });

  it('refuses a credential id that is not a plain name (no path tricks)', () => {
    const r = runCli(['keygen', '--credential', '../evil', '--out', tempDir(), '--json']);
    expect(r.code).toBe(2);
    expect((jsonOut(r).error as { code: string }).code).toBe('credential_id_invalid');
  });

  it('usage errors exit 2, help exits 0', () => {
    expect(runCli(['keygen']).code).toBe(2);
    expect(runCli(['nope']).code).toBe(2);
    expect(runCli(['--help']).code).toBe(0);
    expect(runCli(['keygen', '--help']).code).toBe(0);
  });
});
