// The stores bench/gate and bench/audit measure (moved from bench/gate.ts, unchanged): a real
// repository, a unit created by `createUnitFlow`, and a history of work revisions with real signed
// receipts committed through the store API in large transactions; cached in the temp dir under a
// version key (BENCH_GATE_CACHE=0 rebuilds; quick mode always builds, in a temporary directory
// listed in `quickDirs` for the bench to remove). See bench/gate.ts for the shape.
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { viewFor } from '../../src/core/bundle/views.js';
import { canonicalJson, digestOf, sha256Digest } from '../../src/core/canonical.js';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE, pae } from '../../src/core/dsse.js';
import { buildStatement } from '../../src/core/intoto.js';
import type { Stage } from '../../src/core/policy.js';
import { REVIEW_RECEIPT_PREDICATE_TYPE, type ReviewReceiptPredicate } from '../../src/core/receipt-predicate.js';
import { createUnitFlow } from '../../src/flows/unit-create.js';
import { currentDigests, readScope, readUnit } from '../../src/flows/decide/unit-state.js';
import {
  acquireLeaseIn,
  claimRunIn,
  closeStore,
  commitReceiptIn,
  initStore,
  issueChallengeIn,
  mutate,
  newChallengeId,
  openStore,
  readProcessIdentity,
  registerWriter,
  releaseLeaseIn,
  type Store,
} from '../../src/store/index.js';
import { computeCommitManifest } from '../../src/workspace/index.js';
import { knob, QUICK } from '../lib/quick.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';

/**
 * Bump when the generated store's shape changes: old caches are then ignored. The store's schema
 * version is part of the key, so a cache made before a migration is never reused (a read-only gate
 * on it would be store_migration_required).
 */
const VERSION = `gate-bench-v6-schema${SCHEMA_VERSION}`;
/**
 * DIRTY receipts in each history, each lifted by the next revision's CLEAN of its slot. The same
 * number in both stores: every lifter of a block of a gating slot is a record the decision relies
 * on and is re-verified (~0.5 ms each here), so the gate's work grows with the lifted blocks, not
 * with the history's length; the growth bar measures the latter. BENCH_DIRTY raises it to show
 * the former (docs/gate.md has both).
 */
export const DIRTY = knob('BENCH_DIRTY', 10, 2);
export const CLI = resolve(process.env.GOVERNED_CLI ?? join('dist', 'governed.mjs'));
const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'];
const WORK_SLOTS: [string, string][] = [['development', 'coverage'], ...ROLES.map((r): [string, string] => ['integration', r])];
const SESSION = 'bench-writer';
const T0 = Math.floor(Date.now() / 1000) - 30 * 86_400;
const H = (c: string): string => c.repeat(64);
const GIT_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/nonexistent/bench-home',
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
};

interface Key {
  readonly priv: KeyObject;
  readonly pem: string;
  readonly keyId: string;
}
function key(): Key {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return { priv: privateKey, pem: publicKey.export({ format: 'pem', type: 'spki' }) as string, keyId: createHash('sha256').update(der).digest('hex') };
}

export interface Fixture {
  readonly home: string;
  readonly repo: string;
  readonly trustFile: string;
  readonly policyDigest: string;
  readonly unit: string;
  readonly subject: string;
  readonly receipts: number;
}

const REQUEST = 'Add a CSV export of receipts. Thanks for reading this request.\n';
const OBLIGATION_END = Buffer.byteLength('Add a CSV export of receipts.');

function contractDoc(): Record<string, unknown> {
  return {
    kind: 'governed/request-contract',
    version: 1,
    title: 'CSV export',
    sources: [
      {
        id: 'SRC-1',
        path: 'requests/export.md',
        class: 'directive',
        atoms: [
          { id: 'ATOM-1', span: [0, OBLIGATION_END], kind: 'obligation', directives: ['DIR-1'] },
          { id: 'ATOM-2', span: [OBLIGATION_END, Buffer.byteLength(REQUEST)], kind: 'context', directives: [] },
        ],
      },
    ],
    directives: [
      {
        id: 'DIR-1',
        statement: 'Add a CSV export of receipts. One row per receipt.',
        state: 'done',
        sources: ['SRC-1'],
        targets: [{ id: 'TGT-1', paths: ['src/export.ts'] }],
        criteria: [{ id: 'AC-1', statement: 'A receipt becomes one CSV row.', atoms: ['ATOM-1'] }],
        implementations: ['IMP-1'],
        evidence: ['EVD-1'],
      },
    ],
    implementations: [{ id: 'IMP-1', paths: ['src/export.ts'] }],
    evidence: [{ id: 'EVD-1', kind: 'test', paths: ['test/export.test.ts'] }],
    authorities: [],
    tombstones: [],
  };
}

