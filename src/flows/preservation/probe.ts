// `governed preservation probe --unit U [--surface S] --phase baseline|current --adapter FILE`
// (docs/preservation.md#probes).
//
//  1. The tree is sealed: the baseline from git objects of the unit's baseline commit (never the
//     branch it came from), or the current workspace; each must be exactly the manifest digest
//     computed now, and the policy's dependency root (e.g. node_modules) is sealed beside it.
//  2. The adapter program must be on the policy's preservation_adapters allowlist (sha256); it runs
//     in the check sandbox (no network, snapshot read-only at /snapshot) — for the baseline first in
//     `inventory` mode (the surfaces it discovers, independently of the contract), then in `probe`
//     mode once per surface, running the surface's real entry.
//  3. Both sealed trees are re-verified after the runs (`snapshot_altered`), then removed.
//  4. Each result becomes a probe statement signed by the policy's `probe` credential through its
//     pinned attestor (kind `probe`, which checks the statement and names itself) — a one-shot child,
//     or in separated mode the daemon's warm probe attestor under its own uid — verified under the
//     trust root in force, and recorded with the inventory in one transaction.
// Nothing here reads probe JSON from anyone: the only results recorded are the adapter's, parsed
// from the sandbox's stdout by governed itself.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { canonicalBytes, sha256Digest } from '../../core/canonical.js';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE } from '../../core/dsse.js';
import { CONTRACT_ID_RE } from '../../core/contract/ids.js';
import { fail } from '../../core/errors.js';
import { trustedKeyFor } from '../../core/key-status.js';
import { parseJsonStrict } from '../../core/strict-json.js';
import { isoOfSeconds } from '../../core/trust-root.js';
import { buildProbeStatement, type InventoryOutput, type ProbeOutput, type ProbePredicate } from '../../core/preservation/probe.js';
import { adapterRequestSchema, inventoryOutputSchema, probeBatchOutputSchema } from '../../core/preservation/probe-schema.js';
import type { ProbePhase } from '../../core/preservation/rules.js';
import { closeStore, getUnit, mutate, openStore, trustRootInForce, type Store } from '../../store/index.js';
import { getPreservation, type PreservationBinding } from '../../store/preservation.js';
import { computeCommitManifest, computeWorkspaceManifest } from '../../workspace/index.js';
import { digestDirectory, makeSealRoot, openSealedDir, removeSealed, sealCommit, sealDirectory, sealWorkspace, verifySealed, type SealedTree } from '../../workspace/snapshot.js';
import { runSandboxed, type SandboxRequest, type SandboxResult } from '../../../runner/sandbox/run.js';
import { assertIdentity, type CheckedSandboxRun } from '../run/sandbox-run.js';
import { sandboxLimitsFromPolicy } from '../../../runner/sandbox/limits.js';
import { pinAttestor, runPinnedAttestor } from '../../../runner/attestor-host.js';
import { installRoot } from '../run/locations.js';
import { loadPinned, type Pinned } from '../challenge/pinned.js';
import { closeSync } from 'node:fs';
import type { Separation } from '../../core/receipt-predicate.js';
import type { StartedAttestor } from '../run/attestor-session.js';
import type { WarmSigner } from '../runnerd/warm-attestor.js';
import { PROBE_ADAPTER_MAX_BYTES } from '../../core/limits.js';

export const MAX_ADAPTER_BYTES = PROBE_ADAPTER_MAX_BYTES;

export interface ProbeArgs {
  readonly home: string;
  readonly unit: string;
  readonly repo: string;
  readonly phase: ProbePhase;
  readonly surface: string | null;
  readonly adapter: string;
  /**
   * Separated mode (docs/runnerd.md#probes-through-the-daemon): the adapter's bytes as the client sent
   * them (judged by the same allowlist as a file's; `adapter` is then only a label), and the daemon's
   * identity with the client's kernel-reported uid and pid, stated in the receipt.
   */
  readonly adapterBytes?: Buffer;
  readonly separation?: Separation;
  /** Separated mode with a sandbox host: seal in its directory and run the adapter there, under the
   * policy's sandbox uid (docs/runnerd.md#probes-through-the-daemon). */
  readonly sandbox?: ProbeSandbox;
  /** Separated mode: the daemon's warm probe attestor, under the probe uid (the daemon cannot read
   * the probe key; docs/runnerd.md#probes-through-the-daemon), checked against the digests pinned
   * here first. Absent: a one-shot attestor child, as co-located mode always runs it. */
  readonly signer?: ProbeSigner;
  readonly attestorsDir?: string;
  readonly bwrapPath?: string;
  readonly now: number;
}

