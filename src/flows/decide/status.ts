// `governed status --unit U [--repo DIR]` (docs/commands.md#what-each-command-guarantees, docs/decision.md#the-rules-in-short; docs/gate.md#6-the-cold-gate-path "status"):
// per stage and slot the streak and what is missing, leases, vetoes, preservation, and the delivery
// state with every reason — the same rules and the same loader as `gate`, on the unit's current
// state: the stored scope and the LIVE workspace (docs/contract.md#workspace-digest, fully re-hashed), judged under the
// pinned policy and trust root. Every record the decision relies on is re-verified under the pinned
// trust root (a store edited behind governed is reported as an error, never as a state).
// Read-only: nothing is written; expired-but-unswept leases are shown as expired and still block.
import { resolve } from 'node:path';
import { digestOf } from '../../core/canonical.js';
import { fail, isGovernedError } from '../../core/errors.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { closeStore, openStore } from '../../store/open.js';
import type { Db } from '../../store/store.js';
import { computeWorkspaceManifest } from '../../workspace/manifest.js';
import { resolveBaseline } from '../../workspace/commit.js';
import { NO_PRESERVATION } from './directives.js';
import { decideUnit } from './decide-unit.js';
import { loadUnitFacts } from './facts.js';
import { parseStructuredLazy } from '../../core/structured.js';
import { decodeUtf8 } from '../../core/utf8.js';
import { isoOfSeconds, loadTrustRoot } from '../../core/trust-root.js';
import { readPinnedPolicy, readPinnedTrustBytes, trustRootsByPosition } from './pins.js';
import { withReadSnapshot } from './snapshot.js';
import { STATUS_SCHEMA_VERSION, type StatusJson } from './status-output.js';
import type { StatusCamelJson } from '../../core/command-output.js';
import { withSnakeTwins } from '../../core/json-style.js';
import { currentDigests, readScope, readUnit } from './unit-state.js';
import { verifyDecisionRecords } from './verify.js';
import { uncoveredChanges } from '../uncovered-changes.js';

export interface StatusArgs {
  readonly home: string;
  readonly unit: string;
  /** The repository top level whose working tree is the unit's workspace (default: cwd). */
  readonly repo: string;
  readonly clock: () => number;
}

/** The pinned trust root in force now (its digest is what counted receipts are bound to). */
async function pinnedTrustRoot(db: Db): Promise<TrustRoot> {
  const row = readPinnedTrustBytes(db);
  let value: unknown;
  try {
    value = await parseStructuredLazy(decodeUtf8(row.bytes, 'trust'), '');
  } catch (e) {
    if (isGovernedError(e)) fail('pin_integrity_failed', ['trust']);
    throw e;
  }
  if (digestOf(value) !== row.digest) fail('pin_integrity_failed', ['trust']);
  return loadTrustRoot(value);
}

/** The unit judged now (docs/gate.md#4-what-is-re-verified-and-against-what): pins, scope, the live workspace, facts, preservation; every relied-on record re-verified. */
async function judgeUnit(db: Db, args: StatusArgs, now: number) {
  const unit = readUnit(db, args.unit);
  const policy = await readPinnedPolicy(db);
  const trust = await pinnedTrustRoot(db);
  const scope = await readScope(db, unit.unit);
  // A baseline git no longer has (pruned, or another repository) is refused as issuance refuses
  // it (workspace_revision_unresolved): no challenge could be issued, and the state would
  // otherwise read REVIEW_ONLY with no reason that says why.
  await resolveBaseline(resolve(args.repo), unit.baselineCommit);
  const workspace = await computeWorkspaceManifest(resolve(args.repo), { productRoots: policy.doc.product_roots, exclude: policy.doc.exclude });
  const current = currentDigests(unit, scope, workspace.digest);
  const uncovered = await uncoveredChanges(resolve(args.repo), unit.baselineCommit, scope.contract, { productRoots: policy.doc.product_roots, exclude: policy.doc.exclude }, workspace.entries);
  const facts = loadUnitFacts(db, unit.unit, current);
  // Each record judged under the trust root in force at its log position (docs/state.md#the-store),
  // probe receipts included.
  const trustAt = await trustRootsByPosition(db);
  // Preservation (docs/preservation.md#delivery-state): judged only when a contract is bound; the
  // check's modules load only then.
  const preservation =
    scope.preservation.preservation === undefined
      ? NO_PRESERVATION
      : await (await import('../preservation/fact.js')).preservationFactOf(db, { unit: unit.unit, baselineCommit: unit.baselineCommit, repo: resolve(args.repo), policy, trustAt });
  const decision = decideUnit({ unit: unit.unit, now, policy, trustDigest: trust.digest, current, facts, scope, preservation });
  await verifyDecisionRecords(db, unit.unit, facts, decision, trustAt);
  const total = db.prepare('SELECT COUNT(*) FROM receipts WHERE unit = ?').pluck().get(unit.unit) as number;
  return { unit, policy, scope, workspace, current, uncovered, facts, preservation, decision, total };
}

