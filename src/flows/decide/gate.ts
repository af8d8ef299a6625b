// `governed gate --unit U --trust FILE --policy-digest D --subject COMMIT [--repo DIR] [--attest FILE]`
// (docs/decision.md#8-delivery-state-and-reason-codes, docs/commands.md#exit-codes; docs/gate.md#2-governed-gate). The deploy gate trusts only what the deploy side
// gives it, and exits 0 only for RELEASE_ELIGIBLE:
//   1. preflight, every independent check evaluated and the docs/commands.md#exit-codes precedence applied among the
//      failures: the three anchors present and well-formed (2); the deploy-side trust root readable,
//      valid (2) and not expired (5); the store (2/4); the pinned policy intact (4) and equal to the
//      expected digest (4); the unit known (7) with at least one receipt (7); the subject a commit
//      of the repository (2), resolved with hardened git (empty environment, explicit GIT_DIR,
//      replace objects off, `rev-parse --verify <id>^{commit}`), so refs/replace cannot swap content;
//   2. the unit's current state computed from the stored scope with the SUBJECT's manifest as the
//      workspace (docs/contract.md#the-states-a-receipt-is-judged-against, docs/contract.md#workspace-digest): what counts is what was reviewed on exactly this content;
//      A subject that tracks a path under the policy's `exclude` is refused (4);
//   3. the facts (indexed, only what a decision needs, proven to be the rows the unit's log entries
//      derive: docs/gate.md#5a-the-tables-must-be-what-the-log-says-decision_table_log_mismatch-4) and the pure rules (src/core/decision);
//   4. every record the decision relies on re-verified under the deploy-side trust root at its log
//      position, receipts bound to the pinned policy signed by its reviewer and runner keys, and
//      the rows checked against their signed bytes (./verify.ts);
//   5. the subject is the reviewed content: every proof receipt of a work stage bound the subject's
//      manifest digest; a decision resting on no work-stage review is refused (7); when the work
//      stages reviewed other content on the current scope and revision, the subject is refused (4);
//   6. with --attest, the decision signed as a SLSA VSA by the policy's gate credential;
//   7. with --export DIR, the deploy record of the decision, all or nothing (./export.ts); a record
//      asked for and not written is an error (never exit 0).
// Read-only: the store is never written (expired leases are not swept here; they still block).
// Lean: no zod, yaml or execa on this path for JSON inputs (bench/gate; test/gate-cold-imports.test.ts).
import { resolve } from 'node:path';
import { lstatSync } from 'node:fs';
import { DIGEST_RE } from '../../core/canonical.js';
import type { Decision, StateDigests } from '../../core/decision/index.js';
import { EXIT, fail, GovernedError, isGovernedError, type ExitCode } from '../../core/errors.js';
import type { Policy } from '../../core/policy.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { closeStore, openStoreReadOnly } from '../../store/open.js';
import type { Store } from '../../store/store.js';
import { beginCommitManifest, type CommitManifestJob } from '../../workspace/commit.js';
import { decideUnit } from './decide-unit.js';
import { authorityPayloadDigest, hasAnyReceipt, loadUnitFacts, planningReceipts, receiptEnvelope, reviewedWorkspaces } from './facts.js';
import { errorJson, GATE_SCHEMA_VERSION } from './gate-output.js';
import { readInputFile } from '../read-file.js';
import { PIN_DOCUMENT_MAX_BYTES } from '../../core/limits.js';
import { isJsonText, parseStructuredLazy } from '../../core/structured.js';
import { decodeUtf8 } from '../../core/utf8.js';
import { isoOfSeconds, loadTrustRoot } from '../../core/trust-root.js';
import { readPinnedPolicy, readPinnedTrustDigest } from './pins.js';
import { withReadSnapshot } from './snapshot.js';
import { currentDigests, planningDigestOf, readScope, readUnit, type UnitRow, type UnitScope } from './unit-state.js';
import { RecordVerifier, worstError, type VerifiedRecords } from './verify.js';
import { receiptCredentialKeys } from '../../core/verify-signatures.js';
import type { DeployRecord } from './export.js';
import { checkpointDueOn, newestStoredSize } from '../../store/checkpoints.js';
import { recordTlogFiles } from './record-tlog.js';

