// Fixtures of the decision tests: a real loaded policy (loadPolicy), real state digests (the docs/contract.md#the-states-a-receipt-is-judged-against
// functions over the docs/contract.md#the-request-contract example contract), and a Scenario that appends facts the way the log
// would (one increasing seq, a clock that moves forward) and builds the decision input from them.
import { sha256Digest, sha256Hex } from '../src/core/canonical.js';
import { contentDigest, planningStateDigest, workStateDigest } from '../src/core/contract/digests.js';
import type { Contract } from '../src/core/contract/schema.js';
import { loadPolicy, ROLES, type Policy, type PolicyDocument } from '../src/core/policy.js';
import type {
  AbortedRunFact,
  AuthorityFact,
  ControlRegistry,
  DecisionInput,
  DirectiveFact,
  LeaseFact,
  PreservationFact,
  ReceiptFact,
  ResetFact,
  Stage,
  StateDigests,
  TrustMode,
  VetoFinding,
} from '../src/core/decision/index.js';
import { CONTROL_REGISTRY } from '../src/core/decision/index.js';
import { specExample } from './contract-fixtures.js';

export const UNIT = `UNIT-${'1'.repeat(32)}`;
export const T0 = 1_780_000_000; // 2026-05-28, whole seconds
const hex = (label: string): string => sha256Hex(label);
const roles = Object.fromEntries(ROLES.map((r) => [r, 'coverage']));

/** A valid policy document (docs/policy.md#policy-and-trust-root shape); `patch` replaces top-level fields. */
export function policyDoc(patch: Partial<PolicyDocument> = {}): PolicyDocument {
  const cred = (name: string) => ({ key_id: hex(`key-${name}`), attestor_sha256: [hex(`att-${name}`)], attestor_config_sha256: [hex(`cfg-${name}`)] });
  return {
    kind: 'governed/policy',
    version: 1,
    trust_mode: 'co-located',
    accept_co_located: true,
    challenge_ttl: '10m',
    max_runs_per_content: 12,
    product_roots: ['.'],
    exclude: ['.governed'],
    preservation: { waived: 'no preservation adapter for this project yet' },
    stages: {
      planning: { required: true, streak: 2, slots: { ...roles } },
      development: { required: true, streak: 2, slots: { lint: 'coverage', logic: 'coverage' } },
      integration: { required: true, streak: 2, slots: { ...roles } },
    },
    reviewers: { coverage: { sha256: hex('reviewer'), interpreter: '/usr/bin/node', env: {} } },
    sandbox: {
      bwrap_sha256: [hex('bwrap')],
      profile_sha256: [hex('profile')],
      seccomp_sha256: [hex('seccomp')],
      uid: 64500,
      timeout: '120s',
      memory: '2GiB',
      max_output: '1MiB',
      max_bundle: '64MiB',
    },
    credentials: { reviewer: cred('reviewer'), runner: cred('runner'), gate: cred('gate'), log: cred('log') },
    controls: [],
    ...patch,
  };
}

export function policy(patch: Partial<PolicyDocument> = {}): Policy {
  return loadPolicy(structuredClone(policyDoc(patch)));
}

export const TRUST_A = sha256Digest('trust root A');
export const TRUST_B = sha256Digest('trust root B');

/** What a unit's state is made of (docs/contract.md#the-states-a-receipt-is-judged-against); each field changes exactly the digests it feeds. */
export interface StateSpec {
  /** Bytes of SRC-1 (changes planning, content and work state). */
  readonly source?: string;
  /** Contract title (a contract edit: changes planning, content and work state). */
  readonly title?: string;
  /** Name of the workspace manifest (changes content and work state, not planning). */
  readonly workspace?: string;
  /** work_revision (changes only the work state). */
  readonly revision?: number;
}

const EXAMPLE = specExample();
const BASE_SOURCE = new TextDecoder().decode(EXAMPLE.bytes);
const stateCache = new Map<string, StateDigests>();

/** Real digests (docs/contract.md#the-states-a-receipt-is-judged-against) of the example unit in the described state (memoised: pure). */
export function stateOf(spec: StateSpec = {}): StateDigests {
  const key = JSON.stringify([spec.source, spec.title, spec.workspace, spec.revision]);
  const hit = stateCache.get(key);
  if (hit !== undefined) return hit;
  const computed = computeState(spec);
  stateCache.set(key, computed);
  return computed;
}

function computeState(spec: StateSpec): StateDigests {
  const contract: Contract = { ...EXAMPLE.contract, title: spec.title ?? 'Add export command' };
  const planning = planningStateDigest({
    sourceDigests: new Map([['SRC-1', sha256Digest(spec.source ?? BASE_SOURCE)]]),
    contract,
    baseline: { commit: 'a'.repeat(40), tree: 'b'.repeat(40) },
  });
  const content = contentDigest({ planningStateDigest: planning, contract, workspaceDigest: sha256Digest(spec.workspace ?? 'workspace A') });
  return { planningStateDigest: planning, contentDigest: content, workStateDigest: workStateDigest({ contentDigest: content, workRevision: spec.revision ?? 0 }) };
}

