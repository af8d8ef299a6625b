// Reducer of `scope_bind` (docs/contract.md#the-states-a-receipt-is-judged-against, docs/contract.md#scope-history): bind one scope version of a unit. `unit create` appends
// it as version 1 right after `unit_create` in the same transaction; `unit bind` appends the next
// version. The payload carries everything the tables hold (exact contract bytes, digests, the diff
// and the consumed authority ids), so replay rebuilds them without reading any file.
//
// Counters (docs/contract.md#the-states-a-receipt-is-judged-against, docs/contract.md#scope-history):
// - version 1 takes scope_epoch 0 → 1 and leaves work_revision as created (0);
// - every later bind increments work_revision, and scope_epoch when `scope_changed`.
// The reducer re-derives both from the unit's current row and refuses a payload that disagrees, so
// a forged entry cannot replay into a different state. It also recomputes what the live flows derive
// from the bytes — contract digest, sources digest, diff and scope_changed (`assertBindDerived`) —
// and re-asserts the authority behind a narrowing (`assertBindAuthority`).
import * as z from 'zod/mini';
import { int, str } from '../../core/schema-primitives.js';
import { CONTRACT_ID_RE, isRelationId, sortedUnique } from '../../core/contract/ids.js';
import { AUTHORITY_RECORD_ID_RE } from '../../core/contract/ids.js';
import { canonicalJson, sha256Digest } from '../../core/canonical.js';
import { isGovernedError } from '../../core/errors.js';
import { decodeUtf8 } from '../../core/utf8.js';
import { diffScope, requireAuthorityForNarrowing } from '../../core/contract/scope-diff.js';
import { AUTHORITY_OPERATIONS, type Contract } from '../../core/contract/schema.js';
import { parseContractText } from '../../core/contract/text.js';
import { contractDigest } from '../../core/contract/digests.js';
import { sourcesDigest } from '../../core/bundle/sources-digest.js';
import type { Db } from '../store.js';
import { digest, seconds, unitId } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';
import { CONTRACT_MAX_SOURCES, REPO_PATH_MAX_CHARS } from '../../core/limits.js';

const contractId = str({ re: CONTRACT_ID_RE });
const idOrRelation = z.string().check(z.refine((s) => CONTRACT_ID_RE.test(s) || isRelationId(s), 'id'));
const sortedUniqueStrings = <T extends z.ZodMiniType<string>>(item: T) =>
  z
    .array(item)
    .check(z.refine((xs) => xs.every((x, i) => i === 0 || Buffer.compare(Buffer.from(xs[i - 1] as string), Buffer.from(x as string)) < 0), 'sorted unique'));

export const scopeDiffSchema = z.strictObject({
  additions: sortedUniqueStrings(idOrRelation),
  narrowing: sortedUniqueStrings(idOrRelation),
  progress: sortedUniqueStrings(contractId),
});

export const scopeBindPayload = z
  .strictObject({
    unit: unitId,
    version: int(1),
    scope_epoch: int(1),
    work_revision: int(0),
    scope_changed: z.boolean(),
    contract_b64: z.base64().check(z.minLength(1)),
    contract_file_digest: digest,
    contract_digest: digest,
    sources: z
      .array(z.strictObject({ id: contractId, path: str({ min: 1, max: REPO_PATH_MAX_CHARS }), digest }))
      .check(
        z.maxLength(CONTRACT_MAX_SOURCES),
        z.refine((xs) => xs.every((x, i) => i === 0 || Buffer.compare(Buffer.from((xs[i - 1] as { id: string }).id), Buffer.from(x.id)) < 0), 'sorted unique'),
      ),
    sources_digest: digest,
    diff: scopeDiffSchema,
    authorities: sortedUniqueStrings(str({ re: AUTHORITY_RECORD_ID_RE })),
    bound_at: seconds,
  })
  // Version 1 is the contract as created: no diff, no authority, scope changed from nothing.
  .check(
    z.refine(
      (p) =>
        p.version > 1 ||
        (p.scope_changed && p.diff.additions.length === 0 && p.diff.narrowing.length === 0 && p.diff.progress.length === 0),
      'first version',
    ),
  );

