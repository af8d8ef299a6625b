// Shared fixtures of the review-run tests (docs/runner.md#the-run-step-by-step): a real world — git repository, keys made by
// governed's keygen, attestor configs for the REAL bundled attestor, a policy whose allowlists hold the
// real digests of /usr/bin/bwrap, the static profile, the seccomp blob, the scripted reviewer and the
// attestor — initialised through the built CLI, with one development slot per scripted reviewer mode
// (the policy sets REVIEW_MODE: docs/reviewers.md#the-reviewers-world, the caller never picks what runs).
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { sign as nodeSign } from 'node:crypto';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE, pae } from '../src/core/dsse.js';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { closeStore, openStore, pinDigestOf, recordAuthority, requestAuthority, verifyChain, assertReplayMatches } from '../src/store/index.js';
import { pinUpdateFlow } from '../src/flows/authority/pin-update.js';
import { spawn } from 'node:child_process';
import { ATTESTOR, CLI, REPO_ROOT, jsonOut, type CliResult } from './helpers/cli.js';
import {
  assertNoSecrets,
  contractDoc,
  FILE_CANARY,
  gov,
  govOk,
  makeKeys,
  makeWorld,
  policyDoc,
  readDb,
  setupUnit,
  SOURCE_CANARY,
  CONTEXT_CANARY,
  storeDigest,
  tempDir,
  trustDoc,
  writeJsonFile,
  type Keys,
  type World,
} from './state-helpers.js';

export const REVIEWER_FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'run', 'reviewer.mjs');
export const BWRAP = '/usr/bin/bwrap';
export const STDERR_CANARY_MODES = ['stderr'];
export const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** Scripted reviewer modes; each becomes a policy reviewer and a development slot of the same name. */
export const MODES = [
  'clean',
  'dirty',
  'stderr',
  'sleep',
  'signal',
  'timeout',
  'noncanon',
  'extra-key',
  'free-text',
  'finding-text',
  'path',
  'digest',
  'unknown-id',
  'unsorted',
  'duplicate',
  'unsorted-findings',
  'missing-coverage',
  'extra-coverage',
  'too-many',
  'clean-with-findings',
  'dirty-without',
  'bad-enum',
  'oversized',
  'two-objects',
  'exit-nonzero',
] as const;
export type Mode = (typeof MODES)[number];

export interface RunWorld extends World {
  readonly unit: string;
  readonly reviewersDir: string;
  readonly attestorsDir: string;
  readonly reviewerSha: string;
  readonly attestorSha: string;
  /** A bwrap stand-in that logs every invocation to `marker` and then execs the real bwrap. */
  readonly stubBwrap: string;
  readonly marker: string;
}

export interface RunWorldOptions {
  readonly modes?: readonly Mode[];
  readonly timeout?: string;
  /** Replace sandbox allowlist entries (e.g. a profile digest that is not the real one). */
  readonly sandbox?: Record<string, unknown>;
  readonly maxRuns?: number;
  readonly sleepMs?: number;
  /** The policy's challenge_ttl (default: policyDoc's). */
  readonly challengeTtl?: string;
}

/** Attestor configs + programs (copies of the real bundled attestor) for the reviewer and runner keys. */
export function attestorsDir(dir: string, keys: Keys): string {
  const d = join(dir, 'attestors');
  mkdirSync(d, { recursive: true });
  for (const cred of ['reviewer', 'runner'] as const) {
    writeFileSync(
      join(d, `${cred}.json`),
      JSON.stringify({ credential: cred, kind: 'review-receipt', key_id: keys[cred].keyId, key_ref: keys[cred].privateKeyPath }),
    );
    copyFileSync(ATTESTOR, join(d, `${cred}.mjs`));
  }
  return d;
}

