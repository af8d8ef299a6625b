// Fixtures of the gate and status tests: a real repository, real keys, a real store made by the
// built CLI (init, unit create, writer register, review-challenge, lease, unit bind), receipts made
// at store level exactly as the runner makes them (helpers/store-receipts.ts), and the built CLI's
// `status` and `gate` as child processes. A finished story can be cloned (state directory and
// repository copied) so each refusal test tampers with its own copy.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { digestOf } from '../src/core/canonical.js';
import { ROLES } from '../src/core/policy.js';
import { jsonOut, type CliResult } from './helpers/cli.js';
import { makeTempRepo } from './helpers/git-repo.js';
import { recordReceipt, type RecordedReceipt, type ReceiptOptions } from './helpers/store-receipts.js';
import { assertNoSecrets, contractDoc, gov, govOk, makeKeys, makeWorld, policyDoc, setupUnit, storeDigest, tempDir, writeJsonFile, type Keys, type World } from './state-helpers.js';

export const SESSION = 'agent-1';

export interface Story {
  readonly w: World;
  readonly unit: string;
  readonly policyDigest: string;
  /** Baseline commit (the planning state's tree). */
  readonly baseline: string;
  /** The commit holding the reviewed change (set by `implement`). */
  subject: string;
  readonly receipts: RecordedReceipt[];
}

export function policyDigestOf(w: World): string {
  return digestOf(JSON.parse(readFileSync(w.policyFile, 'utf8')));
}

/** The contract with both directives done (pure progress, docs/contract.md#scope-history: binds without authority). */
export function doneContract(): Record<string, unknown> {
  const doc = contractDoc({ state: 'done' }) as { directives: { state: string }[] };
  for (const d of doc.directives) d.state = 'done';
  return doc;
}

export interface StoryOptions {
  readonly policy?: Record<string, unknown>;
  readonly keys?: Keys;
}

/** The issue-test policy with planning REQUIRED, as docs/policy.md#policy-and-trust-root's default has it (the issue tests make
 * planning optional so they can take leases without sealing planning first). */
export function planningRequiredPolicy(keys: Keys): Record<string, unknown> {
  const doc = policyDoc(keys);
  const stages = doc.stages as Record<string, Record<string, unknown>>;
  return { ...doc, stages: { ...stages, planning: { ...stages.planning, required: true } } };
}

export function newStory(o: StoryOptions = {}): Story {
  const keys = o.keys ?? makeKeys();
  const w = makeWorld({ policy: o.policy ?? planningRequiredPolicy(keys), keys });
  const unit = setupUnit(w, SESSION);
  return { w, unit, policyDigest: policyDigestOf(w), baseline: w.baseline, subject: w.baseline, receipts: [] };
}

export function challenge(s: Story, stage: string, slot: string): string {
  return govOk(s.w, ['review-challenge', '--unit', s.unit, '--writer-session', SESSION, '--stage', stage, '--slot', slot]).challenge_id as string;
}

/** One receipt for one slot: a real challenge, then claim + signed receipt at store level. */
export function review(s: Story, stage: string, slot: string, o: ReceiptOptions = {}): RecordedReceipt {
  const r = recordReceipt(s.w.home, challenge(s, stage, slot), s.w.keys, o);
  s.receipts.push(r);
  return r;
}

/** `n` CLEAN rounds of a stage: one receipt per slot per round. */
export function rounds(s: Story, stage: 'planning' | 'integration' | 'development', n: number): RecordedReceipt[] {
  const slots = stage === 'development' ? ['coverage'] : [...ROLES];
  const out: RecordedReceipt[] = [];
  for (let i = 0; i < n; i++) for (const slot of slots) out.push(review(s, stage, slot));
  return out;
}