export interface ProbeResultRow {
  readonly surface: string;
  readonly receipt: string;
  readonly exitCode: number;
  readonly capabilities: readonly string[];
}

export interface ProbeFlowResult {
  readonly unit: string;
  readonly phase: ProbePhase;
  readonly snapshotDigest: string;
  readonly inventory: number | null;
  readonly probes: readonly ProbeResultRow[];
}

/** Where a separated probe seals (a directory the sandbox host can traverse, not write) and the
 * host run of one adapter request on those trees. */
export interface ProbeSandbox {
  readonly sealedDir: string;
  readonly run: (req: SandboxRequest, dirs: { readonly snapshot: string; readonly dependencies: string | null }) => Promise<CheckedSandboxRun>;
}

export type ProbeSigner = (pinned: WarmSigner) => StartedAttestor;

const hex = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The probe attestor by review-run's convention: `<attestors dir>/probe.json` and `probe.mjs` (else the shipped program). */
function probeAttestorFiles(home: string, attestorsDir: string | undefined): { program: string; config: string } {
  const dir = resolve(attestorsDir ?? process.env.GOVERNED_ATTESTORS_DIR ?? join(home, 'attestors'));
  const own = join(dir, 'probe.mjs');
  return { program: existsSync(own) ? own : join(installRoot(), 'attestors', 'ed25519-file.mjs'), config: join(dir, 'probe.json') };
}

interface Sandboxed {
  readonly pinned: Pinned;
  readonly adapterBytes: Buffer;
  readonly adapterSha256: string;
  readonly interpreter: string;
  readonly snapshot: SealedTree;
  readonly deps: SealedTree | null;
  readonly dependencyRoot: string | null;
  readonly bwrapPath: string | undefined;
  readonly hosted: ProbeSandbox | undefined;
}

async function runAdapter(s: Sandboxed, request: unknown): Promise<unknown> {
  const req = adapterRequestSchema.parse(request);
  const sandbox = s.pinned.policy.doc.sandbox;
  const snapshotFd = openSealedDir(s.snapshot);
  const dependencyFd = s.deps === null ? null : openSealedDir(s.deps);
  let r: SandboxResult;
  try {
    const sreq: SandboxRequest = {
      ...(s.bwrapPath !== undefined ? { bwrapPath: s.bwrapPath } : {}),
      allow: {
        bwrapSha256: sandbox.bwrap_sha256,
        profileSha256: sandbox.profile_sha256,
        seccompSha256: sandbox.seccomp_sha256,
        reviewerSha256: s.adapterSha256,
      },
      interpreter: s.interpreter,
      reviewer: { bytes: s.adapterBytes },
      bundleBytes: Buffer.from(JSON.stringify(req)),
      env: {},
      uid: sandbox.uid,
      gid: sandbox.uid,
      limits: sandboxLimitsFromPolicy(s.pinned.policy),
      check: { snapshotFd, dependencyFd, dependencyRoot: s.deps === null ? null : s.dependencyRoot },
    };
    if (s.hosted === undefined) {
      r = await runSandboxed(sreq);
    } else {
      // On the sandbox host: it opens the trees itself; its report is checked again here (the
      // adapter's digest, the interpreter, the policy's uid, every namespace not this process's).
      r = (await s.hosted.run(sreq, { snapshot: s.snapshot.dir, dependencies: s.deps?.dir ?? null })).result;
      assertIdentity(r.identity, r.facts, { reviewerSha256: s.adapterSha256, interpreter: s.interpreter, policyUid: sandbox.uid }, true);
    }
  } finally {
    closeSync(snapshotFd);
    if (dependencyFd !== null) closeSync(dependencyFd);
  }
  if (r.timedOut || r.outputOverflow || r.setupFailed || r.exitCode !== 0) fail('preservation_adapter_failed', [req.mode]);
  try {
    return parseJsonStrict(r.stdout.toString('utf8'));
  } catch {
    return fail('preservation_adapter_output_invalid', [req.mode]);
  }
}