/** The stand-in bwrap: world-traversable (the sandbox runs as the policy uid when we are root). */
function stub(dir: string): { stubBwrap: string; marker: string } {
  const d = join(dir, 'bwrap-stub');
  mkdirSync(d, { recursive: true });
  chmodSync(dir, 0o755);
  chmodSync(d, 0o777);
  const marker = join(d, 'invocations');
  writeFileSync(marker, '');
  chmodSync(marker, 0o666);
  const stubBwrap = join(d, 'bwrap');
  writeFileSync(stubBwrap, `#!/bin/sh\necho "$(id -u) $1" >> ${marker}\nexec ${BWRAP} "$@"\n`);
  chmodSync(stubBwrap, 0o755);
  return { stubBwrap, marker };
}

export async function makeRunWorld(o: RunWorldOptions = {}): Promise<RunWorld> {
  const modes = o.modes ?? MODES;
  const dir = tempDir('governed-run-');
  const keys = makeKeys(join(dir, 'keys'));
  const attestors = attestorsDir(dir, keys);
  const { stubBwrap, marker } = stub(dir);
  const reviewersDir = join(dir, 'reviewers');
  mkdirSync(reviewersDir);
  for (const m of modes) copyFileSync(REVIEWER_FIXTURE, join(reviewersDir, `${m}.mjs`));
  const reviewerSha = sha256(readFileSync(REVIEWER_FIXTURE));
  const attestorSha = sha256(readFileSync(ATTESTOR));
  const cfgSha = (cred: string): string => sha256(readFileSync(join(attestors, `${cred}.json`)));
  const bw = await inspectBwrap(BWRAP);
  const cred = (k: { keyId: string }, c: string): Record<string, unknown> => ({
    key_id: k.keyId,
    attestor_sha256: [attestorSha],
    attestor_config_sha256: c === 'reviewer' || c === 'runner' ? [cfgSha(c)] : ['7'.repeat(64)],
  });
  const env = (m: Mode): Record<string, string> => ({
    REVIEW_MODE: m,
    ...(m === 'sleep' ? { SLEEP_MS: String(o.sleepMs ?? 3000) } : {}),
    ...(m === 'oversized' ? { OVERSIZE_BYTES: String(100 * 1024) } : {}),
  });
  const policy = policyDoc(keys, {
    max_runs_per_content: o.maxRuns ?? 1000,
    ...(o.challengeTtl === undefined ? {} : { challenge_ttl: o.challengeTtl }),
    stages: { development: { required: false, streak: 2, slots: Object.fromEntries(modes.map((m) => [m, m])) } },
    reviewers: Object.fromEntries(modes.map((m) => [m, { sha256: reviewerSha, interpreter: '/usr/bin/node', env: env(m) }])),
    sandbox: {
      bwrap_sha256: [bw.sha256, sha256(readFileSync(stubBwrap))],
      profile_sha256: [staticProfileSha256()],
      seccomp_sha256: [sha256(seccompBlob())],
      uid: 64500,
      timeout: o.timeout ?? '20s',
      memory: '2GiB',
      max_output: '64KiB',
      max_bundle: '64MiB',
      ...o.sandbox,
    },
    credentials: { reviewer: cred(keys.reviewer, 'reviewer'), runner: cred(keys.runner, 'runner'), gate: cred(keys.gate, 'gate'), log: cred(keys.log, 'log') },
  });
  const w = makeWorld({ keys, policy, baselineFiles: { 'src/export.ts': 'export const csv = "baseline";\n' } });
  const unit = setupUnit(w);
  // The change under review (covered by IMP-1 and EVD-1), with a canary that must never be printed.
  w.repo.write('src/export.ts', `export const csv = '${FILE_CANARY}';\n`);
  w.repo.write('test/export.test.ts', 'test("csv", () => {});\n');
  return { ...w, unit, reviewersDir, attestorsDir: attestors, reviewerSha, attestorSha, stubBwrap, marker };
}