function policyDoc(keys: Record<string, Key>): Record<string, unknown> {
  const cred = (k: Key, c: string) => ({ key_id: k.keyId, attestor_sha256: [H(c)], attestor_config_sha256: [H(c)] });
  const roles = Object.fromEntries(ROLES.map((r) => [r, 'coverage']));
  return {
    kind: 'governed/policy',
    version: 1,
    trust_mode: 'co-located',
    accept_co_located: true,
    challenge_ttl: '10m',
    max_runs_per_content: 12,
    product_roots: ['.'],
    exclude: ['.governed'],
    preservation: { waived: 'bench' },
    stages: {
      planning: { required: true, streak: 2, slots: roles },
      development: { required: false, streak: 2, slots: { coverage: 'coverage' } },
      integration: { required: true, streak: 2, slots: roles },
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
    credentials: {
      reviewer: cred(keys.reviewer as Key, '5'),
      runner: cred(keys.runner as Key, '6'),
      gate: cred(keys.gate as Key, '7'),
      log: cred(keys.log as Key, '8'),
    },
    controls: ['deploy_gate'],
  };
}

interface State {
  readonly planning: string;
  readonly content: string;
  readonly work: string;
  readonly workspace: string;
}

/** Everything one receipt needs: its challenge, claim, signed envelope and commit, inside `tx`. */
function addReceipt(
  tx: Parameters<Parameters<typeof mutate>[2]>[0],
  ctx: { unit: string; scopeVersion: number; scopeEpoch: number; workRevision: number; baseline: { commit: string; tree: string }; contractDigest: string; sourcesDigest: string; policyDigest: string; trustDigest: string; reviewer: Key; runner: Key },
  stage: string,
  slot: string,
  state: State,
  verdict: 'CLEAN' | 'DIRTY',
): void {
  const challenge = newChallengeId();
  issueChallengeIn(tx, {
    challenge,
    unit: ctx.unit,
    stage: stage as 'planning',
    slot,
    writer_session: SESSION,
    reviewer: { name: 'coverage', sha256: H('1'), interpreter: '/usr/bin/node' },
    view: viewFor(stage as Stage, slot).name,
    bundle_digest: sha256Digest(`${challenge}-bundle`),
    bundle_size: 4096,
    view_digest: sha256Digest(`${challenge}-view`),
    planning_state_digest: state.planning,
    content_digest: state.content,
    work_state_digest: state.work,
    contract_digest: ctx.contractDigest,
    sources_digest: ctx.sourcesDigest,
    workspace_digest: state.workspace,
    baseline: ctx.baseline,
    policy_digest: ctx.policyDigest,
    trust_digest: ctx.trustDigest,
    scope_version: ctx.scopeVersion,
    scope_epoch: ctx.scopeEpoch,
    work_revision: ctx.workRevision,
    ttlSeconds: 600,
    maxRunsPerContent: 12,
  });
  const self = readProcessIdentity(process.pid);
  const run = claimRunIn(tx, {
    challengeId: challenge,
    unit: ctx.unit,
    stage,
    slot,
    reviewerName: 'coverage',
    reviewerSha256: H('1'),
    runner: self,
    deadline: tx.now + 600,
  });
  const iso = new Date(tx.now * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const findings = verdict === 'DIRTY' ? [{ code: 'test_gap' as const, class: 'correctness' as const, severity: 'MEDIUM' as const, refs: ['AC-1'] }] : [];
  const predicate: ReviewReceiptPredicate = {
    trust_mode: 'co-located',
    unit: ctx.unit,
    stage: stage as 'planning',
    slot,
    challenge_id: challenge,
    run_id: run.runId,
    execution_id: run.executionId,
    verdict,
    findings,
    vetoes: [],
    coverage_matched: true,
    bundle_digest: sha256Digest(`${challenge}-bundle`),
    view_digest: sha256Digest(`${challenge}-view`),
    planning_state_digest: state.planning,
    content_digest: state.content,
    work_state_digest: state.work,
    inputs: {
      contract_digest: ctx.contractDigest,
      sources_digest: ctx.sourcesDigest,
      workspace_digest: state.workspace,
      baseline: ctx.baseline,
      policy_digest: ctx.policyDigest,
      trust_digest: ctx.trustDigest,
      scope_epoch: ctx.scopeEpoch,
      work_revision: ctx.workRevision,
    },
    reviewer: { name: 'coverage', sha256: H('1'), interpreter: '/usr/bin/node' },
    sandbox: { bwrap_sha256: H('2'), profile_digest: `sha256:${H('3')}`, seccomp_digest: `sha256:${H('4')}`, uid: 64500, uid_separated: false },
    attestors: { reviewer_sha256: H('5'), runner_sha256: H('6') },
    reviewer_process: { boot_id: self.bootId, pid: 2, start_time: '1', namespaces: { cgroup: 1, ipc: 2, mnt: 3, net: 4, pid: 5, user: 6, uts: 7 } },
    writers: [{ writer_session: SESSION, boot_id: self.bootId, pid: self.pid, start_time: String(self.startTime) }],
    times: { issued_at: iso, started_at: iso, finished_at: iso },
  };
  const payload = Buffer.from(
    canonicalJson(buildStatement([{ name: 'workspace', digest: { sha256: state.workspace.slice(7) } }], REVIEW_RECEIPT_PREDICATE_TYPE, predicate)),
  );
  const m = pae(IN_TOTO_PAYLOAD_TYPE, payload);
  const envelope = Buffer.from(
    JSON.stringify(
      encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, [
        { keyid: ctx.reviewer.keyId, sig: sign(null, m, ctx.reviewer.priv) },
        { keyid: ctx.runner.keyId, sig: sign(null, m, ctx.runner.priv) },
      ]),
    ),
  );
  commitReceiptIn(tx, {
    runId: run.runId,
    receiptId: sha256Digest(payload),
    verdict,
    hasVeto: false,
    planningStateDigest: state.planning,
    contentDigest: state.content,
    workStateDigest: state.work,
    policyDigest: ctx.policyDigest,
    trustDigest: ctx.trustDigest,
    envelope,
  });
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('/usr/bin/git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

async function buildFixture(dir: string, receipts: number): Promise<Fixture> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'requests'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'requests/export.md'), REQUEST);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'baseline');
  const baseline = git(repo, 'rev-parse', 'HEAD');
  mkdirSync(join(repo, 'src'));
  mkdirSync(join(repo, 'test'));
  writeFileSync(join(repo, 'src/export.ts'), 'export const toCsv = (rows: string[]): string => rows.join("\\n");\n');
  writeFileSync(join(repo, 'test/export.test.ts'), "import { toCsv } from '../../src/export';\n");
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'the change');
  const subject = git(repo, 'rev-parse', 'HEAD');

  const keys = { reviewer: key(), runner: key(), gate: key(), log: key() };
  const trustDoc = {
    version: 1,
    expires: '2099-01-01T00:00:00Z',
    keys: Object.entries(keys).map(([role, k]) => ({ key_id: k.keyId, public_key: k.pem, roles: [role], not_before: '2020-01-01T00:00:00Z', not_after: '2099-01-01T00:00:00Z' })),
  };
  const trustFile = join(dir, 'trust.json');
  writeFileSync(trustFile, JSON.stringify(trustDoc));
  const policy = policyDoc(keys);
  const policyFile = join(dir, 'policy.json');
  writeFileSync(policyFile, JSON.stringify(policy));
  const contractFile = join(dir, 'contract.json');
  writeFileSync(contractFile, JSON.stringify(contractDoc()));
  const home = join(dir, 'state');
  closeStore(initStore(home, { policyBytes: readFileSync(policyFile), trustBytes: readFileSync(trustFile), now: T0 }));
  const created = await createUnitFlow({ home, contractFile, baseline, repo, now: T0 });
  const unit = created.unitId;
  const store: Store = openStore(home);
  try {
    registerWriter(store, { unit, writerSession: SESSION, identity: readProcessIdentity(process.pid), now: T0 });
    const policyDigest = digestOf(policy);
    const trustDigest = digestOf(trustDoc);
    const base = {
      unit,
      scopeVersion: created.scopeVersion,
      scopeEpoch: created.scopeEpoch,
      baseline: { commit: created.baselineCommit, tree: created.baselineTree },
      contractDigest: created.contractDigest,
      sourcesDigest: created.sourcesDigest,
      policyDigest,
      trustDigest,
      reviewer: keys.reviewer,
      runner: keys.runner,
    };
    const manifest = await computeCommitManifest(repo, subject, { productRoots: ['.'], exclude: ['.governed'] });
    const scope = await readScope(store.db, unit);
    const planning = currentDigests(readUnit(store.db, unit), scope, manifest.digest).planningStateDigest;

    // History: 10 receipts per work revision (2 rounds x 5 work slots), DIRTY ones spread evenly.
    // 18 receipts on the current state: 2 planning rounds of 4 roles, 2 rounds of the 5 work slots.
    const history = Math.max(0, receipts - 18);
    const revisions = Math.ceil(history / 10);
    let made = 0;
    const dirtyEvery = Math.max(1, Math.floor(history / Math.max(1, DIRTY)));
    let clock = T0 + 10;
    const PER_TX = 100; // revisions per transaction
    for (let r0 = 0; r0 < revisions; r0 += PER_TX) {
      mutate(store, clock++, (tx) => {
        for (let r = r0; r < Math.min(revisions, r0 + PER_TX); r++) {
          const lease = acquireLeaseIn(tx, { unit, writerSession: SESSION, ttlSeconds: 600 });
          const { workRevision } = releaseLeaseIn(tx, { leaseId: lease.leaseId, writerSession: SESSION });
          const workspace = sha256Digest(`workspace-${r}`);
          const content = sha256Digest(`content-${r}`);
          const state = { planning, content, work: sha256Digest(`work-${r}-${workRevision}`), workspace };
          for (let round = 0; round < 2 && made < history; round++) {
            for (const [stage, slot] of WORK_SLOTS) {
              if (made >= history) break;
              addReceipt(tx, { ...base, workRevision }, stage, slot, state, made % dirtyEvery === dirtyEvery >> 1 ? 'DIRTY' : 'CLEAN');
              made++;
            }
          }
        }
      });
      if (r0 % 2000 === 0) process.stdout.write(`  ${made} / ${history} history receipts\r`);
    }
    // The current state: the change as the subject (one more lease cycle), then the reviews.
    mutate(store, clock++, (tx) => {
      const lease = acquireLeaseIn(tx, { unit, writerSession: SESSION, ttlSeconds: 600 });
      releaseLeaseIn(tx, { leaseId: lease.leaseId, writerSession: SESSION });
    });
    const unitNow = readUnit(store.db, unit);
    const current = currentDigests(unitNow, scope, manifest.digest);
    const state = { planning: current.planningStateDigest, content: current.contentDigest, work: current.workStateDigest, workspace: manifest.digest };
    mutate(store, clock++, (tx) => {
      const ctx = { ...base, workRevision: unitNow.workRevision };
      for (let round = 0; round < 2; round++) for (const role of ROLES) addReceipt(tx, ctx, 'planning', role, state, 'CLEAN');
      for (let round = 0; round < 2; round++) for (const [stage, slot] of WORK_SLOTS) addReceipt(tx, ctx, stage, slot, state, 'CLEAN');
    });
    const total = store.db.prepare('SELECT COUNT(*) FROM receipts').pluck().get() as number;
    process.stdout.write(`  ${total} receipts in the store${' '.repeat(20)}\n`);
    return { home, repo, trustFile, policyDigest, unit, subject, receipts: total };
  } finally {
    closeStore(store);
  }
}

/** Quick mode's stores, removed when the bench ends. */
export const quickDirs: string[] = [];

export async function fixture(receipts: number): Promise<Fixture> {
  const dir = QUICK ? mkdtempSync(join(tmpdir(), `governed-bench-gate-quick-${receipts}-`)) : join(tmpdir(), `governed-bench-${VERSION}-${receipts}-dirty${DIRTY}`);
  if (QUICK) quickDirs.push(dir);
  const meta = join(dir, 'fixture.json');
  // Quick mode always builds its stores (a cached store would hide a build that no longer replays).
  if (!QUICK && process.env.BENCH_GATE_CACHE !== '0' && existsSync(meta)) {
    process.stdout.write(`store with ${receipts} receipts: cached in ${dir}\n`);
    return JSON.parse(readFileSync(meta, 'utf8')) as Fixture;
  }
  process.stdout.write(`building a store with ${receipts} receipts in ${dir} …\n`);
  const t = Date.now();
  const f = await buildFixture(dir, receipts);
  writeFileSync(`${meta}.tmp`, JSON.stringify(f));
  renameSync(`${meta}.tmp`, meta);
  process.stdout.write(`  built in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  return f;
}
