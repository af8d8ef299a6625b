// The incident-history witnesses of the lift rule (src/core/decision/incident-lift.ts,
// docs/preservation.md#incident-history), read from the log: for the challenge a receipt answered or
// an ABORTED run claimed, the reviewed work without the history binding (its `challenge_issue`
// entry's contract, sources and workspace digests, and the preservation contract bound before it)
// and how far the history shown to that view reached (the views that carry the preservation section:
// docs/bundle.md#the-preservation-section). Only for a unit with a preservation contract bound: without one
// the history is not part of the planning state and the plain rule is exact (nothing is read).
import { reviewedWorkDigest } from '../../core/decision/incident-lift.js';
import { fail } from '../../core/errors.js';
import type { Db } from '../../store/store.js';
import { prepared } from './statements.js';

export interface LiftWitnessOf {
  (challengeId: string): { readonly work: string; readonly historySeenUpto: number | null };
}

const HISTORY_VIEWS: ReadonlySet<string> = new Set(['baseline_preservation', 'authority_release']);

interface Binding {
  readonly seq: number;
  readonly contract: string;
  readonly history: string;
  readonly upto: number;
}

function parse(bytes: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The witness reader of `unit`, or null when the unit never had a preservation contract bound. */
export function liftWitnessReader(db: Db, unit: string): LiftWitnessOf | null {
  const sets = prepared(db, "SELECT seq, payload FROM log WHERE type = 'preservation_set' AND unit = ? ORDER BY seq").all(unit) as { seq: number; payload: Buffer }[];
  if (sets.length === 0) return null;
  const bindings: Binding[] = sets.map((r) => {
    const p = parse(r.payload);
    if (p === null || typeof p.contract_digest !== 'string' || typeof p.incident_history !== 'string' || typeof p.incident_upto !== 'number') {
      return fail('decision_table_log_mismatch', ['log', `seq:${r.seq}`]);
    }
    return { seq: r.seq, contract: p.contract_digest, history: p.incident_history, upto: p.incident_upto };
  });
  const cache = new Map<string, { work: string; historySeenUpto: number | null }>();
  return (challengeId) => {
    const hit = cache.get(challengeId);
    if (hit !== undefined) return hit;
    const issuedAt = prepared(db, 'SELECT issued_at FROM challenges WHERE id = ? AND unit = ?').pluck().get(challengeId, unit) as number | undefined;
    const needle = Buffer.from(`"challenge":"${challengeId}"`, 'utf8');
    const rows =
      issuedAt === undefined
        ? []
        : (prepared(db, "SELECT seq, payload FROM log WHERE type = 'challenge_issue' AND time = ? AND unit = ? ORDER BY seq").all(issuedAt, unit) as { seq: number; payload: Buffer }[]).filter((r) =>
            r.payload.includes(needle),
          );
    const row = rows.length === 1 ? rows[0] : undefined;
    const p = row === undefined ? null : parse(row.payload);
    if (row === undefined || p === null || p.challenge !== challengeId) return fail('decision_fact_mismatch', [challengeId]);
    const { stage, view, contract_digest: contract, sources_digest: sources, workspace_digest: workspace } = p;
    if (typeof stage !== 'string' || typeof view !== 'string' || typeof contract !== 'string' || typeof sources !== 'string' || typeof workspace !== 'string') {
      return fail('decision_fact_mismatch', [challengeId]);
    }
    // The binding in force when the challenge was issued: the last one logged before it.
    let bound: Binding | null = null;
    for (const b of bindings) if (b.seq < row.seq) bound = b;
    const sees = HISTORY_VIEWS.has(view) || (view === 'complete' && stage === 'integration');
    const out = {
      work: reviewedWorkDigest({ stage, contractDigest: contract, sourcesDigest: sources, workspaceDigest: workspace, preservationContract: bound?.contract ?? null }),
      historySeenUpto: sees && bound !== null && bound.history !== 'none' && (stage === 'planning' || stage === 'integration') ? bound.upto : null,
    };
    cache.set(challengeId, out);
    return out;
  };
}
