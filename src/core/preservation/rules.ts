// The preservation rules (docs/preservation.md#rules), one pure function each. No I/O, no clock:
// the flow gathers the facts (probe receipts, the baseline→workspace diff, consumed authority
// records, origin tree digests, the incident history binding) and these decide.
import { digestOf } from '../canonical.js';
import { compareUtf8, sortedUnique } from '../contract/ids.js';
import { isDestructive, type PreservationContract, type Surface, type VendorSource } from './schema.js';

export type ProbePhase = 'baseline' | 'current';

/** What a signed probe receipt says about one run of a surface's real entry. */
export interface ProbeFact {
  readonly receiptId: string;
  readonly surface: string;
  readonly phase: ProbePhase;
  readonly exitCode: number;
  /** Closed, parsed capabilities (subcommands a CLI's help lists, names a module exports). */
  readonly capabilities: readonly string[];
  readonly outputDigest: string;
  /** Who made the receipt (absent: co-located); docs/runnerd.md#probes-through-the-daemon. */
  readonly trustMode?: 'co-located' | 'separated';
}

/** A path changed between the baseline commit and the workspace (null: absent on that side). */
export interface ChangeFact {
  readonly path: string;
  readonly baseline: string | null;
  readonly current: string | null;
}

/** A consumed authority record as the decision sees it. */
export interface DispositionAuthorityFact {
  readonly recordId: string;
  readonly operation: string;
  readonly ids: readonly string[];
  readonly stateAfter: string | null;
  /** Consumed for this unit before it expired (judged once, at consumption). */
  readonly inForce: boolean;
}

export interface Violation {
  readonly code:
    | 'preservation_capability_lost'
    | 'preservation_probe_missing'
    | 'preservation_destructive_unauthorized'
    | 'preservation_change_uncovered'
    | 'preservation_test_uncovered'
    | 'preservation_vendor_unattested'
    | 'preservation_surface_undisclosed'
    | 'preservation_surface_missing'
    | 'preservation_inventory_missing'
    | 'incident_history_missing';
  readonly ids: readonly string[];
}

