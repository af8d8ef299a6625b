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
//   3. the facts (indexed, only what a decision needs) and the pure rules (src/core/decision);
//   4. every record the decision relies on re-verified under the deploy-side trust root at its log
//      position, and the rows checked against their signed bytes (./verify.ts);
//   5. the subject is the reviewed content: every proof receipt of a work stage bound the subject's
//      manifest digest; a decision resting on no work-stage review is refused (7); when the work
//      stages reviewed other content on the current scope and revision, the subject is refused (4);
//   6. with --attest, the decision signed as a SLSA VSA by the policy's gate credential;
//   7. with --export DIR, the deploy record of the decision, all or nothing (./export.ts); a record
//      asked for and not written is an error (never exit 0).
// Read-only: the store is never written (expired leases are not swept here; they still block).
// Lean: no zod, yaml or execa on this path for JSON inputs (bench/gate; test/gate-lean.test.ts).
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
import { errorJson, GATE_SCHEMA_VERSION, type GateDecisionJson } from './gate-output.js';
import { readInputFile } from '../read-file.js';
import { decodeUtf8, isJsonText, parseStructuredLean } from '../../core/lean/structured.js';
import { isoOfSeconds, loadTrustRootLean } from '../../core/lean/trust-root.js';
import { readPinnedPolicy, readPinnedTrustDigest } from './pins.js';
import { withReadSnapshot } from './snapshot.js';
import { currentDigests, planningDigestOf, readScope, readUnit, type UnitRow, type UnitScope } from './unit-state.js';
import { RecordVerifier, worstError } from './verify.js';
import type { DeployRecord, DeployRecordRef } from './export.js';

const UNIT_RE = /^UNIT-[0-9a-f]{32}$/;
const COMMIT_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** A trust root is a small document; anything larger is refused before parsing. */
const MAX_TRUST_BYTES = 1024 * 1024;

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