export async function probePreservationFlow(args: ProbeArgs): Promise<ProbeFlowResult> {
  const store = openStore(args.home);
  const sealRoot = makeSealRoot('probe', args.sandbox?.sealedDir);
  try {
    const q = checkProbeRequest(store, args);
    const adapter = allowlistedAdapter(args, q.cfg);
    // The probe credential, as the trust root in force holds it; its pinned attestor.
    const at = isoOfSeconds(args.now);
    const expectedKey = trustedKeyFor(trustRootInForce(store), q.cred.key_id, 'probe', at);
    const attestor = pinProbeAttestor(store.home, args, q.cred);
    // The warm probe attestor must run exactly these digests (runnerd_attestor_pin_mismatch), before anything is sealed or run.
    const warm = args.signer?.({ credential: 'probe', programSha256: attestor.programSha256, configSha256: attestor.configSha256, key: expectedKey });
    // 1. Seal.
    const { snapshot, deps } = await sealTrees(args, q, sealRoot);
    const sb: Sandboxed = { pinned: q.pinned, adapterBytes: adapter.bytes, adapterSha256: adapter.sha256, interpreter: q.cfg.interpreter, snapshot, deps, dependencyRoot: q.cfg.dependency_root ?? null, bwrapPath: args.bwrapPath, hosted: args.sandbox };
    // 2. Run.
    const { inventory, results } = await runProbes(sb, args, q.surfaces);
    // 3. Re-verify what ran.
    verifySealed(snapshot);
    if (deps !== null) verifySealed(deps);
    // 4. Sign: one probe receipt for this run, every surface's result in it.
    const predicate = probePredicate(args, q.unit.unitId, snapshot, deps, adapter.sha256, attestor.programSha256, results, at);
    let signedReceipt: SignedProbe | null = null;
    if (predicate.results.length > 0) signedReceipt = await signProbe(attestor, expectedKey, warm, predicate);
    const rows: ProbeResultRow[] = predicate.results.map((r) => ({ surface: r.surface, receipt: signedReceipt?.receipt ?? '', exitCode: r.exit_code, capabilities: r.capabilities }));
    // 5. Record, in one transaction, against the binding that was probed.
    return recordProbe(store, args, q, snapshot.digest, adapter.sha256, inventory, signedReceipt, rows);
  } finally {
    removeSealed(sealRoot);
    closeStore(store);
  }
}

type PreservationAdapters = NonNullable<Pinned['policy']['doc']['preservation_adapters']>;
type ProbeCredential = NonNullable<Pinned['policy']['doc']['credentials']['probe']>;
type ContractSurface = PreservationBinding['contract']['surfaces'][number];

/** What the checks before anything runs established. */
interface ProbeRequest {
  readonly pinned: Pinned;
  readonly unit: ReturnType<typeof getUnit>;
  readonly binding: PreservationBinding;
  readonly cfg: PreservationAdapters;
  readonly cred: ProbeCredential;
  readonly surfaces: readonly ContractSurface[];
}

// The unit is bound to a contract, the policy configures adapters and a probe credential, and the
// surfaces asked for exist (docs/preservation.md#probes).
function checkProbeRequest(store: Store, args: ProbeArgs): ProbeRequest {
  const pinned = loadPinned(store, args.now);
  const unit = getUnit(store.db, args.unit);
  const binding = getPreservation(store.db, unit.unitId);
  if (binding === null) fail('preservation_not_bound', [unit.unitId]);
  const cfg = pinned.policy.doc.preservation_adapters;
  const cred = pinned.policy.doc.credentials.probe;
  if (cfg === undefined || cred === undefined) fail('preservation_adapter_not_configured', []);
  const surfaces = binding.contract.surfaces.filter((s) => s.probe !== undefined && (args.surface === null || s.id === args.surface));
  // Named only when it is an identifier: any other --surface value is a rejected value, never printed.
  if (args.surface !== null && surfaces.length === 0) fail('preservation_surface_unknown', [CONTRACT_ID_RE.test(args.surface) ? args.surface : '--surface']);
  return { pinned, unit, binding, cfg, cred, surfaces };
}