/** True when `path` is `root` or lies below it (surface and vendor paths name files or directories). */
export function isUnderPath(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

/**
 * The real diff digest of a surface's paths: every changed path under them with its baseline and
 * current sha256 (null where absent), sorted by UTF-8 bytes. A human signs this digest as the
 * `state_after` of the destructive authority record, so it names exactly what is destroyed.
 */
export function surfaceDiffDigest(surface: Pick<Surface, 'id' | 'paths'>, changes: readonly ChangeFact[]): string {
  const under = changes
    .filter((c) => surface.paths.some((p) => isUnderPath(c.path, p)))
    .sort((a, b) => compareUtf8(a.path, b.path))
    .map((c) => ({ path: c.path, baseline: c.baseline, current: c.current }));
  return digestOf({ kind: 'governed/surface-diff', version: 1, surface: surface.id, changes: under });
}

/**
 * preserve/extend: the surface must be reachable now (its real entry exits 0) with every capability
 * it had at the baseline. Losing reachability counts as deletion even when every file remains.
 * Returns the lost items (`reachability` and/or capability names), [] when nothing is lost.
 */
export function lostCapabilities(baseline: ProbeFact, current: ProbeFact): string[] {
  const lost: string[] = [];
  if (baseline.exitCode === 0 && current.exitCode !== 0) lost.push('reachability');
  const now = new Set(current.capabilities);
  for (const c of baseline.capabilities) if (!now.has(c)) lost.push(`capability:${c}`);
  return lost;
}

/**
 * A destructive disposition is valid only with a consumed, in-force authority record of that
 * operation naming the surface, whose state_after (the signed expected diff digest) equals both the
 * contract's expected_diff_digest and the real diff digest of the surface's paths.
 */
export function destructiveAuthorized(surface: Surface, realDiffDigest: string, authorities: readonly DispositionAuthorityFact[]): boolean {
  if (!isDestructive(surface.disposition) || surface.authority_id === undefined) return false;
  const record = authorities.find((a) => a.recordId === surface.authority_id);
  return (
    record !== undefined &&
    record.inForce &&
    record.operation === surface.disposition &&
    record.ids.includes(surface.id) &&
    record.stateAfter === surface.expected_diff_digest &&
    surface.expected_diff_digest === realDiffDigest
  );
}

/** Changed paths under no surface and no vendor source (`preservation_change_uncovered`). */
export function uncoveredChanges(contract: PreservationContract, changes: readonly ChangeFact[]): string[] {
  const roots = [...contract.surfaces.flatMap((s) => s.paths), ...contract.vendor_sources.map((v) => v.path)];
  return sortedUnique(changes.filter((c) => !roots.some((r) => isUnderPath(c.path, r))).map((c) => c.path));
}

/** A test file: under a `test`, `tests` or `__tests__` directory, or named `*.test.*` / `*.spec.*`. */
export function isTestPath(path: string): boolean {
  const segments = path.split('/');
  const base = segments[segments.length - 1] ?? '';
  return segments.slice(0, -1).some((s) => s === 'test' || s === 'tests' || s === '__tests__') || /\.(test|spec)\.[^/]+$/.test(base);
}

/**
 * A changed test file must belong to a preserve/extend surface: a new test that asserts an old entry
 * is gone is a false-green signal unless a destructive surface with valid authority owns it — and
 * then it is that surface's path, not a test of a kept one (`preservation_test_uncovered`).
 */
export function uncoveredTestChanges(contract: PreservationContract, changes: readonly ChangeFact[]): string[] {
  const kept = contract.surfaces.filter((s) => !isDestructive(s.disposition)).flatMap((s) => s.paths);
  return sortedUnique(changes.filter((c) => isTestPath(c.path) && !kept.some((r) => isUnderPath(c.path, r))).map((c) => c.path));
}

/** The origin facts observed at check time for one vendor source (null: no origin tree given). */
export interface VendorOriginFact {
  /** Digest computed from the origin tree at the contract's commit. */
  readonly treeDigest: string;
}

/** import|preserve: attested only when the digest computed from the origin tree is the contract's. */
export function vendorAttested(vendor: VendorSource, observed: VendorOriginFact | null): boolean {
  return observed !== null && vendor.origin?.tree_digest !== undefined && observed.treeDigest === vendor.origin.tree_digest;
}

/** One entry the project adapter discovered in the baseline. */
export interface InventoryEntry {
  readonly entry: string;
  readonly kind: string;
}

/** Discovered entries without a surface, and declared probes the inventory does not have. */
export function inventoryMismatch(contract: PreservationContract, inventory: readonly InventoryEntry[]): { undisclosed: string[]; missing: string[] } {
  const discovered = new Set(inventory.map((e) => e.entry));
  const declared = new Map(contract.surfaces.filter((s) => s.probe !== undefined).map((s) => [s.probe as string, s.id]));
  return {
    undisclosed: sortedUnique([...discovered].filter((e) => !declared.has(e))),
    missing: sortedUnique([...declared].filter(([entry]) => !discovered.has(entry)).map(([, id]) => id)),
  };
}

/**
 * `none` is an acceptable incident history only when the log holds no correction and no DIRTY or
 * ABORTED run for the unit; otherwise the bound history must be the chain assembled from the log.
 */
export function incidentHistoryAccepted(bound: string | null, incidentsInLog: boolean): boolean {
  if (bound === null) return false;
  return bound !== 'none' || !incidentsInLog;
}

export interface PreservationFacts {
  readonly contract: PreservationContract;
  /** The baseline inventory of the allowlisted project adapter, or null when none was derived. */
  readonly inventory: readonly InventoryEntry[] | null;
  readonly probes: readonly ProbeFact[];
  readonly changes: readonly ChangeFact[];
  readonly authorities: readonly DispositionAuthorityFact[];
  readonly vendorOrigins: ReadonlyMap<string, VendorOriginFact>;
  /** The bound incident history digest, `none`, or null when nothing is bound. */
  readonly incidentHistory: string | null;
  readonly incidentsInLog: boolean;
}

export interface SurfaceReport {
  readonly id: string;
  readonly disposition: string;
  readonly diffDigest: string;
  readonly baselineProbe: string | null;
  readonly currentProbe: string | null;
  readonly violations: readonly string[];
}

export interface PreservationReport {
  readonly surfaces: readonly SurfaceReport[];
  readonly violations: readonly Violation[];
}

/** Every rule over one unit's facts. Order: inventory, per surface, coverage, vendors, history. */
export function checkPreservation(f: PreservationFacts): PreservationReport {
  const violations: Violation[] = [];
  const add = (code: Violation['code'], ids: readonly string[]): void => void violations.push({ code, ids });
  if (f.inventory === null) add('preservation_inventory_missing', []);
  else {
    const m = inventoryMismatch(f.contract, f.inventory);
    if (m.undisclosed.length > 0) add('preservation_surface_undisclosed', m.undisclosed);
    if (m.missing.length > 0) add('preservation_surface_missing', m.missing);
  }
  const probeOf = (surface: string, phase: ProbePhase): ProbeFact | undefined => f.probes.find((p) => p.surface === surface && p.phase === phase);
  const surfaces: SurfaceReport[] = [];
  for (const s of f.contract.surfaces) {
    const mine: string[] = [];
    const diff = surfaceDiffDigest(s, f.changes);
    const base = probeOf(s.id, 'baseline');
    const cur = probeOf(s.id, 'current');
    if (isDestructive(s.disposition)) {
      if (!destructiveAuthorized(s, diff, f.authorities)) {
        add('preservation_destructive_unauthorized', [s.id]);
        mine.push('preservation_destructive_unauthorized');
      }
    } else if (s.probe !== undefined) {
      if (base === undefined || cur === undefined) {
        add('preservation_probe_missing', [s.id, base === undefined ? 'baseline' : 'current']);
        mine.push('preservation_probe_missing');
      } else {
        const lost = lostCapabilities(base, cur);
        if (lost.length > 0) {
          add('preservation_capability_lost', [s.id, ...lost]);
          mine.push('preservation_capability_lost');
        }
      }
    }
    surfaces.push({ id: s.id, disposition: s.disposition, diffDigest: diff, baselineProbe: base?.receiptId ?? null, currentProbe: cur?.receiptId ?? null, violations: mine });
  }
  const uncovered = uncoveredChanges(f.contract, f.changes);
  if (uncovered.length > 0) add('preservation_change_uncovered', [`paths:${uncovered.length}`]);
  const tests = uncoveredTestChanges(f.contract, f.changes);
  if (tests.length > 0) add('preservation_test_uncovered', [`paths:${tests.length}`]);
  for (const v of f.contract.vendor_sources) if (!vendorAttested(v, f.vendorOrigins.get(v.id) ?? null)) add('preservation_vendor_unattested', [v.id]);
  if (!incidentHistoryAccepted(f.incidentHistory, f.incidentsInLog)) add('incident_history_missing', []);
  return { surfaces, violations };
}
