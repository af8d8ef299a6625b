// The decision over a unit's loaded facts (docs/decision.md#the-rules-in-short): one place that turns the facts `status` and
// `gate` load into the pure rules' input, so the two commands can never judge the same state
// differently. Preservation is not built (NO_PRESERVATION) and the trust mode is co-located (docs/threat-model.md#trust-modes).
import { CONTROL_REGISTRY, decide, type Decision, type PreservationFact, type StateDigests } from '../../core/decision/index.js';
import type { Policy } from '../../core/policy.js';
import { decisionTrustMode } from '../../core/decision/delivery.js';
import { directiveFacts, NO_PRESERVATION } from './directives.js';
import type { UnitFacts } from './facts.js';
import type { UnitScope } from './unit-state.js';

export function decideUnit(args: {
  readonly unit: string;
  readonly now: number;
  readonly policy: Policy;
  readonly trustDigest: string;
  readonly current: StateDigests;
  readonly facts: UnitFacts;
  readonly scope: UnitScope;
  /** The preservation check's fact (flows/preservation/fact.ts); none bound: NO_PRESERVATION. */
  readonly preservation?: PreservationFact;
}): Decision {
  const { facts } = args;
  return decide({
    unit: args.unit,
    now: args.now,
    policy: args.policy,
    trustDigest: args.trustDigest,
    current: args.current,
    receipts: facts.receipts.map((r) => r.fact),
    abortedRuns: facts.abortedRuns,
    authorities: facts.authorities.map((a) => a.fact),
    resets: facts.resets,
    trustMode: decisionTrustMode(facts.receipts.map((r) => r.fact), args.preservation?.coLocatedProbeReceipts ?? []),
    openLeases: facts.openLeases.map((l) => ({ leaseId: l.leaseId, expiresAt: l.expiresAt })),
    directives: directiveFacts(args.scope.contract),
    preservation: args.preservation ?? NO_PRESERVATION,
    controls: CONTROL_REGISTRY,
  });
}
