// `governed preservation check --unit U [--origin VND=DIR ...]` (docs/preservation.md#rules): gather
// the facts of one unit and run the pure rules of core/preservation/rules.ts over them. Records
// nothing. The same fact loader feeds the delivery state (flows/decide), so `check`, `status` and
// `gate` judge preservation identically.
import { resolve } from 'node:path';
import { fail } from '../../core/errors.js';
import { checkPreservation, type PreservationReport, type ProbeFact, type VendorOriginFact } from '../../core/preservation/rules.js';
import { closeStore, getUnit, openStoreReadOnly, type Db } from '../../store/index.js';
import { dispositionConsumptions, getPreservation, verifyIncidentBinding, type PreservationBinding } from '../../store/preservation.js';
import { computeCommitManifest, computeWorkspaceManifest, diffManifests } from '../../workspace/index.js';
import { originDigest } from '../../workspace/vendor-origin.js';
import { loadPinned } from '../challenge/pinned.js';
import { inventoryOf, probeFactsOf } from './evidence.js';

export interface PreservationCheckArgs {
  readonly home: string;
  readonly unit: string;
  readonly repo: string;
  /** Vendor id → directory of its origin repository (a clone or mirror). */
  readonly origins: ReadonlyMap<string, string>;
  readonly now: number;
}

export interface PreservationCheckResult {
  readonly unit: string;
  readonly required: boolean;
  readonly waiver: string | null;
  readonly binding: { readonly version: number; readonly contractDigest: string; readonly incidentHistory: string } | null;
  readonly report: PreservationReport | null;
  /** Writer-side only: repository-relative paths the writer must give a surface. */
  readonly uncoveredPaths: readonly string[];
}

/** Parse `--origin VND-x=DIR` entries. */
export function parseOrigins(entries: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of entries) {
    const i = e.indexOf('=');
    if (i <= 0 || i === e.length - 1) fail('usage_error', ['--origin']);
    out.set(e.slice(0, i), e.slice(i + 1));
  }
  return out;
}

/** The facts and the report for one unit (shared with the delivery state). */
export async function preservationReportOf(
  db: Db,
  args: {
    unit: string;
    baselineCommit: string;
    repo: string;
    productRoots: readonly string[];
    exclude: readonly string[];
    origins: ReadonlyMap<string, string>;
    binding: PreservationBinding;
    /** The policy's preservation_adapters.sha256 (empty: no adapter, so no evidence counts). */
    adapterAllowlist: readonly string[];
    /** Judge a commit (the gate's subject) instead of the workspace. */
    currentCommit?: string;
  },
): Promise<{ report: PreservationReport; uncovered: string[] }> {
  const b = args.binding;
  const { incidentsNow } = verifyIncidentBinding(db, b);
  const scope = { productRoots: args.productRoots, exclude: args.exclude };
  const [base, work] = await Promise.all([
    computeCommitManifest(args.repo, args.baselineCommit, scope),
    args.currentCommit === undefined ? computeWorkspaceManifest(args.repo, scope) : computeCommitManifest(args.repo, args.currentCommit, scope),
  ]);
  const changes = diffManifests(base.entries, work.entries);
  const snapshots = { baseline: base.digest, current: work.digest };
  const authorities = dispositionConsumptions(db, args.unit).map((c) => ({
    recordId: c.recordId,
    operation: c.operation,
    ids: c.ids,
    stateAfter: c.stateAfter,
    inForce: c.expiresAt === null || c.consumedAt < c.expiresAt,
  }));
  const vendorOrigins = new Map<string, VendorOriginFact>();
  for (const v of b.contract.vendor_sources) {
    const dir = args.origins.get(v.id);
    if (dir === undefined || v.origin?.commit === undefined) continue;
    const treeDigest = await originDigest({
      vendor: v.id,
      originDir: resolve(dir),
      commit: v.origin.commit,
      path: v.origin.path ?? '.',
      productRoot: args.repo,
      productBaseline: args.baselineCommit,
    });
    vendorOrigins.set(v.id, { treeDigest });
  }
  const probes: ProbeFact[] = probeFactsOf(db, args.unit, b, snapshots, args.adapterAllowlist);
  const report = checkPreservation({
    contract: b.contract,
    inventory: inventoryOf(db, args.unit, snapshots, args.adapterAllowlist),
    probes,
    changes,
    authorities,
    vendorOrigins,
    incidentHistory: b.incidentHistory,
    incidentsInLog: incidentsNow,
  });
  const roots = [...b.contract.surfaces.flatMap((s) => s.paths), ...b.contract.vendor_sources.map((v) => v.path)];
  const uncovered = changes.map((c) => c.path).filter((p) => !roots.some((r) => p === r || p.startsWith(`${r}/`)));
  return { report, uncovered };
}

export async function checkPreservationFlow(args: PreservationCheckArgs): Promise<PreservationCheckResult> {
  const store = openStoreReadOnly(args.home);
  try {
    const pinned = loadPinned(store, args.now);
    const unit = getUnit(store.db, args.unit);
    const p = pinned.policy.doc.preservation;
    const required = p === 'required';
    const waiver = p === 'required' ? null : p.waived;
    const b = getPreservation(store.db, unit.unitId);
    if (b === null) return { unit: unit.unitId, required, waiver, binding: null, report: null, uncoveredPaths: [] };
    const { report, uncovered } = await preservationReportOf(store.db, {
      unit: unit.unitId,
      baselineCommit: unit.baselineCommit,
      repo: resolve(args.repo),
      productRoots: pinned.policy.doc.product_roots,
      exclude: pinned.policy.doc.exclude,
      origins: args.origins,
      binding: b,
      adapterAllowlist: pinned.policy.doc.preservation_adapters?.sha256 ?? [],
    });
    return {
      unit: unit.unitId,
      required,
      waiver,
      binding: { version: b.version, contractDigest: b.contractDigest, incidentHistory: b.incidentHistory },
      report,
      uncoveredPaths: uncovered,
    };
  } finally {
    closeStore(store);
  }
}