export type ScopeBindPayload = z.infer<typeof scopeBindPayload>;

/** The operations a contract can cite, i.e. the scope-changing ones (docs/contract.md#scope-history, docs/authority.md#human-authority-records). */
const SCOPE_OPERATIONS: ReadonlySet<string> = new Set(AUTHORITY_OPERATIONS);

/**
 * What the live bind (flows/unit-bind.ts) guarantees about the authority of a bind, re-asserted on
 * replay (docs/contract.md#scope-history: narrowing needs signed authority; docs/authority.md#human-authority-records: a record is consumed once, for one unit):
 * every cited record was consumed for this unit by a scope operation in the bind's own transaction
 * (same log time, an earlier entry) and cited by no earlier version; the records name disjoint IDs
 * whose union is exactly the narrowing; no record ⇒ no narrowing. Without this a forged entry could
 * record a narrowing with no authority behind it, or reuse one consumed for another bind.
 */
function assertBindAuthority(db: Db, p: ScopeBindPayload): void {
  const where = `${p.unit}:scope:${p.version}`;
  const union: string[] = [];
  const consumed = db.prepare(
    `SELECT r.ids FROM authority_records r JOIN authority_consumptions c ON c.record = r.id
     WHERE r.id = ? AND c.unit = ? AND c.consumed_at = ?`,
  );
  const operation = db.prepare('SELECT operation FROM authority_consumptions WHERE record = ?').pluck();
  const citedBefore = db.prepare(
    'SELECT 1 FROM scope_versions s, json_each(s.authorities) j WHERE s.unit = ? AND j.value = ? LIMIT 1',
  );
  for (const record of p.authorities) {
    const row = consumed.get(record, p.unit, p.bound_at) as { ids: string } | undefined;
    if (row === undefined || !SCOPE_OPERATIONS.has(operation.get(record) as string)) expectChanges(0, 1, where);
    if (citedBefore.get(p.unit, record) !== undefined) expectChanges(0, 1, where);
    union.push(...(JSON.parse((row as { ids: string }).ids) as string[]));
  }
  if (new Set(union).size !== union.length) expectChanges(0, 1, where);
  try {
    requireAuthorityForNarrowing({ ...p.diff, scopeChanged: p.scope_changed }, p.authorities.length === 0 ? null : union);
  } catch (e) {
    if (isGovernedError(e)) expectChanges(0, 1, where);
    throw e;
  }
}

/**
 * The contract the recorded bytes hold, parsed exactly as the live path parses stored bytes
 * (flows/unit-contract.ts `parseContractBytes`: strict UTF-8, format detected from the content), or
 * null when they hold none: `unit create` / `unit bind` only ever bind bytes that parsed.
 */