/** The writer's change under a lease: files written, lease released (work_revision + 1), committed, contract bound done. */
export function implement(s: Story): void {
  const lease = govOk(s.w, ['lease', 'acquire', '--unit', s.unit, '--writer-session', SESSION]).lease as string;
  s.w.repo.write('src/export.ts', 'export function toCsv(rows: string[]): string { return rows.join("\\n"); }\n');
  s.w.repo.write('test/export.test.ts', "import { toCsv } from '../src/export';\n");
  s.w.repo.write('src/json.ts', 'export const toJson = JSON.stringify;\n');
  govOk(s.w, ['lease', 'release', '--lease', lease, '--writer-session', SESSION]);
  s.subject = s.w.repo.commitAll('implement the export');
  const file = writeJsonFile(join(s.w.dir, 'contract-done.json'), doneContract());
  govOk(s.w, ['unit', 'bind', '--unit', s.unit, '--contract', file]);
}

/** A story up to RELEASE_ELIGIBLE: planning rounds, the change, development and integration rounds. */
export function eligibleStory(o: StoryOptions = {}): Story {
  const s = newStory(o);
  rounds(s, 'planning', 2);
  implement(s);
  rounds(s, 'development', 2);
  rounds(s, 'integration', 2);
  return s;
}

export interface GateCall {
  readonly unit?: string | null;
  readonly trust?: string | null;
  readonly policyDigest?: string | null;
  readonly subject?: string | null;
  readonly extra?: readonly string[];
  readonly home?: string;
}

/** `governed gate --json` with the story's anchors unless overridden (null leaves one out). */
export function gate(s: Story, c: GateCall = {}): CliResult {
  const args = ['gate'];
  const put = (flag: string, v: string | null | undefined, dflt: string): void => {
    if (v === null) return;
    args.push(flag, v ?? dflt);
  };
  put('--unit', c.unit, s.unit);
  put('--trust', c.trust, s.w.trustFile);
  put('--policy-digest', c.policyDigest, s.policyDigest);
  put('--subject', c.subject, s.subject);
  args.push(...(c.extra ?? []), '--json');
  return gov(c.home === undefined ? s.w : { ...s.w, home: c.home }, args);
}

export interface GateJson {
  schemaVersion: number;
  decision: 'ALLOW' | 'DENY';
  exit: number;
  state: string | null;
  unit: string | null;
  trustMode: string;
  subject: { commit: string | null; manifestDigest: string | null };
  policyDigest: string | null;
  trustDigest: string | null;
  gateTrustDigest: string | null;
  evaluatedAt: string;
  reasons: { code: string; ids: string[] }[];
  preservationWaiver: string | null;
  current: Record<string, string> | null;
  reliedOn: { receipts: string[]; authorities: string[] } | null;
  attestation: { path: string; payloadDigest: string } | null;
  error: { code: string; exit: number; message: string; ids: string[] } | null;
}

export function gateJson(r: CliResult): GateJson {
  return jsonOut(r) as unknown as GateJson;
}

/**
 * A refusal: exit code and error code as expected, never 0, one decision object with DENY, the
 * store unchanged, no secret in the output.
 */
export function expectGateRefused(s: Story, c: GateCall, code: string, exit: number, home = c.home ?? s.w.home): GateJson {
  const before = storeDigestAt(home);
  const r = gate(s, c);
  const d = gateJson(r);
  expect({ exit: r.code, code: d.error?.code }).toEqual({ exit, code });
  expect(d.exit).toBe(exit);
  expect(d.decision).toBe('DENY');
  expect(d.state).toBeNull();
  expect(r.stderr).toContain(code);
  assertNoSecrets(r);
  expect(storeDigestAt(home)).toBe(before);
  return d;
}

export function storeDigestAt(home: string): string | null {
  try {
    return storeDigest({ home } as World);
  } catch {
    return null;
  }
}

/** Copy the story's state directory (cp -a keeps modes) for a test that edits it. */
export function cloneHome(s: Story): string {
  const dir = tempDir('governed-gate-clone-');
  const home = join(dir, 'state');
  execFileSync('/bin/cp', ['-a', s.w.home, home]);
  return home;
}

/** `governed status --json` in the story's repository. */
export function status(s: Story, home = s.w.home): CliResult {
  return gov({ ...s.w, home }, ['status', '--unit', s.unit, '--json']);
}

export { makeTempRepo };
