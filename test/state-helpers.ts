// Shared fixtures of the state tests (init, units, binds, writers, leases, review-challenge): real
// keys (governed's keygen), real trust roots and policies written to files, real git repositories,
// real state directories, the built CLI as a child process. Source and file texts carry canary
// strings so every test can assert that no secret reaches stdout or stderr.
import { spawn } from 'node:child_process';
import { sign as nodeSign } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE, pae } from '../src/core/dsse.js';
import { closeStore, openStore, recordAuthority, requestAuthority, tablesDigest } from '../src/store/index.js';
import { CLI, jsonOut, runCli, type CliResult } from './helpers/cli.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';
import { makeKey, trustRootDoc, type TestKey } from './helpers/receipts.js';
import { makeTempDir } from './helpers/temp.js';

export const SOURCE_CANARY = 'CANARY-SOURCE-5f1e0c';
export const FILE_CANARY = 'CANARY-FILE-a93b27';
export const CONTEXT_CANARY = 'CANARY-CONTEXT-77d0';

const dirs: string[] = [];
export function tempDir(prefix = 'governed-issue-'): string {
  const d = makeTempDir(prefix);
  dirs.push(d);
  return d;
}
export function cleanupDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface Keys {
  readonly reviewer: TestKey;
  readonly runner: TestKey;
  readonly gate: TestKey;
  readonly log: TestKey;
  readonly authority: TestKey;
}

export function makeKeys(dir = tempDir('governed-issue-keys-')): Keys {
  return {
    reviewer: makeKey(dir, 'reviewer'),
    runner: makeKey(dir, 'runner'),
    gate: makeKey(dir, 'gate'),
    log: makeKey(dir, 'log'),
    authority: makeKey(dir, 'authority'),
  };
}

export function trustDoc(keys: Keys, expires?: string): Record<string, unknown> {
  return trustRootDoc(
    [
      { key: keys.reviewer, roles: ['reviewer'] },
      { key: keys.runner, roles: ['runner'] },
      { key: keys.gate, roles: ['gate'] },
      { key: keys.log, roles: ['log'] },
      { key: keys.authority, roles: ['authority'] },
    ],
    expires,
  );
}

const H = (c: string): string => c.repeat(64);
const ROLE_SLOTS = {
  source_fidelity: 'coverage',
  baseline_preservation: 'coverage',
  implementation_test: 'coverage',
  authority_release: 'coverage',
};

/** A policy valid under docs/policy.md#policy-and-trust-root whose credentials are `keys`. `over` replaces top-level fields. */
export function policyDoc(keys: Keys, over: Record<string, unknown> = {}): Record<string, unknown> {
  const cred = (k: TestKey, c: string): Record<string, unknown> => ({ key_id: k.keyId, attestor_sha256: [H(c)], attestor_config_sha256: [H(c)] });
  return {
    kind: 'governed/policy',
    version: 1,
    trust_mode: 'co-located',
    accept_co_located: true,
    challenge_ttl: '10m',
    max_runs_per_content: 12,
    product_roots: ['.'],
    exclude: ['.governed'],
    preservation: { waived: 'preservation arrives with a later issue' },
    stages: {
      // Planning is optional here so lease and challenge tests can take leases without first sealing
      // planning (`planning_not_sealed` has its own tests in test/gate-story.test.ts).
      planning: { required: false, streak: 2, slots: ROLE_SLOTS },
      development: { required: false, streak: 2, slots: { coverage: 'coverage' } },
      integration: { required: true, streak: 2, slots: ROLE_SLOTS },
    },
    reviewers: { coverage: { sha256: H('1'), interpreter: '/usr/bin/node', env: {} } },
    sandbox: {
      bwrap_sha256: [H('2')],
      profile_sha256: [H('3')],
      seccomp_sha256: [H('4')],
      uid: 64500,
      timeout: '120s',
      memory: '2GiB',
      max_output: '1MiB',
      max_bundle: '64MiB',
    },
    credentials: { reviewer: cred(keys.reviewer, '5'), runner: cred(keys.runner, '6'), gate: cred(keys.gate, '7'), log: cred(keys.log, '8') },
    controls: ['deploy_gate'],
    ...over,
  };
}