function contractOf(bytes: Buffer): Contract | null {
  // Two entries, keyed by the exact bytes: on replay the contract bound as version N is parsed
  // again as the "previous" of version N+1. A function of the bytes alone: the reducer stays pure.
  const hit = recentContracts.find((c) => c.bytes.equals(bytes));
  if (hit !== undefined) return hit.contract;
  let contract: Contract | null;
  try {
    contract = parseContractText(decodeUtf8(bytes, 'contract'), '');
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    contract = null;
  }
  recentContracts.unshift({ bytes: Buffer.from(bytes), contract });
  recentContracts.length = Math.min(recentContracts.length, 2);
  return contract;
}
const recentContracts: { readonly bytes: Buffer; readonly contract: Contract | null }[] = [];

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * What the live bind computed from the bytes, recomputed here (docs/state.md#the-store replay, docs/contract.md#scope-history): the contract
 * digest (`contractDigest` of the parsed bytes, as unit-create.ts / unit-bind.ts record it), the
 * sources digest of the recorded source list and that list naming exactly the contract's sources
 * (readBaselineSources digests every source of the contract), and — for version ≥ 2 — the diff and
 * `scope_changed` as `diffScope(previous bound contract, this one)` gives them. Without this an
 * attacker who rewrites the log could record a narrowing as "no narrowing" (no authority needed) or
 * bind a contract under another contract's digest; both apply on replay as if the live path wrote them.
 */
function assertBindDerived(db: Db, p: ScopeBindPayload, bytes: Buffer): void {
  const where = `${p.unit}:scope:${p.version}`;
  const next = contractOf(bytes);
  if (next === null || contractDigest(next) !== p.contract_digest) return expectChanges(0, 1, where);
  let sourcesMatch: boolean;
  try {
    sourcesMatch = sourcesDigest(p.sources) === p.sources_digest;
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    sourcesMatch = false;
  }
  const listed = new Map(p.sources.map((s) => [s.id, s.path]));
  if (!sourcesMatch || listed.size !== next.sources.length || !next.sources.every((s) => listed.get(s.id) === s.path)) {
    return expectChanges(0, 1, where);
  }
  if (p.version === 1) return; // the schema's refine: no diff, scope changed from nothing
  const prevBytes = db.prepare('SELECT contract_bytes FROM scope_versions WHERE unit = ? AND version = ?').pluck().get(p.unit, p.version - 1) as
    | Buffer
    | undefined;
  const previous = prevBytes === undefined ? null : contractOf(prevBytes);
  if (previous === null) return expectChanges(0, 1, where);
  let diff: ReturnType<typeof diffScope>;
  try {
    diff = diffScope(previous, next);
  } catch (e) {
    // diffScope refuses a disappeared directive/source/authority/tombstone or an edited record:
    // the live bind refused that contract too.
    if (isGovernedError(e)) return expectChanges(0, 1, where);
    throw e;
  }
  const same =
    diff.scopeChanged === p.scope_changed &&
    sameList(sortedUnique(diff.additions), p.diff.additions) &&
    sameList(sortedUnique(diff.narrowing), p.diff.narrowing) &&
    sameList(sortedUnique(diff.progress), p.diff.progress);
  expectChanges(same ? 1 : 0, 1, where);
}

export const SCOPE_REDUCERS = {
  scope_bind: reducer({
    payload: scopeBindPayload,
    unitOf: (p) => p.unit,
    apply(db, p) {
      const latest = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM scope_versions WHERE unit = ?').get(p.unit) as { v: number };
      expectChanges(latest.v + 1 === p.version ? 1 : 0, 1, `${p.unit}:scope:${p.version}`);
      // The recorded file digest is the digest of the recorded bytes (store/scope.ts computes it so).
      const contractBytes = Buffer.from(p.contract_b64, 'base64');
      expectChanges(sha256Digest(contractBytes) === p.contract_file_digest ? 1 : 0, 1, `${p.unit}:scope:${p.version}`);
      assertBindDerived(db, p, contractBytes);
      assertBindAuthority(db, p);
      // Counters move exactly as docs/contract.md#the-states-a-receipt-is-judged-against, docs/contract.md#scope-history say, from the unit's current values.
      const epochBefore = p.scope_epoch - (p.scope_changed ? 1 : 0);
      const revisionBefore = p.work_revision - (p.version > 1 ? 1 : 0);
      const u = db
        .prepare('UPDATE units SET scope_epoch = ?, work_revision = ? WHERE id = ? AND scope_epoch = ? AND work_revision = ?')
        .run(p.scope_epoch, p.work_revision, p.unit, epochBefore, revisionBefore);
      expectChanges(u.changes, 1, p.unit);
      const r = db
        .prepare(
          `INSERT INTO scope_versions (unit, version, scope_epoch, work_revision, scope_changed, contract_bytes,
             contract_file_digest, contract_digest, sources_digest, diff, authorities, bound_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          p.unit,
          p.version,
          p.scope_epoch,
          p.work_revision,
          p.scope_changed ? 1 : 0,
          contractBytes,
          p.contract_file_digest,
          p.contract_digest,
          p.sources_digest,
          canonicalJson(p.diff),
          canonicalJson(p.authorities),
          p.bound_at,
        );
      expectChanges(r.changes, 1, `${p.unit}:scope:${p.version}`);
      const insert = db.prepare('INSERT INTO scope_sources (unit, version, source, path, digest) VALUES (?, ?, ?, ?, ?)');
      for (const s of p.sources) expectChanges(insert.run(p.unit, p.version, s.id, s.path, s.digest).changes, 1, s.id);
    },
  }),
} as const;
