// The unit's current state (docs/contract.md#the-states-a-receipt-is-judged-against), computed from the store alone plus one workspace digest:
// the latest scope version (exact contract bytes, source digests), the baseline, work_revision.
// `status` passes the digest of the live workspace (docs/contract.md#workspace-digest), `gate` the digest of the subject
// commit's manifest (docs/decision.md#8-delivery-state-and-reason-codes: the state judged is the state of what is about to ship), so the
// receipts that count for the gate are exactly those reviewed on the subject's content.
//
// Read with plain indexed queries on the connection (no store module that loads zod: lean gate path).
import type { Contract } from '../../core/contract/schema.js';
import { contentDigest, planningStateDigest, workStateDigest } from '../../core/contract/digests.js';
import { sourcesDigest } from '../../core/bundle/sources-digest.js';
import { fail } from '../../core/errors.js';
import type { StateDigests } from '../../core/decision/index.js';
import type { Db } from '../../store/store.js';
import { loadStoredContract } from '../../core/contract/stored.js';
import { preservationPlanningInput, type PreservationPlanningInput } from '../../store/preservation-state.js';
import { UNIT_ID_RE } from '../../core/ids.js';

const UNIT_RE = UNIT_ID_RE;

export interface UnitRow {
  readonly unit: string;
  readonly baselineCommit: string;
  readonly baselineTree: string;
  readonly workRevision: number;
  readonly scopeEpoch: number;
}

/** The unit, or `unit_unknown` (exit 7). A malformed id is never looked up nor echoed. */
export function readUnit(db: Db, unit: string): UnitRow {
  if (typeof unit !== 'string' || !UNIT_RE.test(unit)) fail('unit_unknown', []);
  const row = db.prepare('SELECT id, baseline_commit, baseline_tree, work_revision, scope_epoch FROM units WHERE id = ?').get(unit) as
    | { id: string; baseline_commit: string; baseline_tree: string; work_revision: number; scope_epoch: number }
    | undefined;
  if (row === undefined) fail('unit_unknown', [unit]);
  return { unit: row.id, baselineCommit: row.baseline_commit, baselineTree: row.baseline_tree, workRevision: row.work_revision, scopeEpoch: row.scope_epoch };
}

export interface UnitScope {
  readonly version: number;
  readonly contract: Contract;
  readonly contractDigest: string;
  readonly sourceDigests: ReadonlyMap<string, string>;
  /** The preservation contract and incident history digests the planning state binds (when set). */
  readonly preservation: PreservationPlanningInput;
}

/** The latest scope version, proved to be the bytes and sources that were bound. */
export async function readScope(db: Db, unit: string): Promise<UnitScope> {
  const row = db
    .prepare(
      'SELECT version, contract_bytes, contract_file_digest, contract_digest, sources_digest FROM scope_versions WHERE unit = ? ORDER BY version DESC LIMIT 1',
    )
    .get(unit) as { version: number; contract_bytes: Buffer; contract_file_digest: string; contract_digest: string; sources_digest: string } | undefined;
  // `unit create` binds version 1 in the transaction that creates the unit (docs/contract.md#scope-history).
  if (row === undefined) fail('scope_integrity_failed', [unit]);
  const contract = await loadStoredContract({
    bytes: row.contract_bytes,
    fileDigest: row.contract_file_digest,
    contractDigest: row.contract_digest,
    version: row.version,
  });
  const sources = db.prepare('SELECT source, path, digest FROM scope_sources WHERE unit = ? AND version = ?').all(unit, row.version) as {
    source: string;
    path: string;
    digest: string;
  }[];
  const where = `scope:${row.version}`;
  let bound: string;
  try {
    bound = sourcesDigest(sources.map((s) => ({ id: s.source, path: s.path, digest: s.digest })));
  } catch {
    return fail('scope_integrity_failed', [where]);
  }
  if (bound !== row.sources_digest) fail('scope_integrity_failed', [where]);
  return {
    version: row.version,
    contract,
    contractDigest: row.contract_digest,
    sourceDigests: new Map(sources.map((s) => [s.source, s.digest])),
    preservation: preservationPlanningInput(db, unit),
  };
}

/** The planning-state digest (docs/contract.md#the-states-a-receipt-is-judged-against): from the store alone (no workspace needed). */
export function planningDigestOf(unit: UnitRow, scope: UnitScope): string {
  try {
    return planningStateDigest({
      sourceDigests: scope.sourceDigests,
      contract: scope.contract,
      baseline: { commit: unit.baselineCommit, tree: unit.baselineTree },
      ...scope.preservation,
    });
  } catch {
    return fail('scope_integrity_failed', [`scope:${scope.version}`]);
  }
}

/** The three digests of docs/contract.md#the-states-a-receipt-is-judged-against for `workspaceDigest`; a contract that does not fit is tampering. */
export function currentDigests(unit: UnitRow, scope: UnitScope, workspaceDigest: string): StateDigests {
  const planning = planningDigestOf(unit, scope);
  try {
    const content = contentDigest({ planningStateDigest: planning, contract: scope.contract, workspaceDigest });
    return { planningStateDigest: planning, contentDigest: content, workStateDigest: workStateDigest({ contentDigest: content, workRevision: unit.workRevision }) };
  } catch {
    return fail('scope_integrity_failed', [`scope:${scope.version}`]);
  }
}
