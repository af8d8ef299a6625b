// What the planning state binds of a unit's preservation (docs/preservation.md#binding-a-contract):
// the latest binding's contract digest and incident history digest. A plain read kept apart from
// ./preservation.ts (which parses contracts) so the gate's cold path loads no parser for it.
import type { Db } from './store.js';

export interface PreservationPlanningInput {
  readonly preservation?: string;
  readonly incidentHistory?: string;
}

export function preservationPlanningInput(db: Db, unit: string): PreservationPlanningInput {
  const row = db
    .prepare('SELECT contract_digest, incident_history FROM preservation_versions WHERE unit = ? ORDER BY version DESC LIMIT 1')
    .get(unit) as { contract_digest: string; incident_history: string } | undefined;
  return row === undefined ? {} : { preservation: row.contract_digest, incidentHistory: row.incident_history };
}