/** The decision object with the `--export` field (docs/gate.md: null unless a record was written). */
export type GateResultJson = GateDecisionJson & { readonly export: DeployRecordRef | null };

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
  const bytes = readInputFile(file, MAX_TRUST_BYTES);
  const trust = loadTrustRootLean(await parseStructuredLean(decodeUtf8(bytes, 'trust'), file));
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
  try {
    // Inside the try: whatever happens, git is stopped before the gate answers (a live child
    // would keep the process from exiting).
    store = f.run(() => openStoreReadOnly(args.home));
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
  }
}

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
  const policy = await f.runAsync(() => readPinnedPolicy(db));
  if (policy !== undefined) {
    k.policyDigest = policy.digest;
    k.waiver = policy.doc.preservation === 'required' ? null : policy.doc.preservation.waived;
    if (args.policyDigest !== undefined && DIGEST_RE.test(args.policyDigest) && policy.digest !== args.policyDigest) {
      f.run(() => fail('gate_policy_digest_mismatch', ['policy']));
    }
  }
  // The subject's manifest comes from the git process started in `evaluate`: ask for it now, and do
  // the rest of the preflight (trust root, unit, scope, the planning receipts' signatures) while it
  // hashes the blobs.
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
      if (unit !== undefined && !hasAnyReceipt(db, unit.unit)) f.run(() => fail('gate_no_evidence', [unit?.unit ?? '']));
    } else if (args.unit !== undefined && args.unit !== '') {
      f.run(() => fail('unit_unknown', []));
    }
    if (unit !== undefined && trust !== undefined && f.list.length === 0) {
      scope = await readScope(db, unit.unit);
      verifier = new RecordVerifier(db, unit.unit, trust);
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

  // 2-3. The current state on the subject's content, the facts, the rules.
  const current = currentDigests(unit, scope, k.manifestDigest);
  k.current = current;
  const facts = loadUnitFacts(db, unit.unit, current);
  const decision = decideUnit({ unit: unit.unit, now, policy, trustDigest: k.trustDigest, current, facts, scope });

  // 4. Every relied-on record under the deploy-side trust root, rows against signed bytes.
  const verified = await verifier.verifyDecision(facts, decision);

  // 5. The thing deployed is the thing reviewed (docs/decision.md#8-delivery-state-and-reason-codes).
  if (decision.state === 'RELEASE_ELIGIBLE') {
    const proof = decision.stages.filter((s) => s.gating && s.stage !== 'planning').flatMap((s) => s.proof);
    if (proof.length === 0) fail('gate_subject_unreviewed', [k.subjectCommit as string]);
    for (const id of proof) {
      if (verified.receipts.get(id)?.inputs.workspace_digest !== k.manifestDigest) fail('gate_subject_mismatch', [k.subjectCommit as string]);
    }
  } else {
    const reviewed = reviewedWorkspaces(db, unit.unit, {
      planningStateDigest: current.planningStateDigest,
      contractDigest: scope.contractDigest,
      workRevision: unit.workRevision,
    });
    if (reviewed.length > 0 && !reviewed.includes(k.manifestDigest)) fail('gate_subject_mismatch', [k.subjectCommit as string]);
  }
  k.decision = decision;

  // --export: its private directory first (an unwritable place fails before anything is signed), and
  // the relied-on envelopes copied inside this read snapshot; written by `gateFlow` (./export.ts).
  if (args.export !== undefined) {
    const { DeployRecord } = await import('./export.js');
    k.record = DeployRecord.begin(args.export, { receiptEnvelope, isJsonText });
    k.record.addRecords(db, decision.reliedOn);
  }

  // 6. The signed decision.
  if (args.attest !== undefined) {
    const { attestDecision } = await import('./attest.js');
    k.attestation = await attestDecision({
      out: args.attest,
      home: store.home,
      attestorsDir: args.attestorsDir,
      attestorPath: args.attestor,
      attestorConfigPath: args.attestorConfig,
      policy,
      trust,
      atIso: nowIso,
      decision: {
        version: args.version,
        evaluatedAt: nowIso,
        unit: unit.unit,
        state: decision.state,
        reasons: decision.reasons,
        trustMode: decision.trustMode,
        policyDigest: decision.policyDigest,
        trustDigest: decision.trustDigest,
        gateTrustDigest: trust.digest,
        subject: { commit: k.subjectCommit as string, manifestDigest: k.manifestDigest },
        current,
        preservationWaiver: decision.preservationWaiver,
        receipts: decision.reliedOn.receipts,
        authorities: decision.reliedOn.authorities.map((id) => ({ recordId: id, payloadDigest: authorityPayloadDigest(db, id) })),
      },
    });
  }
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
      return { ...decisionObject(now, k, null), export: ref };
    } catch (e) {
      error = isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e });
      if (k.attestation !== null) (await import('./export.js')).withdrawAttestation(k.attestation.path);
    }
  }
  k.record?.abort();
  return decisionObject(now, k, error);
}

/** The decision object (docs/gate.md); `export` is null here and set only once a record is written. */
function decisionObject(now: number, k: Known, error: GovernedError | null): GateResultJson {
  const d = error === null ? k.decision : null;
  const exit: ExitCode = error !== null ? error.exit : d?.state === 'RELEASE_ELIGIBLE' ? EXIT.ok : EXIT.review_only;
  return {
    schemaVersion: GATE_SCHEMA_VERSION,
    command: 'gate',
    decision: exit === EXIT.ok ? 'ALLOW' : 'DENY',
    exit,
    state: d?.state ?? null,
    unit: k.unit,
    trustMode: 'co-located',
    subject: { commit: k.subjectCommit, manifestDigest: k.manifestDigest },
    policyDigest: k.policyDigest,
    trustDigest: k.trustDigest,
    gateTrustDigest: k.gateTrustDigest,
    evaluatedAt: isoOfSeconds(now),
    reasons: d?.reasons.map((r) => ({ code: r.code, ids: [...r.ids] })) ?? [],
    preservationWaiver: d?.preservationWaiver ?? k.waiver,
    current: k.current,
    reliedOn: d === null ? null : { receipts: [...d.reliedOn.receipts], authorities: [...d.reliedOn.authorities] },
    attestation: error === null ? k.attestation : null,
    export: null,
    error: error === null ? null : errorJson(error),
  };
}
