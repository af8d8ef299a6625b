// `governed preservation check --unit U [--origin VND=DIR ...]` (docs/preservation.md#rules): gather
// the facts of one unit and run the pure rules of core/preservation/rules.ts over them. Records
// nothing. The same fact loader feeds the delivery state (flows/decide), so `check`, `status` and
// `gate` judge preservation identically.
import { resolve } from 'node:path';
import { fail } from '../../core/errors.js';
import { checkPreservation, type PreservationReport, type ProbeFact, type VendorOriginFact } from '../../core/preservation/rules.js';
import { closeStore, getUnit, openStoreReadOnly, type Db } from '../../store/index.js';
import { getPreservation, verifyIncidentBinding, type PreservationBinding } from '../../store/preservation.js';
import { computeCommitManifest, computeWorkspaceManifest, diffManifests } from '../../workspace/index.js';
import { originDigest } from '../../workspace/vendor-origin.js';
import { loadPinned } from '../challenge/pinned.js';
import { dispositionAuthorityFacts, inventoryOf, probeFactsOf, type ProbeSigner } from './evidence.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { trustRootsByPosition } from '../decide/pins.js';
import type { Policy } from '../../core/policy.js';

/**
 * The probe signer of the pinned policy, judged under `trustAt` (docs/preservation.md#probes): the
 * trust root the caller judges every record under — the gate's `--trust`, or the one in force at each
 * record's log position for status and `preservation check`.
 */
export function probeSignerOf(policy: Policy, trustAt: (seq: number) => TrustRoot): ProbeSigner | null {
  const probe = policy.doc.credentials.probe;
  return probe === undefined ? null : { keyId: probe.key_id, trustAt };
}

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
    /** The probe key probe receipts must verify under (null: the policy names none, so none count). */
    signer: ProbeSigner | null;
  },
): Promise<{ report: PreservationReport; uncovered: string[]; probes: ProbeFact[] }> {
  const b = args.binding;
  const { incidentsNow } = verifyIncidentBinding(db, b);
  const scope = { productRoots: args.productRoots, exclude: args.exclude };
  const [base, work] = await Promise.all([
    computeCommitManifest(args.repo, args.baselineCommit, scope),
    args.currentCommit === undefined ? computeWorkspaceManifest(args.repo, scope) : computeCommitManifest(args.repo, args.currentCommit, scope),
  ]);
  const changes = diffManifests(base.entries, work.entries);
  const snapshots = { baseline: base.digest, current: work.digest };
  const authorities = dispositionAuthorityFacts(db, args.unit);
  const vendorOrigins = new Map<string, VendorOriginFact>();
  // Recorded verifications (preservation vendor-attest) of exactly the contract's origin and commit.
  const recorded = db.prepare('SELECT tree_digest FROM vendor_attestations WHERE unit = ? AND vendor = ? AND repository = ? AND git_commit = ? ORDER BY log_seq DESC LIMIT 1').pluck();
  for (const v of b.contract.vendor_sources) {
    const d = v.origin?.commit === undefined ? undefined : (recorded.get(args.unit, v.id, v.origin.repository, v.origin.commit) as string | undefined);
    if (d !== undefined) vendorOrigins.set(v.id, { treeDigest: d });
  }
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
  const probes: ProbeFact[] = probeFactsOf(db, args.unit, b, snapshots, args.adapterAllowlist, args.signer);
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
  return { report, uncovered, probes };
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
      signer: probeSignerOf(pinned.policy, await trustRootsByPosition(store.db)),
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

/**
 * `preservation vendor-attest --unit U --origin VND=DIR ...`: compute each named vendor source's
 * tree digest from its origin repository now and, when every one equals the contract's, record them
 * (one transaction). A mismatch, an unreadable origin, or the product itself as "origin" is refused
 * and nothing is recorded.
 */
export async function vendorAttestFlow(args: { home: string; unit: string; repo: string; origins: ReadonlyMap<string, string>; now: number }): Promise<{ unit: string; vendors: string[] }> {
  const { openStore, mutate } = await import('../../store/index.js');
  const store = openStore(args.home);
  try {
    const unit = getUnit(store.db, args.unit);
    const b = getPreservation(store.db, unit.unitId);
    if (b === null) fail('preservation_not_bound', [unit.unitId]);
    const rows: { vendor: string; repository: string; commit: string; digest: string }[] = [];
    for (const [vendor, dir] of args.origins) {
      const v = b.contract.vendor_sources.find((x) => x.id === vendor);
      if (v === undefined || v.origin?.commit === undefined || v.origin.tree_digest === undefined) fail('preservation_surface_unknown', []);
      const digest = await originDigest({ vendor: v.id, originDir: resolve(dir), commit: v.origin.commit, path: v.origin.path ?? '.', productRoot: resolve(args.repo), productBaseline: unit.baselineCommit });
      if (digest !== v.origin.tree_digest) fail('vendor_origin_unverifiable', [v.id]);
      rows.push({ vendor: v.id, repository: v.origin.repository, commit: v.origin.commit, digest });
    }
    if (rows.length === 0) fail('usage_error', ['--origin']);
    return mutate(store, args.now, (tx) => {
      for (const r of rows) tx.append('vendor_attest', unit.unitId, { unit: unit.unitId, vendor: r.vendor, repository: r.repository, commit: r.commit, tree_digest: r.digest, recorded_at: tx.now });
      return { unit: unit.unitId, vendors: rows.map((r) => r.vendor) };
    });
  } finally {
    closeStore(store);
  }
}