export const veto = (...refs: string[]): VetoFinding => ({ code: 'preservation_regression', class: 'preservation', severity: 'CRITICAL', refs: [...refs].sort() });

/** Appends facts in log order; `state` is the unit's current state, used unless a fact says otherwise. */
export class Scenario {
  seq = 0;
  time = T0;
  state: StateDigests = stateOf();
  policy: Policy;
  trustDigest = TRUST_A;
  trustMode: TrustMode = 'co-located';
  controls: ControlRegistry = CONTROL_REGISTRY;
  readonly receipts: ReceiptFact[] = [];
  readonly abortedRuns: AbortedRunFact[] = [];
  readonly authorities: AuthorityFact[] = [];
  readonly resets: ResetFact[] = [];
  openLeases: LeaseFact[] = [];
  directives: DirectiveFact[] = [{ id: 'DIR-1', state: 'done', tombstone: null }];
  preservation: PreservationFact = { contract: false, incidentHistory: false, unsatisfiedSurfaces: [] };
  private n = 0;

  constructor(p: Policy = policy()) {
    this.policy = p;
  }

  private next(): { seq: number; time: number } {
    this.seq += 1;
    this.time += 10;
    return { seq: this.seq, time: this.time };
  }

  /** Move the unit to another state (a bind, an edit, a lease release...). */
  moveTo(spec: StateSpec): this {
    this.state = stateOf(spec);
    return this;
  }

  receipt(
    stage: Stage,
    slot: string,
    verdict: 'CLEAN' | 'DIRTY' = 'CLEAN',
    opts: { state?: StateDigests; vetoes?: VetoFinding[]; policyDigest?: string; trustDigest?: string; receiptId?: string } = {},
  ): string {
    this.n += 1;
    const receiptId = opts.receiptId ?? sha256Digest(`receipt ${this.n}`);
    this.receipts.push({
      ...this.next(),
      receiptId,
      unit: UNIT,
      stage,
      slot,
      verdict,
      vetoes: opts.vetoes ?? [],
      ...(opts.state ?? this.state),
      policyDigest: opts.policyDigest ?? this.policy.digest,
      trustDigest: opts.trustDigest ?? this.trustDigest,
    });
    return receiptId;
  }

  /** One receipt for every slot of the stage, in slot-name order. Returns their ids. */
  round(stage: Stage, verdict: 'CLEAN' | 'DIRTY' = 'CLEAN'): string[] {
    const slots = Object.keys(this.policy.doc.stages[stage]?.slots ?? {}).sort();
    return slots.map((slot) => this.receipt(stage, slot, verdict));
  }

  rounds(stage: Stage, count: number): string[] {
    return Array.from({ length: count }, () => this.round(stage)).flat();
  }

  abort(stage: Stage, slot: string, opts: { state?: StateDigests; runId?: string } = {}): string {
    this.n += 1;
    const runId = opts.runId ?? `RUN-${sha256Hex(`run ${this.n}`).slice(0, 32)}`;
    this.abortedRuns.push({ ...this.next(), runId, unit: UNIT, stage, slot, ...(opts.state ?? this.state) });
    return runId;
  }

  authority(operation: string, ids: string[], opts: { expiresIn?: number; recordId?: string } = {}): string {
    this.n += 1;
    const pos = this.next();
    const recordId = opts.recordId ?? `REC-${sha256Hex(`record ${this.n}`).slice(0, 16)}`;
    this.authorities.push({ ...pos, recordId, unit: UNIT, operation, ids, expiresAt: pos.time + (opts.expiresIn ?? 3600) });
    return recordId;
  }

  reset(kind: 'policy_update' | 'trust_update'): void {
    this.resets.push({ ...this.next(), kind });
  }

  /** Every required stage sealed with `floor` CLEAN rounds on the current state. */
  complete(): this {
    for (const stage of ['planning', 'development', 'test', 'integration'] as const) {
      const s = this.policy.doc.stages[stage];
      if (s !== undefined) this.rounds(stage, s.streak);
    }
    return this;
  }

  input(now: number = this.time + 1): DecisionInput {
    return {
      unit: UNIT,
      now,
      policy: this.policy,
      trustDigest: this.trustDigest,
      current: this.state,
      receipts: [...this.receipts],
      abortedRuns: [...this.abortedRuns],
      authorities: [...this.authorities],
      resets: [...this.resets],
      trustMode: this.trustMode,
      openLeases: [...this.openLeases],
      directives: [...this.directives],
      preservation: this.preservation,
      controls: this.controls,
    };
  }
}