export function challengeArgs(w: RunWorld, slot: string): string[] {
  return ['review-challenge', '--unit', w.unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', slot];
}

/** Issue a challenge for a slot through the CLI; returns its id. */
export function issue(w: RunWorld, slot: string): string {
  return govOk(w, challengeArgs(w, slot)).challenge_id as string;
}

export function runArgs(w: RunWorld, challenge: string, extra: readonly string[] = []): string[] {
  return ['review-run', '--challenge', challenge, '--reviewers-dir', w.reviewersDir, '--attestors', w.attestorsDir, ...extra];
}

/** `governed review-run --json` in the world's repository. */
export function runReview(w: RunWorld, challenge: string, extra: readonly string[] = []): CliResult {
  const r = gov(w, [...runArgs(w, challenge, extra), '--json']);
  assertNoSecrets(r);
  return r;
}

export interface LogEntry {
  readonly seq: number;
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

export function logSince(w: World, seq: number): LogEntry[] {
  const db = readDb(w);
  try {
    return (db.prepare('SELECT seq, type, payload FROM log WHERE seq > ? ORDER BY seq').all(seq) as { seq: number; type: string; payload: Buffer }[]).map(
      (r) => ({ seq: r.seq, type: r.type, payload: JSON.parse(r.payload.toString('utf8')) as Record<string, unknown> }),
    );
  } finally {
    db.close();
  }
}

export function headSeq(w: World): number {
  const db = readDb(w);
  try {
    return db.prepare('SELECT COALESCE(MAX(seq), 0) FROM log').pluck().get() as number;
  } finally {
    db.close();
  }
}

export function challengeStatus(w: World, id: string): string {
  const db = readDb(w);
  try {
    return db.prepare('SELECT status FROM challenges WHERE id = ?').pluck().get(id) as string;
  } finally {
    db.close();
  }
}

export function countRows(w: World, table: 'receipts' | 'runs'): number {
  const db = readDb(w);
  try {
    return db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
  } finally {
    db.close();
  }
}

/** A writable raw connection: the attacker who edits the database file behind governed's back. */
export function rawDb(w: World): Database.Database {
  return new Database(join(w.home, 'governed.db'));
}

/** The --json error object of a failed run. */
export function errorCode(r: CliResult): { code: string; exit: number; ids: string[] } {
  return (jsonOut(r) as { error: { code: string; exit: number; ids: string[] } }).error;
}

/**
 * After a run refused AFTER its claim: exactly two new log entries, the claim and its ABORTED entry
 * with `code`; the challenge aborted; no receipt; the CLI printed verdict ABORTED with the run id and
 * exited with the code's exit. The log still verifies and replays to the stored state.
 */
export function expectAborted(w: RunWorld, before: number, r: CliResult, code: string, exit: number, alsoLogged: readonly string[] = []): { ids: string[] } {
  const out = jsonOut(r) as { verdict?: string; run_id?: string; receipt_id?: unknown; error?: { code: string; ids: string[] } };
  expect({ code: out.error?.code, exit: r.code, verdict: out.verdict }).toEqual({ code, exit, verdict: 'ABORTED' });
  expect(out.receipt_id).toBeNull();
  const all = logSince(w, before);
  // Entries the test itself made while the run was going (a bind, a pin update, a lease) aside.
  expect(all.filter((e) => !e.type.startsWith('run_')).map((e) => e.type)).toEqual([...alsoLogged]);
  const entries = all.filter((e) => e.type.startsWith('run_'));
  expect(entries.map((e) => e.type)).toEqual(['run_claim', 'run_abort']);
  expect(entries[1]?.payload.code).toBe(code);
  expect(entries[1]?.payload.run).toBe(out.run_id);
  expect(challengeStatus(w, entries[0]?.payload.challenge as string)).toBe('aborted');
  expect(existsBundle(w, entries[0]?.payload.challenge as string)).toBe(false);
  expectLogSound(w);
  return { ids: out.error?.ids ?? [] };
}

/** A refusal BEFORE the claim: the code, its exit, and every table (the log included) unchanged. */
export function expectRefusedBeforeClaim(w: RunWorld, challenge: string, code: string, exit: number, extra: readonly string[] = []): CliResult {
  const before = storeDigest(w);
  const r = runReview(w, challenge, extra);
  expect({ code: errorCode(r).code, exit: r.code }).toEqual({ code, exit });
  expect(storeDigest(w)).toBe(before);
  return r;
}

export function existsBundle(w: World, challenge: string): boolean {
  try {
    readFileSync(join(w.home, 'bundles', `${challenge}.json`));
    return true;
  } catch {
    return false;
  }
}

/** The log verifies (hashes, links, payload schemas) and replays to exactly the stored state. */
export function expectLogSound(w: World): void {
  const store = openStore(w.home);
  try {
    verifyChain(store);
    assertReplayMatches(store, join(tempDir('governed-run-replay-'), 'replay.db'));
  } finally {
    closeStore(store);
  }
}

/** A secret-free stdout/stderr: no source, file or context canary (the reviewer saw all of them). */
export function expectNoSecrets(r: CliResult): void {
  for (const c of [SOURCE_CANARY, FILE_CANARY, CONTEXT_CANARY, 'reviewer stderr']) {
    expect(r.stdout).not.toContain(c);
    expect(r.stderr).not.toContain(c);
  }
}

/** Replace the pinned policy or trust root the legitimate way (docs/policy.md#policy-and-trust-root): a signed authority record. */
export function updatePin(w: RunWorld, kind: 'policy' | 'trust', doc: Record<string, unknown>): void {
  const file = writeJsonFile(join(tempDir('governed-run-pin-'), `${kind}.json`), doc);
  const bytes = readFileSync(file);
  const store = openStore(w.home);
  const now = Math.floor(Date.now() / 1000);
  let recordId: string;
  try {
    const req = requestAuthority(store, {
      operation: `${kind}_update`,
      ids: [],
      unit: null,
      stateBefore: null,
      stateAfter: pinDigestOf(bytes, kind),
      ttlSeconds: 3600,
      now,
    });
    const sig = nodeSign(null, pae(IN_TOTO_PAYLOAD_TYPE, req.payload), w.keys.authority.privateKey);
    const envelope = Buffer.from(JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, req.payload, [{ keyid: w.keys.authority.keyId, sig }])));
    recordId = recordAuthority(store, { envelope, now }).recordId;
  } finally {
    closeStore(store);
  }
  pinUpdateFlow({ home: w.home, kind, file, recordId, now });
}