// The adapter: exactly an allowlisted program, nothing else ever runs (docs/preservation.md#adapter-protocol).
function allowlistedAdapter(args: ProbeArgs, cfg: PreservationAdapters): { bytes: Buffer; sha256: string } {
  let adapterBytes: Buffer;
  try {
    adapterBytes = args.adapterBytes ?? readFileSync(args.adapter);
  } catch {
    return fail('input_unreadable', ['adapter']);
  }
  if (adapterBytes.length > MAX_ADAPTER_BYTES) fail('input_too_large', ['adapter']);
  const adapterSha256 = hex(adapterBytes);
  if (!cfg.sha256.includes(adapterSha256)) fail('preservation_adapter_not_allowlisted', ['adapter']);
  return { bytes: adapterBytes, sha256: adapterSha256 };
}

// The probe credential's pinned attestor (docs/preservation.md#probes).
function pinProbeAttestor(home: string, args: ProbeArgs, cred: ProbeCredential): ReturnType<typeof pinAttestor> {
  const files = probeAttestorFiles(home, args.attestorsDir);
  if (!existsSync(files.config)) fail('preservation_adapter_not_configured', ['credentials.probe', 'attestor_config']);
  return pinAttestor(files.program, files.config, { attestorSha256: cred.attestor_sha256, configSha256: cred.attestor_config_sha256 });
}

// Step 1: the baseline commit's or the workspace's tree sealed at the manifest digest computed now,
// the dependency root beside it (docs/preservation.md#probes).
async function sealTrees(args: ProbeArgs, q: ProbeRequest, sealRoot: string): Promise<{ snapshot: SealedTree; deps: SealedTree | null }> {
  const repo = resolve(args.repo);
  const scope = { productRoots: q.pinned.policy.doc.product_roots, exclude: q.pinned.policy.doc.exclude };
  const dependencyRoot = q.cfg.dependency_root ?? null;
  const mountPoints = dependencyRoot === null ? [] : [dependencyRoot];
  const snapshot =
    args.phase === 'baseline'
      ? await sealCommit({
          repo,
          commit: q.unit.baselineCommit,
          scope,
          into: join(sealRoot, 'snapshot'),
          expectedDigest: (await computeCommitManifest(repo, q.unit.baselineCommit, scope)).digest,
          mountPoints,
        })
      : await sealWorkspace({ repo, scope, into: join(sealRoot, 'snapshot'), expectedDigest: (await computeWorkspaceManifest(repo, scope)).digest, mountPoints });
  const deps =
    dependencyRoot === null || !existsSync(join(repo, dependencyRoot))
      ? null
      : sealDirectory({ source: join(repo, dependencyRoot), into: join(sealRoot, 'deps'), expectedDigest: digestDirectory(join(repo, dependencyRoot)).digest, driftId: 'dependency_root' });
  return { snapshot, deps };
}

type SurfaceResult = { surface: string; evidence: string; output: ProbeOutput };

// Step 2: the baseline's inventory, then one sandbox run for every surface (docs/preservation.md#adapter-protocol).
async function runProbes(sb: Sandboxed, args: ProbeArgs, surfaces: readonly ContractSurface[]): Promise<{ inventory: InventoryOutput | null; results: SurfaceResult[] }> {
  let inventory: InventoryOutput | null = null;
  if (args.phase === 'baseline') {
    const parsed = inventoryOutputSchema.safeParse(await runAdapter(sb, { kind: 'governed/adapter-request', version: 1, mode: 'inventory', entries: [] }));
    if (!parsed.success) fail('preservation_adapter_output_invalid', ['inventory']);
    inventory = parsed.data;
  }
  // One sandbox run for every surface (the adapter runs each entry in its own child process).
  const results: SurfaceResult[] = [];
  if (surfaces.length > 0) {
    const entries = surfaces.map((s) => s.probe as string);
    const parsed = probeBatchOutputSchema.safeParse(await runAdapter(sb, { kind: 'governed/adapter-request', version: 1, mode: 'probe', entries }));
    if (!parsed.success || parsed.data.results.length !== entries.length) fail('preservation_adapter_output_invalid', ['probe']);
    surfaces.forEach((s, i) => {
      const output = parsed.data.results[i] as ProbeOutput;
      if (output.entry !== entries[i]) fail('preservation_adapter_output_invalid', [s.id]);
      results.push({ surface: s.id, evidence: args.phase === 'baseline' ? s.baseline_evidence_id : s.current_evidence_id, output });
    });
  }
  return { inventory, results };
}

