// Reducer of `scope_bind` (SPEC §6.2, §6.3): bind one scope version of a unit. `unit create` appends
// it as version 1 right after `unit_create` in the same transaction; `unit bind` appends the next
// version. The payload carries everything the tables hold (exact contract bytes, digests, the diff
// and the consumed authority ids), so replay rebuilds them without reading any file.
//
// Counters (SPEC §6.2, §6.3):
// - version 1 takes scope_epoch 0 → 1 and leaves work_revision as created (0);
// - every later bind increments work_revision, and scope_epoch when `scope_changed`.
// The reducer re-derives both from the unit's current row and refuses a payload that disagrees, so
// a forged entry cannot replay into a different state.
import * as z from 'zod';
import { CONTRACT_ID_RE, isRelationId } from '../../core/contract/ids.js';
import { AUTHORITY_RECORD_ID_RE } from '../../core/contract/ids.js';
import { canonicalJson } from '../../core/canonical.js';
import { digest, seconds, unitId } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';

const contractId = z.string().regex(CONTRACT_ID_RE);
const idOrRelation = z.string().refine((s) => CONTRACT_ID_RE.test(s) || isRelationId(s), 'id');
const sortedUniqueStrings = <T extends z.ZodType<string>>(item: T) =>
  z.array(item).refine((xs) => xs.every((x, i) => i === 0 || Buffer.compare(Buffer.from(xs[i - 1] as string), Buffer.from(x)) < 0), 'sorted unique');

export const scopeDiffSchema = z.strictObject({
  additions: sortedUniqueStrings(idOrRelation),
  narrowing: sortedUniqueStrings(idOrRelation),
  progress: sortedUniqueStrings(contractId),
});

export const scopeBindPayload = z
  .strictObject({
    unit: unitId,
    version: z.int().min(1),
    scope_epoch: z.int().min(1),
    work_revision: z.int().min(0),
    scope_changed: z.boolean(),
    contract_b64: z.base64().min(1),
    contract_file_digest: digest,
    contract_digest: digest,
    sources: z
      .array(z.strictObject({ id: contractId, path: z.string().min(1).max(4096), digest }))
      .max(256)
      .refine((xs) => xs.every((x, i) => i === 0 || Buffer.compare(Buffer.from((xs[i - 1] as { id: string }).id), Buffer.from(x.id)) < 0), 'sorted unique'),
    sources_digest: digest,
    diff: scopeDiffSchema,
    authorities: sortedUniqueStrings(z.string().regex(AUTHORITY_RECORD_ID_RE)),
    bound_at: seconds,
  })
  // Version 1 is the contract as created: no diff, no authority, scope changed from nothing.
  .refine(
    (p) =>
      p.version > 1 ||
      (p.scope_changed && p.diff.additions.length === 0 && p.diff.narrowing.length === 0 && p.diff.progress.length === 0),
    'first version',
  );

export type ScopeBindPayload = z.infer<typeof scopeBindPayload>;

export const SCOPE_REDUCERS = {
  scope_bind: reducer({
    payload: scopeBindPayload,
    unitOf: (p) => p.unit,
    apply(db, p) {
      const latest = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM scope_versions WHERE unit = ?').get(p.unit) as { v: number };
      expectChanges(latest.v + 1 === p.version ? 1 : 0, 1, `${p.unit}:scope:${p.version}`);
      // Counters move exactly as SPEC §6.2/§6.3 say, from the unit's current values.
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
          Buffer.from(p.contract_b64, 'base64'),
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