export function currentPolicy(w: RunWorld): Record<string, unknown> {
  return JSON.parse(readFileSync(w.policyFile, 'utf8')) as Record<string, unknown>;
}

export function currentTrust(w: RunWorld): Record<string, unknown> {
  return trustDoc(w.keys) as Record<string, unknown>;
}

export { contractDoc, gov, govOk, storeDigest, readDb };

/** Start `governed review-run --json` as its own OS process; resolves with its result. */
export function runReviewAsync(
  w: RunWorld,
  challenge: string,
  extra: readonly string[] = [],
  opts: { readonly nodeArgs?: readonly string[]; readonly env?: Record<string, string> } = {},
): { done: Promise<CliResult>; pid: () => number | undefined; kill: (sig: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), CLI, ...runArgs(w, challenge, extra), '--json', '--home', w.home], {
    cwd: w.repo.root,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const done = new Promise<CliResult>((resolvePromise) => child.on('close', (code) => resolvePromise({ code, stdout, stderr })));
  return { done, pid: () => child.pid, kill: (sig) => child.kill(sig) };
}

/** Poll the store until the challenge reaches `status` (or fail after `ms`). */
export async function waitForStatus(w: World, challenge: string, status: string, ms = 30_000): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (challengeStatus(w, challenge) === status) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`challenge never reached ${status}`);
}

/**
 * Trial counts of the exactly-once and crash suites: the issue's minimums, raised — never lowered —
 * by GOVERNED_TRIALS, either one factor (`GOVERNED_TRIALS=3`: three times every minimum) or named
 * counts (`GOVERNED_TRIALS=claim=2000,cli=100,crash=400`).
 */
export function trials(name: string, minimum: number): number {
  const spec = process.env.GOVERNED_TRIALS?.trim();
  if (!spec) return minimum;
  if (/^\d+$/.test(spec)) return Math.max(minimum, minimum * Number(spec));
  for (const part of spec.split(',')) {
    const [k, v] = part.split('=');
    if (k?.trim() === name && v !== undefined && /^\d+$/.test(v.trim())) return Math.max(minimum, Number(v.trim()));
  }
  return minimum;
}