const UNIT_RE = UNIT_ID_RE;
const COMMIT_RE = GIT_OID_RE;
/** A trust root is a small document; anything larger is refused before parsing. */

export interface GateArgs {
  readonly home: string;
  readonly unit?: string | undefined;
  readonly trustFile?: string | undefined;
  readonly policyDigest?: string | undefined;
  readonly subject?: string | undefined;
  /** The repository holding the subject commit (default: the current directory). */
  readonly repo: string;
  readonly attest?: string | undefined;
  /** Where the gate attestor lives (./attest.ts `gateAttestorFiles`); each may be overridden. */
  readonly attestorsDir?: string | undefined;
  readonly attestor?: string | undefined;
  readonly attestorConfig?: string | undefined;
  /** `--export DIR`: the deploy record of this decision (./export.ts), loaded only when given. */
  readonly export?: string | undefined;
  /** governed's version (the VSA's verifier version). */
  readonly version: string;
  /** Runner clock, whole seconds. */
  readonly clock: () => number;
  /**
   * Separated mode (`gate --runner`, docs/runnerd.md "The deploy side"): instead of `home`, a private
   * copy of the daemon's store for this unit, removed when the gate is done. Everything after is
   * the same gate: the copy is judged under the deploy side's anchors like any store.
   */
  readonly storeCopy?: ((unit: string) => Promise<{ readonly home: string; readonly dispose: () => void }>) | undefined;
}

interface Known {
  unit: string | null;
  subjectCommit: string | null;
  manifestDigest: string | null;
  policyDigest: string | null;
  trustDigest: string | null;
  gateTrustDigest: string | null;
  current: StateDigests | null;
  decision: Decision | null;
  /** The pinned policy's preservation waiver, once the policy is loaded (docs/authority.md#human-authority-records: in every decision). */
  waiver: string | null;
  attestation: { path: string; payloadDigest: string } | null;
  /** The exact `--trust` bytes the gate judged under, and the deploy record being built (--export). */
  trustBytes: Buffer | null;
  record: DeployRecord | null;
}

/** The decision object with the `--export` field (docs/gate.md: null unless a record was written); defined once in src/core/command-output.ts. */
export type { GateResultJson } from '../../core/command-output.js';
import type { GateCamelJson, GateResultJson } from '../../core/command-output.js';
import { withSnakeTwins } from '../../core/json-style.js';
import { GIT_OID_RE, UNIT_ID_RE } from '../../core/ids.js';

/** Collect coded failures of independent checks; unknown exceptions are bugs and propagate. */
class Failures {
  readonly list: GovernedError[] = [];
  run<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      if (!isGovernedError(e)) throw e;
      this.list.push(e);
      return undefined;
    }
  }
  async runAsync<T>(fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (e) {
      if (!isGovernedError(e)) throw e;
      this.list.push(e);
      return undefined;
    }
  }
  throwWorst(): void {
    const worst = worstError(this.list);
    if (worst !== null) throw worst;
  }
}

/** The deploy side's trust root: strict JSON or YAML by name, closed schema, not expired at `nowIso`. */
export async function loadDeployTrust(file: string, nowIso: string): Promise<{ trust: TrustRoot; bytes: Buffer }> {
  const bytes = readInputFile(file, PIN_DOCUMENT_MAX_BYTES);
  const trust = loadTrustRoot(await parseStructuredLazy(decodeUtf8(bytes, 'trust'), file));
  if (!(nowIso < trust.expires)) fail('trust_root_expired', []);
  return { trust, bytes };
}

/**
 * The subject's manifest digest from git objects (docs/contract.md#workspace-digest, docs/decision.md#8-delivery-state-and-reason-codes): hardened git resolves
 * `<id>^{commit}` once (replace objects off) and the manifest is computed from that commit's tree,
 * in the pinned policy's scope. The tree walk was started by `evaluate` (./gate.ts) before the
 * store was opened; only its result, asked for here, can fail the gate.
 */