export function writeJsonFile(path: string, value: unknown): string {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

// --- the request: one directive source with two obligation atoms and a context atom ----------

export const OBLIGATION = `Add a CSV export of receipts ${SOURCE_CANARY}.`;
export const OBLIGATION2 = ' Also add a JSON export.';
export const CONTEXT = ` Thanks! Background: ${CONTEXT_CANARY} auditors asked.\n`;
export const SOURCE_TEXT = OBLIGATION + OBLIGATION2 + CONTEXT;
const OB1_END = Buffer.byteLength(OBLIGATION);
const OB2_END = OB1_END + Buffer.byteLength(OBLIGATION2);
const SRC_END = Buffer.byteLength(SOURCE_TEXT);

export interface ContractOptions {
  /** Directive state of DIR-1. */
  readonly state?: 'active' | 'done';
  /** Also target test/export.test.ts with a second target TGT-2 of DIR-1. */
  readonly secondTarget?: boolean;
  readonly extraImplPaths?: readonly string[];
  readonly title?: string;
}

/**
 * The unit's contract over SRC-1 (requests/export.md): DIR-1 (ATOM-1; target src/export.ts,
 * IMP-1 src/export.ts, EVD-1 test/export.test.ts) and DIR-2 (ATOM-3; target src/json.ts).
 */
export function contractDoc(o: ContractOptions = {}): Record<string, unknown> {
  return {
    kind: 'governed/request-contract',
    version: 1,
    title: o.title ?? 'CSV export',
    sources: [
      {
        id: 'SRC-1',
        path: 'requests/export.md',
        class: 'directive',
        atoms: [
          { id: 'ATOM-1', span: [0, OB1_END], kind: 'obligation', directives: ['DIR-1'] },
          { id: 'ATOM-3', span: [OB1_END, OB2_END], kind: 'obligation', directives: ['DIR-2'] },
          { id: 'ATOM-2', span: [OB2_END, SRC_END], kind: 'context', directives: [] },
        ],
      },
    ],
    directives: [
      {
        id: 'DIR-1',
        statement: `${OBLIGATION} The export writes one row per receipt.`,
        state: o.state ?? 'active',
        sources: ['SRC-1'],
        targets: [{ id: 'TGT-1', paths: ['src/export.ts'] }, ...(o.secondTarget ? [{ id: 'TGT-2', paths: ['test/export.test.ts'] }] : [])],
        criteria: [{ id: 'AC-1', statement: 'A receipt becomes one CSV row.', atoms: ['ATOM-1'] }],
        implementations: ['IMP-1'],
        evidence: ['EVD-1'],
      },
      {
        id: 'DIR-2',
        statement: `JSON export:${OBLIGATION2}`,
        state: 'active',
        sources: ['SRC-1'],
        targets: [{ id: 'TGT-3', paths: ['src/json.ts'] }],
        criteria: [{ id: 'AC-2', statement: 'The JSON export lists every receipt.', atoms: ['ATOM-3'] }],
        implementations: [],
        evidence: [],
      },
    ],
    implementations: [{ id: 'IMP-1', paths: ['src/export.ts', ...(o.extraImplPaths ?? [])] }],
    evidence: [{ id: 'EVD-1', kind: 'test', paths: ['test/export.test.ts'] }],
    authorities: [],
    tombstones: [],
  };
}

export interface World {
  readonly dir: string;
  readonly home: string;
  readonly repo: TempRepo;
  readonly baseline: string;
  readonly keys: Keys;
  readonly policyFile: string;
  readonly trustFile: string;
  readonly contractFile: string;
}

/**
 * A repository whose baseline commit holds the human request (with its canaries) and one
 * unrelated file; policy, trust root and contract written as files; the store NOT yet initialised.
 */
export function makeWorld(
  o: { policy?: Record<string, unknown>; keys?: Keys; contract?: Record<string, unknown>; baselineFiles?: Record<string, string> } = {},
): World {
  const dir = tempDir();
  const keys = o.keys ?? makeKeys(join(dir, 'keys'));
  const repo = makeTempRepo({ prefix: 'governed-issue-repo-' });
  dirs.push(repo.root);
  repo.write('requests/export.md', SOURCE_TEXT);
  repo.write('src/util.ts', 'export const util = 1;\n');
  repo.write('.gitignore', 'ignored/\n');
  for (const [path, text] of Object.entries(o.baselineFiles ?? {})) repo.write(path, text);
  const baseline = repo.commitAll('baseline');
  return {
    dir,
    home: join(dir, 'state'),
    repo,
    baseline,
    keys,
    policyFile: writeJsonFile(join(dir, 'policy.json'), o.policy ?? policyDoc(keys)),
    trustFile: writeJsonFile(join(dir, 'trust.json'), trustDoc(keys)),
    contractFile: writeJsonFile(join(dir, 'contract.json'), o.contract ?? contractDoc()),
  };
}

// --- the CLI --------------------------------------------------------------------------------

/** Run the built CLI in the world's repository with its state directory. */
export function gov(w: World, args: readonly string[]): CliResult {
  return runCli([...args, '--home', w.home], { cwd: w.repo.root });
}

/** Run and require success; returns the parsed --json object. */
export function govOk(w: World, args: readonly string[]): Record<string, unknown> {
  const r = gov(w, [...args, '--json']);
  if (r.code !== 0) throw new Error(`governed ${args[0]} failed: ${r.code} ${r.stdout} ${r.stderr}`);
  assertNoSecrets(r);
  return jsonOut(r);
}

/** init + unit create + writer register (the test process as the writer). Returns the unit id. */
export function setupUnit(w: World, session = 'agent-1'): string {
  govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
  const unit = govOk(w, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline]).unit as string;
  govOk(w, ['writer', 'register', '--unit', unit, '--writer-session', session]);
  return unit;
}

