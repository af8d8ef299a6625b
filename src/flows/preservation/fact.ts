// The preservation fact of the delivery state (docs/decision.md, docs/preservation.md#delivery-state):
// the same facts and rules as `preservation check`, judged on the workspace (status) or on the
// gate's subject commit, turned into the decision's PreservationFact. Vendor origins count only as
// recorded by `preservation vendor-attest` (a check-time verification governed logged).
import type { PreservationFact } from '../../core/decision/index.js';
import type { Policy } from '../../core/policy.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { sortedUnique } from '../../core/contract/ids.js';
import type { Db } from '../../store/index.js';
import { getPreservation } from '../../store/preservation.js';
import { preservationReportOf, probeSignerOf } from './check.js';

export async function preservationFactOf(
  db: Db,
  a: {
    unit: string;
    baselineCommit: string;
    repo: string;
    policy: Policy;
    /** The trust root every record is judged under (the gate: `--trust`; status: the one at its log position). */
    trustAt: (seq: number) => TrustRoot;
    currentCommit?: string;
  },
): Promise<PreservationFact> {
  const binding = getPreservation(db, a.unit);
  if (binding === null) return { contract: false, incidentHistory: false, unsatisfiedSurfaces: [], violations: [] };
  const { report, probes } = await preservationReportOf(db, {
    unit: a.unit,
    baselineCommit: a.baselineCommit,
    repo: a.repo,
    productRoots: a.policy.doc.product_roots,
    exclude: a.policy.doc.exclude,
    origins: new Map(),
    binding,
    adapterAllowlist: a.policy.doc.preservation_adapters?.sha256 ?? [],
    signer: probeSignerOf(a.policy, a.trustAt),
    ...(a.currentCommit !== undefined ? { currentCommit: a.currentCommit } : {}),
  });
  return {
    contract: true,
    incidentHistory: !report.violations.some((v) => v.code === 'incident_history_missing'),
    unsatisfiedSurfaces: sortedUnique(report.surfaces.filter((s) => s.violations.length > 0).map((s) => s.id)),
    violations: report.violations.filter((v) => v.code !== 'incident_history_missing').map((v) => ({ code: v.code, ids: [...v.ids] })),
    // Every probe receipt the rules judged (each verified under the caller's trust root on the way).
    probeReceipts: sortedUnique(probes.map((p) => p.receiptId)),
    coLocatedProbeReceipts: sortedUnique(probes.filter((p) => p.trustMode !== 'separated').map((p) => p.receiptId)),
  };
}