async function subjectManifest(job: CommitManifestJob, policy: Policy): Promise<string> {
  const m = await job.manifest({ productRoots: policy.doc.product_roots, exclude: policy.doc.exclude });
  // `exclude` names state and build outputs that never ship (the state directory, e.g. a committed
  // `.governed/governed.db`): they are outside every manifest, so no receipt ever covered them. A
  // subject that tracks one would ship unreviewed bytes (docs/gate.md#2-governed-gate step 2).
  const excluded = await job.trackedUnder(policy.doc.exclude);
  if (excluded !== null) fail('gate_subject_tracks_excluded', [`exclude[${excluded}]`]);
  return m.digest;
}

function preflightArgs(args: GateArgs, f: Failures, k: Known): void {
  const missing = (
    [
      ['--unit', args.unit],
      ['--trust', args.trustFile],
      ['--policy-digest', args.policyDigest],
      ['--subject', args.subject],
    ] as const
  )
    .filter(([, v]) => v === undefined || v === '')
    .map(([name]) => name);
  if (missing.length > 0) f.run(() => fail('gate_anchor_missing', missing));
  if (args.unit !== undefined && UNIT_RE.test(args.unit)) k.unit = args.unit;
  if (args.policyDigest !== undefined && args.policyDigest !== '' && !DIGEST_RE.test(args.policyDigest)) f.run(() => fail('gate_policy_digest_invalid', []));
  if (args.subject !== undefined && args.subject !== '') {
    if (COMMIT_RE.test(args.subject)) k.subjectCommit = args.subject;
    else f.run(() => fail('gate_subject_invalid', []));
  }
  if (args.attest !== undefined) {
    let exists = true;
    try {
      lstatSync(args.attest);
    } catch {
      exists = false;
    }
    if (exists) f.run(() => fail('gate_attest_output_exists', []));
  }
  // --export DIR: refused up front like --attest's file, never merged into or replaced (./export.ts).
  if (args.export !== undefined) {
    let exists = true;
    try {
      lstatSync(resolve(args.export));
    } catch {
      exists = false;
    }
    if (exists) f.run(() => fail('gate_export_output_exists', []));
  }
}

async function evaluate(args: GateArgs, now: number, k: Known): Promise<void> {
  const nowIso = isoOfSeconds(now);
  const f = new Failures();
  preflightArgs(args, f, k);
  // git starts first (a process start-up and the tree walk need no store): the walk overlaps the
  // store, the pinned policy and the trust root. Its outcome counts only where the manifest is asked
  // for (decideOnSnapshot), exactly as when git started there; otherwise it is cancelled.
  const job = k.subjectCommit !== null ? beginCommitManifest(resolve(args.repo), k.subjectCommit) : null;
  let store: Store | undefined;
  let copy: { readonly home: string; readonly dispose: () => void } | undefined;
  try {
    // Inside the try: whatever happens, git is stopped before the gate answers (a live child
    // would keep the process from exiting).
    let home: string | undefined = args.home;
    if (args.storeCopy !== undefined) {
      // No copy is asked for without a well-formed unit id (the protocol carries only those).
      const fetch = args.storeCopy;
      if (k.unit === null && args.unit !== undefined && args.unit !== '') f.run(() => fail('unit_unknown', []));
      copy = k.unit === null ? undefined : await f.runAsync(() => fetch(k.unit as string));
      home = copy?.home;
    }
    store = home === undefined ? undefined : f.run(() => openStoreReadOnly(home));
    if (store === undefined) {
      // Still judge the trust root: its failure may take precedence over the store's (docs/commands.md#exit-codes).
      if (args.trustFile) await f.runAsync(() => loadDeployTrust(args.trustFile as string, nowIso));
      f.throwWorst();
      return;
    }
    const open = store;
    await withReadSnapshot(open.db, () => decideOnSnapshot(args, open, job, now, nowIso, f, k));
  } finally {
    await job?.cancel();
    if (store !== undefined) closeStore(store);
    copy?.dispose();
  }
}

/** What the preflight established, every piece present (else it threw the worst failure). */
interface Preflight {
  readonly policy: Policy;
  readonly trust: TrustRoot;
  readonly unit: UnitRow;
  readonly scope: UnitScope;
  readonly verifier: RecordVerifier;
  readonly manifestDigest: string;
  readonly trustDigest: string;
}