export function assertNoSecrets(r: CliResult): void {
  for (const canary of [SOURCE_CANARY, FILE_CANARY, CONTEXT_CANARY]) {
    expect(r.stdout).not.toContain(canary);
    expect(r.stderr).not.toContain(canary);
  }
}

/** The error object of a --json failure. */
export function errorOf(r: CliResult): { code: string; exit: number; ids: string[] } {
  const out = jsonOut(r) as { ok: boolean; error: { code: string; exit: number; ids: string[] } };
  expect(out.ok).toBe(false);
  return out.error;
}

/** Digest of every table of the world's store (read through a separate read-only connection). */
export function storeDigest(w: World): string {
  const db = new Database(join(w.home, 'governed.db'), { readonly: true, fileMustExist: true });
  try {
    return tablesDigest(db);
  } finally {
    db.close();
  }
}

/** A read-only connection for assertions on rows. */
export function readDb(w: World): Database.Database {
  return new Database(join(w.home, 'governed.db'), { readonly: true, fileMustExist: true });
}

/**
 * Run `args` expecting a refusal with `code` and `exit`, the store unchanged (every table, the log
 * included) and no secret in the output.
 */
export function expectRefused(w: World, args: readonly string[], code: string, exit: number): { ids: string[] } {
  const before = storeDigest(w);
  const r = gov(w, [...args, '--json']);
  const error = errorOf(r);
  expect({ code: error.code, exit: r.code }).toEqual({ code, exit });
  expect(error.exit).toBe(exit);
  assertNoSecrets(r);
  expect(storeDigest(w)).toBe(before);
  return { ids: error.ids };
}

/** Start the CLI asynchronously (for races); resolves with its result. */
export function govAsync(w: World, args: readonly string[]): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [CLI, ...args, '--home', w.home], {
      cwd: w.repo.root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

// --- authority records (docs/authority.md#human-authority-records), made through the authority domain's store API --------------

/**
 * Request, sign (with the world's authority key, exactly as `authority sign` does: Ed25519 over the
 * DSSE PAE of the issued payload) and record an authority record in the world's store. Returns the
 * record id. The real terminal-confirmation path of `authority sign` is tested by its own domain.
 */
export function recordAuthorityFor(
  w: World,
  args: { unit: string; operation: string; ids: readonly string[]; stateBefore: string; stateAfter: string | null; ttlSeconds?: number },
): string {
  const store = openStore(w.home);
  try {
    const now = Math.floor(Date.now() / 1000);
    const req = requestAuthority(store, {
      operation: args.operation,
      ids: args.ids,
      unit: args.unit,
      stateBefore: args.stateBefore,
      stateAfter: args.stateAfter,
      ttlSeconds: args.ttlSeconds ?? 3600,
      now,
    });
    const m = pae(IN_TOTO_PAYLOAD_TYPE, req.payload);
    const sig = nodeSign(null, m, w.keys.authority.privateKey);
    const envelope = Buffer.from(JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, req.payload, [{ keyid: w.keys.authority.keyId, sig }])));
    return recordAuthority(store, { envelope, now }).recordId;
  } finally {
    closeStore(store);
  }
}
