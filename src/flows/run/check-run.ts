// A check slot's run (docs/reviewers.md#check-reviewers, docs/sandbox.md#sealed-snapshots):
//
//  before the claim  the bundle's `check` object must be exactly what the pinned policy's reviewer
//                    fixes (command, report, dependency-root path), else `check_bundle_invalid`;
//  after the claim   the workspace is sealed from the very bytes hashed (digest = the challenge's
//                    workspace digest, else drift [workspace]) and the dependency root is sealed
//                    beside it (digest = the one bound in the bundle at issuance, else drift
//                    [dependency_root]); the sandbox sees both read-only through descriptors;
//  after the run     both sealed trees are re-verified in full (`snapshot_altered`), and the
//                    adapter's no-verdict statuses become their codes (ABORTED, never CLEAN).
import { closeSync, lstatSync, readdirSync } from 'node:fs';
import { getRun, type Store } from '../../store/index.js';
import { join } from 'node:path';
import { fail, type ErrorCode } from '../../core/errors.js';
import { checkInputsSchema, type CheckInputs } from '../../core/bundle/schema.js';
import type { ScopeOptions } from '../../workspace/index.js';
import { makeSealRoot, openSealedDir, removeSealed, SEAL_PARENT, sealDirectory, sealWorkspace, verifySealed, type SealedTree } from '../../workspace/snapshot.js';
import type { PolicyReviewer } from './pin.js';
import { staticProfileSha256 } from '../../../runner/sandbox/profile.js';
import { RUN_ID_RE } from '../../core/ids.js';

export interface CheckPlan {
  readonly inputs: CheckInputs;
}

/** Before the claim: the bundle's check inputs agree with the policy reviewer (or neither has any). */
export function checkPlanOf(reviewer: PolicyReviewer, bundleBytes: Buffer): CheckPlan | null {
  let raw: unknown;
  try {
    raw = (JSON.parse(bundleBytes.toString('utf8')) as { check?: unknown }).check;
  } catch {
    return fail('check_bundle_invalid', [reviewer.name]);
  }
  const cfg = reviewer.check;
  if (cfg === undefined) {
    if (raw !== undefined) fail('check_bundle_invalid', [reviewer.name]);
    return null;
  }
  const parsed = checkInputsSchema.safeParse(raw);
  if (!parsed.success) return fail('check_bundle_invalid', [reviewer.name]);
  const i = parsed.data;
  const sameCommand = i.command.length === cfg.command.length && i.command.every((a, k) => a === cfg.command[k]);
  if (!sameCommand || i.report !== (cfg.report ?? 'exit-code') || (i.dependency_root?.path ?? null) !== (cfg.dependency_root ?? null)) {
    fail('check_bundle_invalid', [reviewer.name]);
  }
  return { inputs: i };
}

/**
 * Before the claim: a check slot runs under the check profile, whose digest the policy must list
 * (docs/sandbox.md#the-check-profile-check-reviewers). Refused now, with the store unchanged, rather than after
 * the claim, where the refusal would be an ABORTED run blocking the slot until the content changes.
 */
export function assertCheckProfileAllowed(profileSha256: readonly string[]): void {
  if (!profileSha256.includes(staticProfileSha256('check'))) fail('sandbox_profile_not_allowlisted', ['check']);
}

export interface SealedCheck {
  readonly root: string;
  readonly snapshot: SealedTree;
  readonly dependencies: SealedTree | null;
  readonly snapshotFd: number;
  readonly dependencyFd: number | null;
}

/** After the claim: seal the workspace and the dependency root, open their descriptors. */
export async function sealForCheck(o: {
  readonly repo: string;
  readonly scope: ScopeOptions;
  readonly runId: string;
  readonly workspaceDigest: string;
  readonly plan: CheckPlan;
  /** Where the seal root is made (default the sticky /tmp; the daemon's `<dir>/sealed`, docs/runnerd.md#check-slots-on-the-sandbox-host). */
  readonly parent?: string | undefined;
}): Promise<SealedCheck> {
  const dep = o.plan.inputs.dependency_root;
  const root = makeSealRoot(o.runId, o.parent);
  try {
    const snapshot = await sealWorkspace({
      repo: o.repo,
      scope: o.scope,
      into: join(root, 'snapshot'),
      expectedDigest: o.workspaceDigest,
      mountPoints: dep === null ? [] : [dep.path],
    });
    const dependencies =
      dep === null ? null : sealDirectory({ source: join(o.repo, dep.path), into: join(root, 'dependencies'), expectedDigest: dep.digest, driftId: 'dependency_root' });
    const snapshotFd = openSealedDir(snapshot);
    const dependencyFd = dependencies === null ? null : openSealedDir(dependencies);
    return { root, snapshot, dependencies, snapshotFd, dependencyFd };
  } catch (e) {
    removeSealed(root);
    throw e;
  }
}

/** Close the descriptors (idempotent) and verify both trees hold exactly what was sealed. */
export function closeAndVerify(s: SealedCheck): void {
  closeFds(s);
  verifySealed(s.snapshot);
  if (s.dependencies !== null) verifySealed(s.dependencies);
}

const closed = new WeakSet<SealedCheck>();
function closeFds(s: SealedCheck): void {
  if (closed.has(s)) return;
  closed.add(s);
  for (const fd of [s.snapshotFd, s.dependencyFd]) {
    if (fd === null) continue;
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
}

/** Remove everything sealed for the run. Never throws. */
export function removeSealedCheck(s: SealedCheck): void {
  closeFds(s);
  removeSealed(s.root);
}

/** A run's seal root (../../workspace/snapshot.ts makeSealRoot), its run id the one format of src/core/ids.ts. */
const SEALED_RE = new RegExp(`^governed-sealed-(${RUN_ID_RE.source.slice(1, -1)})-[A-Za-z0-9]{6}$`);

/**
 * Remove the sealed trees a killed runner left behind (`<parent>/governed-sealed-<run>-*`, parent /tmp
 * unless the daemon's sealed directory): only
 * directories owned by this process's uid whose run is one of THIS store's and has ended (a run
 * still claimed keeps its trees). Like `sweepScratch`, run before each review-run. Never throws.
 */
export function sweepSealed(store: Store, parent: string = SEAL_PARENT): number {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return 0;
  }
  const uid = process.geteuid?.() ?? -1;
  let removed = 0;
  for (const name of names) {
    const m = SEALED_RE.exec(name);
    if (m === null) continue;
    try {
      const st = lstatSync(join(parent, name));
      if (!st.isDirectory() || st.uid !== uid) continue;
      const run = getRun(store.db, m[1] as string);
      if (run === null || run.status === 'claimed') continue;
      removeSealed(join(parent, name));
      removed++;
    } catch {
      // gone meanwhile
    }
  }
  return removed;
}

/** A check adapter's no-verdict statuses (runner/reviewers/src/check/run.ts) and their codes. */
const ADAPTER_STATUS: Readonly<Record<number, ErrorCode>> = {
  80: 'check_command_failed',
  81: 'check_command_timeout',
  82: 'check_output_unparsable',
};

export function adapterStatusCode(exitCode: number | null): ErrorCode | null {
  return exitCode === null ? null : (ADAPTER_STATUS[exitCode] ?? null);
}