/** The status object (docs/gate.md#status-object-schemaversion-1) from the judged unit; no I/O. */
function statusObjectOf(judged: Awaited<ReturnType<typeof judgeUnit>>, now: number): StatusCamelJson {
  const { unit, policy, scope, workspace, current, uncovered, facts, preservation, decision, total } = judged;
  return {
    ok: true,
    schemaVersion: STATUS_SCHEMA_VERSION,
    command: 'status',
    unit: unit.unit,
    state: decision.state,
    reasons: decision.reasons.map((r) => ({ code: r.code, ids: [...r.ids] })),
    evaluatedAt: isoOfSeconds(now),
    trustMode: decision.trustMode,
    policyDigest: decision.policyDigest,
    trustDigest: decision.trustDigest,
    current: {
      ...current,
      workspaceDigest: workspace.digest,
      workRevision: unit.workRevision,
      scopeVersion: scope.version,
      scopeEpoch: unit.scopeEpoch,
    },
    planningSealed: decision.planningSealed,
    uncoveredChanges: uncovered,
    preservation: {
      required: policy.doc.preservation === 'required',
      waiver: decision.preservationWaiver,
      contract: preservation.contract,
      incidentHistory: preservation.incidentHistory,
      unsatisfiedSurfaces: [...preservation.unsatisfiedSurfaces],
    },
    stages: decision.stages.map((s) => ({
      stage: s.stage,
      required: s.required,
      gating: s.gating,
      floor: s.floor,
      rounds: s.rounds,
      streak: s.streak,
      missingRounds: Math.max(0, s.floor - s.streak),
      complete: s.complete,
      slots: s.slots.map((x) => ({ slot: x.slot, current: x.current, counted: x.counted, missing: x.missing, blockedBy: [...x.blockedBy] })),
      proof: [...s.proof],
    })),
    vetoes: decision.vetoes.map((v) => ({
      receipt: v.receiptId,
      stage: v.stage,
      slot: v.slot,
      // The standing findings of a receipt verified under its predicate's closed enums (src/core/receipt-predicate.ts).
      findings: v.findings.map((x) => ({ ...x, refs: [...x.refs] })) as StatusJson['vetoes'][number]['findings'],
    })),
    leases: facts.openLeases.map((l) => ({
      lease: l.leaseId,
      writerSession: l.session,
      acquiredAt: isoOfSeconds(l.acquiredAt),
      expiresAt: isoOfSeconds(l.expiresAt),
      expired: l.expiresAt <= now,
    })),
    abortedRuns: facts.abortedRuns.map((a) => ({ run: a.runId, stage: a.stage, slot: a.slot })),
    receipts: { total, loaded: facts.receipts.length },
    reliedOn: { receipts: [...decision.reliedOn.receipts], authorities: [...decision.reliedOn.authorities], probes: [...decision.reliedOn.probes] },
  };
}

export async function statusFlow(args: StatusArgs): Promise<StatusJson> {
  const now = args.clock();
  const store = openStore(args.home);
  try {
    const db = store.db;
    // Each camelCase field with its snake_case twin (docs/commands.md#the-json-style).
    return withSnakeTwins(await withReadSnapshot(db, async (): Promise<StatusCamelJson> => statusObjectOf(await judgeUnit(db, args, now), now)));
  } finally {
    closeStore(store);
  }
}
