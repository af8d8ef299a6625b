// `governed setup` and `governed doctor` (docs/setup.md) through the built CLI, on this machine's
// real bwrap, reviewer and attestor programs: what setup makes (modes, the policy's digests, init),
// that a re-run changes nothing and says so, that nothing is ever overwritten, and that doctor names
// each of five deliberately broken things by code and file (and nothing on a healthy setup).
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { spawnSync } from 'node:child_process';
import { CLI, jsonOut, REPO_ROOT, runCli } from './helpers/cli.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'gvd-eco-setup-'));
  dirs.push(d);
  return d;
}
const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
const govJson = (args: string[]) => {
  const r = runCli([...args, '--json']);
  expect(r.stdout).not.toContain('PRIVATE KEY');
  expect(r.stderr).not.toContain('PRIVATE KEY');
  return { code: r.code, out: jsonOut(r) };
};
/** Every file under `dir` with its sha256 and mode: a re-run must leave this exactly equal. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      // SQLite's WAL reader (the read-only open that finds the existing pins) makes the empty
      // -wal/-shm companions; the database file itself is compared byte for byte.
      else if (/\.db-(wal|shm)$/.test(e.name)) continue;
      else out[p.slice(dir.length)] = `${sha(p)} ${(statSync(p).mode & 0o777).toString(8)} ${statSync(p).mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}
const errorOf = (out: Record<string, unknown>) => out.error as { code: string; ids: string[] };

describe('governed setup', () => {
  it('makes every key 0600 in a 0700 keys/, the trust root, the attestor configs and a policy pinning this machine, then init', () => {
    const t = tmp();
    const out = join(t, 'setup');
    const r = govJson(['setup', '--out', out, '--home', join(t, 'home')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatchObject({ ok: true, changed: true, init: 'created' });
    expect((r.out.files as { action: string }[]).every((f) => f.action === 'created')).toBe(true);
    expect(statSync(join(out, 'keys')).mode & 0o777).toBe(0o700);
    for (const c of ['reviewer', 'runner', 'gate', 'log', 'authority', 'probe']) expect(statSync(join(out, 'keys', `${c}.key`)).mode & 0o777).toBe(0o600);
    const policy = parse(readFileSync(join(out, 'policy.yaml'), 'utf8'));
    const profile = jsonOut(runCli(['sandbox', 'profile', '--json'])) as { policy: Record<string, string[]>; check_profile_digest: string };
    expect(policy.sandbox.bwrap_sha256).toEqual(profile.policy.bwrap_sha256);
    // The reviewer profile, and the check profile preservation probes run in.
    expect(policy.sandbox.profile_sha256).toEqual([...(profile.policy.profile_sha256 ?? []), profile.check_profile_digest.slice('sha256:'.length)]);
    expect(policy.sandbox.seccomp_sha256).toEqual(profile.policy.seccomp_sha256);
    expect(policy.reviewers.coverage.sha256).toBe(sha(join(REPO_ROOT, 'runner', 'reviewers', 'coverage.mjs')));
    const keyIds = r.out.key_ids as Record<string, string>;
    for (const c of ['reviewer', 'runner', 'gate', 'log', 'probe']) {
      expect(policy.credentials[c].key_id).toBe(keyIds[c]);
      expect(policy.credentials[c].attestor_sha256).toEqual([sha(join(REPO_ROOT, 'attestors', 'ed25519-file.mjs'))]);
      expect(policy.credentials[c].attestor_config_sha256).toEqual([sha(join(out, 'attestors', `${c}.json`))]);
    }
    expect(readFileSync(join(out, 'policy.yaml'), 'utf8')).not.toContain('EXAMPLE');
    // The gate line names the digest init pinned.
    const pinned = jsonOut(runCli(['status', '--unit', 'UNIT-none', '--home', join(t, 'home'), '--json']));
    expect(pinned.ok).toBe(false); // no such unit, but the store opened: init ran
    expect(String(r.out.gate_line)).toContain(String(r.out.policy_digest));
  });

  it('a re-run on a finished DIR changes nothing (every byte, mode and mtime) and says so', () => {
    const t = tmp();
    const out = join(t, 'setup');
    expect(govJson(['setup', '--out', out, '--home', join(t, 'home')]).code).toBe(0);
    const before = { out: snapshot(out), home: snapshot(join(t, 'home')) };
    const again = govJson(['setup', '--out', out, '--home', join(t, 'home')]);
    expect(again.code).toBe(0);
    expect(again.out).toMatchObject({ changed: false, init: 'kept' });
    expect((again.out.files as { action: string }[]).every((f) => f.action === 'kept')).toBe(true);
    expect({ out: snapshot(out), home: snapshot(join(t, 'home')) }).toEqual(before);
    const human = runCli(['setup', '--out', out, '--home', join(t, 'home')]);
    expect(human.stdout).toContain('nothing changed');
  });

  it('never overwrites: a different attestor config is refused by name and left as it was', () => {
    const t = tmp();
    const out = join(t, 'setup');
    expect(govJson(['setup', '--out', out, '--no-init']).code).toBe(0);
    const gate = join(out, 'attestors', 'gate.json');
    const other = JSON.parse(readFileSync(gate, 'utf8'));
    other.key_ref = join(t, 'elsewhere.key');
    writeFileSync(gate, JSON.stringify(other));
    const bytes = readFileSync(gate);
    const r = govJson(['setup', '--out', out, '--no-init']);
    expect(r.code).toBe(2);
    expect(errorOf(r.out)).toMatchObject({ code: 'setup_file_conflict', ids: ['attestors/gate.json'] });
    expect(readFileSync(gate)).toEqual(bytes);
  });

  it('refuses a private key readable by others before making anything else (positive control: fixed mode finishes the setup)', () => {
    const t = tmp();
    const out = join(t, 'setup');
    expect(govJson(['setup', '--out', out, '--no-init']).code).toBe(0);
    rmSync(join(out, 'policy.yaml'));
    chmodSync(join(out, 'keys', 'runner.key'), 0o644);
    const r = govJson(['setup', '--out', out, '--no-init']);
    expect(r.code).toBe(4);
    expect(errorOf(r.out)).toMatchObject({ code: 'private_key_exposed', ids: ['keys/runner.key'] });
    expect(existsSync(join(out, 'policy.yaml'))).toBe(false);
    chmodSync(join(out, 'keys', 'runner.key'), 0o600);
    const fixed = govJson(['setup', '--out', out, '--no-init']);
    expect(fixed.code).toBe(0);
    expect(fixed.out.files).toContainEqual({ path: 'policy.yaml', action: 'created' });
  });

  it('a machine without bwrap makes no file at all', () => {
    const t = tmp();
    const out = join(t, 'setup');
    const r = govJson(['setup', '--out', out, '--bwrap', join(t, 'no-bwrap')]);
    expect(r.code).toBe(2);
    expect(errorOf(r.out).code).toBe('bwrap_missing');
    expect(existsSync(out)).toBe(false);
    expect(existsSync(join(t, 'home'))).toBe(false);
  });

  it('refuses a state directory that already pins another setup (exit 8), and the strict template stays strict', () => {
    const t = tmp();
    const home = join(t, 'home');
    expect(govJson(['setup', '--out', join(t, 'a'), '--home', home]).code).toBe(0);
    const r = govJson(['setup', '--out', join(t, 'b'), '--home', home, '--policy-template', 'strict']);
    expect(r.code).toBe(8);
    expect(errorOf(r.out)).toMatchObject({ code: 'setup_store_pins_other', ids: ['policy'] });
    const strict = parse(readFileSync(join(t, 'b', 'policy.yaml'), 'utf8'));
    expect(strict.accept_co_located).toBe(false);
    expect(strict.preservation).toBe('required');
    expect(govJson(['setup', '--out', join(t, 'c'), '--policy-template', 'lax']).code).toBe(2);
    expect(existsSync(join(t, 'c'))).toBe(false);
  });
});

describe('governed doctor', () => {
  it('passes a healthy setup, then names each of five deliberately broken things by code and file', () => {
    const t = tmp();
    const out = join(t, 'setup');
    const home = join(t, 'home');
    // Reviewers from a private copy, so the test can change one without touching the shipped program.
    const reviewers = join(t, 'reviewers');
    mkdirSync(reviewers);
    copyFileSync(join(REPO_ROOT, 'runner', 'reviewers', 'coverage.mjs'), join(reviewers, 'coverage.mjs'));
    expect(govJson(['setup', '--out', out, '--home', home, '--reviewers-dir', reviewers]).code).toBe(0);
    const healthy = govJson(['doctor', '--dir', out, '--home', home, '--reviewers-dir', reviewers]);
    expect(healthy.code).toBe(0);
    expect((healthy.out.checks as { id: string; ok: boolean }[]).map((c) => [c.id, c.ok])).toEqual([
      ['files', true],
      ['key_modes', true],
      ['trust_root', true],
      ['keys_agree', true],
      ['pinned_programs', true],
      ['sandbox', true],
      ['user_namespaces', true],
      ['store', true],
    ]);

    chmodSync(join(out, 'keys', 'gate.key'), 0o640); // 1. a key mode
    appendFileSync(join(reviewers, 'coverage.mjs'), '\n'); // 2. a changed reviewer
    rmSync(join(out, 'attestors', 'log.json')); // 3. a missing attestor config
    const trust = JSON.parse(readFileSync(join(out, 'trust.json'), 'utf8'));
    trust.expires = '2026-01-02T00:00:00Z'; // 4. a trust root expired
    writeFileSync(join(out, 'trust.json'), JSON.stringify(trust));
    const r = govJson(['doctor', '--dir', out, '--home', home, '--reviewers-dir', reviewers, '--bwrap', join(t, 'gone', 'bwrap')]); // 5. bwrap missing
    const problems = (r.out.problems as { check: string; code: string; ids: string[] }[]).map((p) => [p.check, p.code, ...p.ids]);
    expect(problems).toEqual([
      ['files', 'setup_file_missing', 'attestors/log.json'],
      ['key_modes', 'private_key_exposed', 'keys/gate.key'],
      ['trust_root', 'trust_root_expired', 'trust.json'],
      ['pinned_programs', 'setup_digest_changed', 'reviewers.coverage.sha256'],
      ['sandbox', 'bwrap_missing', 'bwrap'],
      // The edited trust root is no longer the pinned one: a consequence of (4), named too.
      ['store', 'setup_store_pins_other', 'trust'],
    ]);
    expect(r.code).toBe(4); // the most severe: a key readable by others, a changed program (docs/errors.md precedence)
    expect(r.out.ok).toBe(false);
    const human = runCli(['doctor', '--dir', out, '--home', home, '--reviewers-dir', reviewers, '--bwrap', join(t, 'gone', 'bwrap')]);
    expect(human.code).toBe(4);
    for (const line of ['private_key_exposed (exit 4) [keys/gate.key]', 'setup_file_missing (exit 2) [attestors/log.json]', 'bwrap_missing (exit 2) [bwrap]']) {
      expect(human.stdout).toContain(line);
    }
  });

  it('names a key that the policy and the trust root disagree on, and an uninitialised state directory', () => {
    const t = tmp();
    const out = join(t, 'setup');
    expect(govJson(['setup', '--out', out, '--no-init']).code).toBe(0);
    const other = join(t, 'other');
    expect(govJson(['setup', '--out', other, '--no-init']).code).toBe(0);
    copyFileSync(join(other, 'keys', 'runner.pub'), join(out, 'keys', 'runner.pub'));
    const r = govJson(['doctor', '--dir', out, '--home', join(t, 'nohome')]);
    const problems = (r.out.problems as { check: string; code: string; ids: string[] }[]).map((p) => [p.check, p.code, ...p.ids]);
    expect(problems).toEqual([
      ['keys_agree', 'setup_key_mismatch', 'runner', 'trust.json'],
      ['keys_agree', 'setup_key_mismatch', 'runner', 'policy.yaml:credentials.runner.key_id'],
      ['keys_agree', 'setup_key_mismatch', 'runner', 'attestors/runner.json'],
      ['store', 'store_missing', 'home'],
    ]);
  });

  // A user namespace of our own in which no further user namespace may be made (its
  // max_user_namespaces is 0: a per-namespace limit, the host's is untouched). Positive control:
  // the same nesting without the limit passes.
  const hasUnshare = spawnSync('unshare', ['--user', '--map-root-user', 'true']).status === 0;
  it.skipIf(!hasUnshare)('names user namespaces that bwrap cannot create (positive control: the same nesting without the limit)', () => {
    const t = tmp();
    const out = join(t, 'setup');
    expect(govJson(['setup', '--out', out, '--no-init']).code).toBe(0);
    const nested = (limit: boolean) => {
      const script = `${limit ? 'echo 0 > /proc/sys/user/max_user_namespaces && ' : ''}exec "$0" "$@"`;
      const r = spawnSync('unshare', ['--user', '--map-root-user', 'sh', '-c', script, process.execPath, CLI, 'doctor', '--dir', out, '--home', join(t, 'h'), '--json'], {
        encoding: 'utf8',
        env: { PATH: '/usr/bin:/bin' },
      });
      return (JSON.parse(r.stdout) as { checks: { id: string; ok: boolean; problems: { code: string }[] }[] }).checks.find((c) => c.id === 'user_namespaces');
    };
    expect(nested(false)).toMatchObject({ ok: true });
    expect(nested(true)).toMatchObject({ ok: false, problems: [{ code: 'setup_userns_unusable' }] });
  });
});