/** The pinned policy, and whether it is the one the deploy side expects (`--policy-digest`). */
async function checkPinnedPolicy(args: GateArgs, db: Store['db'], home: string, f: Failures, k: Known): Promise<Policy | undefined> {
  const policy = await f.runAsync(() => readPinnedPolicy(db));
  if (policy !== undefined) {
    // Automatic checkpoints (docs/audit.md "Automatic checkpoints"): one due and not written (its
    // signing failed after the last append) holds the release until it is.
    const rule = policy.doc.tlog_checkpoints;
    if (rule !== undefined) f.run(() => checkpointDueOn(db, rule, newestStoredSize(home)) && fail('tlog_checkpoint_overdue', []));
    k.policyDigest = policy.digest;
    k.waiver = policy.doc.preservation === 'required' ? null : policy.doc.preservation.waived;
    if (args.policyDigest !== undefined && DIGEST_RE.test(args.policyDigest) && policy.digest !== args.policyDigest) {
      f.run(() => fail('gate_policy_digest_mismatch', ['policy']));
    }
  }
  return policy;
}

/**
 * Step 1, on the read snapshot: the pinned policy, the subject's manifest (from the git process
 * `evaluate` started), the deploy trust root, the unit with its evidence and scope; the planning
 * receipts' signatures are checked while git hashes the blobs. Every failure is collected and the
 * worst thrown (docs/commands.md#exit-codes precedence).
 */
async function preflight(args: GateArgs, db: Store['db'], home: string, job: CommitManifestJob | null, nowIso: string, f: Failures, k: Known): Promise<Preflight> {
  const policy = await checkPinnedPolicy(args, db, home, f, k);
  const manifest =
    policy !== undefined && job !== null && f.list.length === 0 ? f.runAsync(() => subjectManifest(job, policy)) : Promise.resolve(undefined);
  let trust: TrustRoot | undefined;
  let verifier: RecordVerifier | undefined;
  let unit: UnitRow | undefined;
  let scope: UnitScope | undefined;
  try {
    const deploy = args.trustFile ? await f.runAsync(() => loadDeployTrust(args.trustFile as string, nowIso)) : undefined;
    if (deploy !== undefined) {
      trust = deploy.trust;
      k.trustBytes = deploy.bytes;
      k.gateTrustDigest = trust.digest;
    }
    const pinnedTrust = f.run(() => readPinnedTrustDigest(db));
    if (pinnedTrust !== undefined) k.trustDigest = pinnedTrust;
    if (k.unit !== null) {
      unit = f.run(() => readUnit(db, k.unit as string));
      if (unit !== undefined && f.run(() => hasAnyReceipt(db, (unit as UnitRow).unit)) === false) f.run(() => fail('gate_no_evidence', [unit?.unit ?? '']));
    } else if (args.unit !== undefined && args.unit !== '') {
      f.run(() => fail('unit_unknown', []));
    }
    if (unit !== undefined && trust !== undefined && policy !== undefined && f.list.length === 0) {
      scope = await readScope(db, unit.unit);
      // Receipts bound to the pinned policy must be signed by its reviewer and runner keys in
      // those roles, whatever roles the deploy trust root gives (docs/gate.md#4-what-is-re-verified-and-against-what).
      verifier = new RecordVerifier(db, unit.unit, trust, { policyDigest: policy.digest, keys: receiptCredentialKeys(policy.doc.credentials) });
      // Planning receipts on the current planning state do not depend on the subject: check their
      // signatures now (results cached; only the ones the decision relies on can fail it).
      verifier.preverify(planningReceipts(db, unit.unit, planningDigestOf(unit, scope)));
    }
  } finally {
    const digest = await manifest;
    if (digest !== undefined) k.manifestDigest = digest;
  }
  f.throwWorst();
  if (policy === undefined || trust === undefined || unit === undefined || scope === undefined || verifier === undefined || k.manifestDigest === null || k.trustDigest === null) {
    fail('internal_error', ['gate_preflight']);
  }
  return { policy, trust, unit, scope, verifier, manifestDigest: k.manifestDigest, trustDigest: k.trustDigest };
}

/**
 * Step 5, the thing deployed is the thing reviewed (docs/decision.md#8-delivery-state-and-reason-codes): for RELEASE_ELIGIBLE every proof
 * receipt of a gating work stage bound the subject's manifest, and at least one exists; for
 * REVIEW_ONLY, work-stage reviews of other content on the current scope and revision name the
 * subject as not the reviewed content.
 */