// Step 4: the probe receipt's predicate, every surface's result in it (docs/preservation.md#probes).
function probePredicate(args: ProbeArgs, unit: string, snapshot: SealedTree, deps: SealedTree | null, adapterSha256: string, attestorSha256: string, results: readonly SurfaceResult[], at: string): ProbePredicate {
  return {
    unit,
    phase: args.phase,
    snapshot_digest: snapshot.digest,
    dependency_digest: deps?.digest ?? null,
    adapter_sha256: adapterSha256,
    attestor_sha256: attestorSha256,
    results: results
      .map((r) => ({
        surface: r.surface,
        evidence_id: r.evidence,
        entry: r.output.entry,
        exit_code: r.output.exit_code,
        capabilities: [...new Set(r.output.capabilities)].sort(),
        output_digest: r.output.output_digest,
      }))
      .sort((a, b) => (a.surface < b.surface ? -1 : 1)),
    probed_at: at,
    ...(args.separation === undefined ? { trust_mode: 'co-located' as const } : { trust_mode: 'separated' as const, separation: args.separation }),
  };
}

type SignedProbe = { receipt: string; envelope: Buffer };

// Step 4: signed by the probe credential's pinned attestor — a one-shot child, or separated the
// daemon's warm probe attestor — one DSSE envelope (docs/preservation.md#probes).
async function signProbe(attestor: ReturnType<typeof pinAttestor>, expectedKey: ReturnType<typeof trustedKeyFor>, warm: StartedAttestor | undefined, predicate: ProbePredicate): Promise<SignedProbe> {
  const payload = canonicalBytes(buildProbeStatement(predicate));
  const signed = warm === undefined ? await runPinnedAttestor(attestor, { expectedKey, payloadType: IN_TOTO_PAYLOAD_TYPE, payload }) : await warm.sign(IN_TOTO_PAYLOAD_TYPE, payload);
  return {
    receipt: sha256Digest(payload),
    envelope: Buffer.from(JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, [{ keyid: signed.keyid, sig: signed.sig }]))),
  };
}

const probeReceiptRecorded = (db: Store['db'], unit: string, receipt: string): boolean =>
  db.prepare('SELECT 1 FROM probe_receipts WHERE id = ? AND unit = ?').get(receipt, unit) !== undefined;

// Step 5: the inventory and the probe receipt recorded in one transaction, against the binding
// that was probed (docs/preservation.md#probes).
function recordProbe(store: Store, args: ProbeArgs, q: ProbeRequest, snapshotDigest: string, adapterSha256: string, inventory: InventoryOutput | null, signedReceipt: SignedProbe | null, rows: ProbeResultRow[]): ProbeFlowResult {
  const unitId = q.unit.unitId;
  return mutate(store, args.now, (tx) => {
    const now = getPreservation(tx.db, unitId);
    if (now === null || now.version !== q.binding.version) fail('unit_scope_moved', [unitId]);
    if (inventory !== null) {
      tx.append('surface_inventory', unitId, {
        unit: unitId,
        snapshot_digest: snapshotDigest,
        adapter_sha256: adapterSha256,
        entries: inventory.surfaces.map((x) => ({ entry: x.entry, kind: x.kind })),
        recorded_at: tx.now,
      });
    }
    // The same probe on the same snapshot within one second signs byte-identical statements (Ed25519
    // is deterministic): that receipt is one fact, recorded once (docs/preservation.md#probes).
    if (signedReceipt !== null && !probeReceiptRecorded(tx.db, unitId, signedReceipt.receipt)) {
      tx.append('probe_record', unitId, { unit: unitId, receipt: signedReceipt.receipt, envelope_b64: signedReceipt.envelope.toString('base64'), recorded_at: tx.now });
    }
    return { unit: unitId, phase: args.phase, snapshotDigest, inventory: inventory?.surfaces.length ?? null, probes: rows };
  });
}
