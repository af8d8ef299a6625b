// `governed writer register` and `governed lease acquire | release | list` (docs/commands.md#what-each-command-guarantees; docs/state.md#state-the-store-units-and-scope-versions-writers-leases-review-challenges
// item 7) through the built CLI: the thin layer over the store's writer and lease API.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { readProcessIdentity } from '../src/store/process-identity.js';
import { cleanupDirs, expectRefused, gov, govOk, makeWorld, readDb, setupUnit } from './state-helpers.js';

afterEach(cleanupDirs);

describe('writer register', () => {
  it('records the parent process by default: boot id, pid and start time from /proc', () => {
    const w = makeWorld();
    govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    const unit = govOk(w, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline]).unit as string;
    const out = govOk(w, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-1']);
    // The CLI is a child of this test process: the default identity is ours.
    const self = readProcessIdentity(process.pid);
    expect(out).toMatchObject({ writer_session: 'agent-1', pid: process.pid, start_time: self.startTime, boot_id: self.bootId });
    const db = readDb(w);
    expect(db.prepare('SELECT session, pid, start_time FROM writers').all()).toEqual([{ session: 'agent-1', pid: process.pid, start_time: self.startTime }]);
    db.close();
  });

  it('records an explicit --pid; refuses a dead pid, a duplicate session and a reused process identity', async () => {
    const w = makeWorld();
    govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    const unit = govOk(w, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline]).unit as string;
    const child = spawn('/bin/sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = child.pid as number;
      const out = govOk(w, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-2', '--pid', String(pid)]);
      expect(out).toMatchObject({ pid, start_time: readProcessIdentity(pid).startTime });
      expectRefused(w, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-2'], 'writer_already_registered', 8);
      expectRefused(w, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-3', '--pid', String(pid)], 'writer_identity_in_use', 8);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.on('close', r));
    expectRefused(w, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-4', '--pid', String(child.pid)], 'process_not_found', 2);
    expectRefused(w, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-4', '--pid', '12ab'], 'process_identity_invalid', 2);
    expectRefused(w, ['writer', 'register', '--unit', unit, '--writer-session', 'bad session!'], 'writer_session_invalid', 2);
    expectRefused(w, ['writer', 'register', '--unit', 'UNIT-' + 'f'.repeat(32), '--writer-session', 'agent-5'], 'unit_unknown', 7);
  });
});

describe('lease acquire / release / list', () => {
  it('acquire → list → release by the holder increments work_revision', () => {
    const w = makeWorld();
    const unit = setupUnit(w);
    const acquired = govOk(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1', '--ttl', '2h']);
    expect(acquired.lease).toMatch(/^LSE-[0-9a-f]{32}$/);
    const expires = Date.parse(acquired.expires_at as string) / 1000 - Date.now() / 1000;
    expect(expires).toBeGreaterThan(7190);
    expect(expires).toBeLessThan(7210);
    const list = govOk(w, ['lease', 'list', '--unit', unit]).leases as Record<string, unknown>[];
    expect(list).toEqual([expect.objectContaining({ lease: acquired.lease, state: 'active', writer_session: 'agent-1', ended_at: null })]);
    expectRefused(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1'], 'lease_held', 8);
    const released = govOk(w, ['lease', 'release', '--lease', acquired.lease as string, '--writer-session', 'agent-1']);
    expect(released).toMatchObject({ unit, work_revision: 1 });
    expect((govOk(w, ['lease', 'list']).leases as Record<string, unknown>[])[0]).toMatchObject({ state: 'released' });
    expectRefused(w, ['lease', 'release', '--lease', acquired.lease as string, '--writer-session', 'agent-1'], 'lease_not_active', 8);
  });

  it('only the holder session releases; other refusals leave the store unchanged', () => {
    const w = makeWorld();
    const unit = setupUnit(w);
    govOk(w, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-2', '--pid', String(process.ppid)]);
    const { lease } = govOk(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1']) as { lease: string };
    expectRefused(w, ['lease', 'release', '--lease', lease, '--writer-session', 'agent-2'], 'lease_not_holder', 8);
    expectRefused(w, ['lease', 'release', '--lease', 'LSE-' + '0'.repeat(32), '--writer-session', 'agent-1'], 'lease_unknown', 2);
    expectRefused(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'ghost'], 'writer_not_registered', 8);
    expectRefused(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1', '--ttl', 'forever'], 'lease_ttl_unparseable', 2);
    expectRefused(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1', '--ttl', '8d'], 'lease_ttl_invalid', 2);
    expectRefused(w, ['lease', 'list', '--unit', 'UNIT-' + '1'.repeat(32)], 'unit_unknown', 7);
  });

  it('an expired lease is listed as expired (read-only) and swept, logged, by the next acquire', async () => {
    const w = makeWorld();
    const unit = setupUnit(w);
    govOk(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1', '--ttl', '1s']);
    await new Promise((r) => setTimeout(r, 2100));
    const listed = govOk(w, ['lease', 'list', '--unit', unit]).leases as Record<string, unknown>[];
    expect(listed[0]).toMatchObject({ state: 'expired', ended_at: null });
    govOk(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1']);
    const db = readDb(w);
    try {
      expect(db.prepare("SELECT type FROM log WHERE type LIKE 'lease_%' ORDER BY seq").pluck().all()).toEqual([
        'lease_acquire',
        'lease_sweep',
        'lease_acquire',
      ]);
      // Expiry ends the lease like a release: work_revision moved.
      expect(db.prepare('SELECT work_revision FROM units').pluck().get()).toBe(1);
    } finally {
      db.close();
    }
    expect(gov(w, ['lease', 'list']).stdout).toMatch(/LSE-[0-9a-f]{32} expired /);
  });
});