function assertSubjectIsReviewed(db: Store['db'], p: Preflight, current: StateDigests, decision: Decision, verified: VerifiedRecords, subject: string): void {
  if (decision.state === 'RELEASE_ELIGIBLE') {
    const proof = decision.stages.filter((s) => s.gating && s.stage !== 'planning').flatMap((s) => s.proof);
    if (proof.length === 0) fail('gate_subject_unreviewed', [subject]);
    for (const id of proof) {
      if (verified.receipts.get(id)?.inputs.workspace_digest !== p.manifestDigest) fail('gate_subject_mismatch', [subject]);
    }
    return;
  }
  const reviewed = reviewedWorkspaces(db, p.unit.unit, {
    planningStateDigest: current.planningStateDigest,
    contractDigest: p.scope.contractDigest,
    workRevision: p.unit.workRevision,
  });
  if (reviewed.length > 0 && !reviewed.includes(p.manifestDigest)) fail('gate_subject_mismatch', [subject]);
}

/** Step 6, `--attest`: the decision signed as a VSA by the policy's gate credential (./attest.ts). */
async function attest(args: GateArgs & { attest: string }, store: Store, p: Preflight, current: StateDigests, decision: Decision, nowIso: string, k: Known): Promise<void> {
  const { attestDecision } = await import('./attest.js');
  k.attestation = await attestDecision({
    out: args.attest,
    home: args.home,
    attestorsDir: args.attestorsDir,
    attestorPath: args.attestor,
    attestorConfigPath: args.attestorConfig,
    policy: p.policy,
    trust: p.trust,
    atIso: nowIso,
    decision: {
      version: args.version,
      evaluatedAt: nowIso,
      unit: p.unit.unit,
      state: decision.state,
      reasons: decision.reasons,
      trustMode: decision.trustMode,
      policyDigest: decision.policyDigest,
      trustDigest: decision.trustDigest,
      gateTrustDigest: p.trust.digest,
      subject: { commit: k.subjectCommit as string, manifestDigest: p.manifestDigest },
      current,
      preservationWaiver: decision.preservationWaiver,
      receipts: decision.reliedOn.receipts,
      probes: decision.reliedOn.probes,
      authorities: decision.reliedOn.authorities.map((id) => ({ recordId: id, payloadDigest: authorityPayloadDigest(store.db, id) })),
    },
  });
}

/** Steps 1–7 on one read snapshot (./snapshot.ts). */
async function decideOnSnapshot(
  args: GateArgs,
  store: Store,
  job: CommitManifestJob | null,
  now: number,
  nowIso: string,
  f: Failures,
  k: Known,
): Promise<void> {
  const db = store.db;
  const p = await preflight(args, db, store.home, job, nowIso, f, k);

  // 2-3. The current state on the subject's content, the facts (proven to be the log's), the rules.
  const current = currentDigests(p.unit, p.scope, p.manifestDigest);
  k.current = current;
  const facts = loadUnitFacts(db, p.unit.unit, current);
  // Preservation on the subject commit (docs/preservation.md#delivery-state), only when a contract is
  // bound: the lean path loads none of it otherwise.
  const preservation =
    p.scope.preservation.preservation === undefined || k.subjectCommit === null
      ? undefined
      : await (await import('../preservation/fact.js')).preservationFactOf(db, {
          unit: p.unit.unit,
          baselineCommit: p.unit.baselineCommit,
          repo: resolve(args.repo),
          policy: p.policy,
          // One rule for every signed record the decision rests on: the deploy side's trust root.
          trustAt: () => p.trust,
          currentCommit: k.subjectCommit,
        });
  const decision = decideUnit({
    unit: p.unit.unit,
    now,
    policy: p.policy,
    trustDigest: p.trustDigest,
    current,
    facts,
    scope: p.scope,
    ...(preservation !== undefined ? { preservation } : {}),
  });

  // 4. Every relied-on record under the deploy-side trust root, rows against signed bytes.
  const verified = await p.verifier.verifyDecision(facts, decision);
  // 5. The thing deployed is the thing reviewed.
  assertSubjectIsReviewed(db, p, current, decision, verified, k.subjectCommit as string);
  k.decision = decision;

  // 7 (begun). --export: its private directory first (an unwritable place fails before anything is
  // signed), and the relied-on envelopes copied inside this read snapshot; written by `gateFlow`.
  if (args.export !== undefined) {
    const { DeployRecord } = await import('./export.js');
    k.record = DeployRecord.begin(args.export, { receiptEnvelope, isJsonText, withSnakeTwins, tlogFiles: (d, ids) => recordTlogFiles(store.home, d, ids) });
    k.record.addRecords(db, decision.reliedOn);
  }
  // 6. The signed decision.
  if (args.attest !== undefined) await attest({ ...args, attest: args.attest }, store, p, current, decision, nowIso, k);
}

