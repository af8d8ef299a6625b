// Scope versions of units (docs/contract.md#scope-history): the store side of `unit create` (version 1) and `unit bind`
// (the next version). Validation of the contract, its diff and its authority belongs to the flow;
// this module records what the flow decided, in the caller's transaction, and reads it back.
import { canonicalJson, sha256Digest } from '../core/canonical.js';
import { fail } from '../core/errors.js';
import { sortSourceDigests, type SourceDigest } from '../core/bundle/sources-digest.js';
import { sortedUnique } from '../core/contract/ids.js';
import type { Tx } from './log.js';
import { scopeDiffSchema } from './reducers/scope.js';
import { dbOf, type Db, type Store } from './store.js';
import { getUnit } from './units.js';

export interface ScopeDiffRecord {
  readonly additions: readonly string[];
  readonly narrowing: readonly string[];
  readonly progress: readonly string[];
}

export interface ScopeVersion {
  readonly unit: string;
  readonly version: number;
  readonly scopeEpoch: number;
  /** work_revision right after this bind (later lease releases increment the unit's counter further). */
  readonly workRevision: number;
  readonly scopeChanged: boolean;
  /** The exact contract file bytes bound. */
  readonly contractBytes: Buffer;
  /** `sha256:` of `contractBytes`. */
  readonly contractFileDigest: string;
  /** docs/threat-model.md#rules-that-hold-everywhere digest of the parsed contract (`contractDigest`). */
  readonly contractDigest: string;
  readonly sources: readonly SourceDigest[];
  readonly sourcesDigest: string;
  readonly diff: ScopeDiffRecord;
  readonly authorities: readonly string[];
  readonly boundAt: number;
}

export interface BindScopeArgs {
  readonly unit: string;
  readonly contractBytes: Uint8Array;
  readonly contractDigest: string;
  readonly sources: readonly SourceDigest[];
  readonly sourcesDigest: string;
  /** null for version 1 (the contract as created). */
  readonly diff: ScopeDiffRecord | null;
  /** Whether anything but progress changed (docs/contract.md#scope-history "increments scope_epoch when the scope changed"). */
  readonly scopeChanged: boolean;
  /** Authority record ids consumed by this bind, in this same transaction. */
  readonly authorities: readonly string[];
}

/**
 * Inside a mutate: append the unit's next scope version. Version 1 must be bound in the transaction
 * that created the unit (no diff); later versions carry their diff. Returns the new version.
 */
export function bindScopeIn(tx: Tx, args: BindScopeArgs): ScopeVersion {
  const unit = getUnit(tx.db, args.unit);
  const latest = latestVersionNumber(tx.db, args.unit);
  const version = latest + 1;
  if ((version === 1) !== (args.diff === null)) fail('internal_error', ['scope_diff']);
  const scopeChanged = version === 1 ? true : args.scopeChanged;
  const diff = args.diff ?? { additions: [], narrowing: [], progress: [] };
  const parsedDiff = scopeDiffSchema.safeParse({
    additions: sortedUnique(diff.additions),
    narrowing: sortedUnique(diff.narrowing),
    progress: sortedUnique(diff.progress),
  });
  if (!parsedDiff.success) fail('internal_error', ['scope_diff']);
  const bytes = Buffer.from(args.contractBytes);
  tx.append('scope_bind', args.unit, {
    unit: args.unit,
    version,
    scope_epoch: unit.scopeEpoch + (scopeChanged ? 1 : 0),
    work_revision: unit.workRevision + (version > 1 ? 1 : 0),
    scope_changed: scopeChanged,
    contract_b64: bytes.toString('base64'),
    contract_file_digest: sha256Digest(bytes),
    contract_digest: args.contractDigest,
    sources: sortSourceDigests(args.sources).map((s) => ({ id: s.id, path: s.path, digest: s.digest })),
    sources_digest: args.sourcesDigest,
    diff: parsedDiff.data,
    authorities: sortedUnique(args.authorities),
    bound_at: tx.now,
  });
  return getScopeVersion(tx.db, args.unit, version);
}

function latestVersionNumber(db: Db, unit: string): number {
  const row = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM scope_versions WHERE unit = ?').get(unit) as { v: number };
  return row.v;
}

interface ScopeRow {
  unit: string;
  version: number;
  scope_epoch: number;
  work_revision: number;
  scope_changed: number;
  contract_bytes: Buffer;
  contract_file_digest: string;
  contract_digest: string;
  sources_digest: string;
  diff: string;
  authorities: string;
  bound_at: number;
}

function parseJsonColumn(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fail('scope_integrity_failed', [what]);
  }
}

function toScopeVersion(db: Db, r: ScopeRow): ScopeVersion {
  const sources = (
    db.prepare('SELECT source, path, digest FROM scope_sources WHERE unit = ? AND version = ? ORDER BY source').all(r.unit, r.version) as {
      source: string;
      path: string;
      digest: string;
    }[]
  ).map((s) => ({ id: s.source, path: s.path, digest: s.digest }));
  const diff = scopeDiffSchema.safeParse(parseJsonColumn(r.diff, `scope:${r.version}`));
  const authorities = parseJsonColumn(r.authorities, `scope:${r.version}`);
  if (!diff.success || !Array.isArray(authorities) || !authorities.every((a) => typeof a === 'string')) {
    fail('scope_integrity_failed', [`scope:${r.version}`]);
  }
  // The row's JSON columns are canonical by construction; anything else was edited behind governed.
  if (canonicalJson(diff.data) !== r.diff || canonicalJson(authorities) !== r.authorities) fail('scope_integrity_failed', [`scope:${r.version}`]);
  return {
    unit: r.unit,
    version: r.version,
    scopeEpoch: r.scope_epoch,
    workRevision: r.work_revision,
    scopeChanged: r.scope_changed === 1,
    contractBytes: r.contract_bytes,
    contractFileDigest: r.contract_file_digest,
    contractDigest: r.contract_digest,
    sources: sortSourceDigests(sources),
    sourcesDigest: r.sources_digest,
    diff: diff.data,
    authorities: authorities as string[],
    boundAt: r.bound_at,
  };
}

/**
 * A scope version of the unit (the latest when `version` is omitted). A unit without one cannot
 * come from governed (`unit create` binds version 1 in the same transaction): `scope_integrity_failed`.
 */
export function getScopeVersion(x: Store | Db, unit: string, version?: number): ScopeVersion {
  const db = dbOf(x);
  getUnit(db, unit);
  const row = (
    version === undefined
      ? db.prepare('SELECT * FROM scope_versions WHERE unit = ? ORDER BY version DESC LIMIT 1').get(unit)
      : db.prepare('SELECT * FROM scope_versions WHERE unit = ? AND version = ?').get(unit, version)
  ) as ScopeRow | undefined;
  if (row === undefined) fail('scope_integrity_failed', [unit]);
  const v = toScopeVersion(db, row);
  // The stored bytes must still be the bytes whose digest was bound.
  if (sha256Digest(v.contractBytes) !== v.contractFileDigest) fail('scope_integrity_failed', [`scope:${v.version}`]);
  return v;
}

/** Every scope version of the unit, oldest first (the bundle's `scope_history`, docs/bundle.md#views). */
export function listScopeVersions(x: Store | Db, unit: string): ScopeVersion[] {
  const db = dbOf(x);
  getUnit(db, unit);
  const rows = db.prepare('SELECT * FROM scope_versions WHERE unit = ? ORDER BY version').all(unit) as ScopeRow[];
  return rows.map((r) => toScopeVersion(db, r));
}