/** Run the gate; never throws. Exit 0 only for RELEASE_ELIGIBLE with no error on the way. */
export async function gateFlow(args: GateArgs): Promise<GateResultJson> {
  const now = args.clock();
  const k: Known = {
    unit: null,
    subjectCommit: null,
    manifestDigest: null,
    policyDigest: null,
    trustDigest: null,
    gateTrustDigest: null,
    current: null,
    decision: null,
    waiver: null,
    attestation: null,
    trustBytes: null,
    record: null,
  };
  let error: GovernedError | null = null;
  try {
    await evaluate(args, now, k);
  } catch (e) {
    error = isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e });
    if (!isGovernedError(e) && process.env.GOVERNED_DEBUG === '1') process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
  }
  if (error === null && k.decision === null) error = new GovernedError('internal_error', { ids: ['gate_no_decision'] });
  // Fail closed: --export given and no record begun is a bug, never an ALLOW without a record.
  if (error === null && args.export !== undefined && k.record === null) error = new GovernedError('internal_error', { ids: ['gate_export_missing'] });
  if (error === null && k.record !== null) {
    // --export: the record of exactly the object printed, minus its own `export` field (that field
    // names the record's manifest, which hashes decision.json). A record asked for and not written
    // is an error: never exit 0 without it, and the attestation is withdrawn (./export.ts).
    const { export: _self, ...printed } = decisionObject(now, k, null);
    try {
      if (k.trustBytes === null) fail('internal_error', ['export_trust']);
      const ref = k.record.finish(printed, { file: args.trustFile as string, bytes: k.trustBytes });
      return withSnakeTwins({ ...decisionCamel(now, k, null), export: ref });
    } catch (e) {
      error = isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e });
      if (k.attestation !== null) (await import('./export.js')).withdrawAttestation(k.attestation.path);
    }
  }
  k.record?.abort();
  return decisionObject(now, k, error);
}

/** The decision object (docs/gate.md) with each camelCase field's snake_case twin (docs/commands.md#the-json-style). */
function decisionObject(now: number, k: Known, error: GovernedError | null): GateResultJson {
  return withSnakeTwins(decisionCamel(now, k, error));
}

/** The decision's camelCase fields; `export` is null here and set only once a record is written. */
function decisionCamel(now: number, k: Known, error: GovernedError | null): GateCamelJson {
  const d = error === null ? k.decision : null;
  const exit: ExitCode = error !== null ? error.exit : d?.state === 'RELEASE_ELIGIBLE' ? EXIT.ok : EXIT.review_only;
  return {
    ok: exit === EXIT.ok,
    schemaVersion: GATE_SCHEMA_VERSION,
    command: 'gate',
    decision: exit === EXIT.ok ? 'ALLOW' : 'DENY',
    exit,
    state: d?.state ?? null,
    unit: k.unit,
    trustMode: d?.trustMode ?? 'co-located',
    subject: { commit: k.subjectCommit, manifestDigest: k.manifestDigest },
    policyDigest: k.policyDigest,
    trustDigest: k.trustDigest,
    gateTrustDigest: k.gateTrustDigest,
    evaluatedAt: isoOfSeconds(now),
    reasons: d?.reasons.map((r) => ({ code: r.code, ids: [...r.ids] })) ?? [],
    preservationWaiver: d?.preservationWaiver ?? k.waiver,
    current: k.current,
    reliedOn: d === null ? null : { receipts: [...d.reliedOn.receipts], authorities: [...d.reliedOn.authorities], probes: [...d.reliedOn.probes] },
    attestation: error === null ? k.attestation : null,
    export: null,
    error: error === null ? null : errorJson(error),
  };
}
