// The closed list of authority operations (docs/overview.md#words "authority", docs/authority.md#human-authority-records) and, per operation, what a
// record of it must name: a unit or none, IDs or none, and which of the two state digests it binds.
// docs/authority.md "State digests per operation" is the prose form of OPERATION_RULES.
import type { AuthorityOperation as ContractAuthorityOperation } from '../contract/schema.js';

export const AUTHORITY_OPERATIONS = [
  // scope decisions on a unit's request contract (docs/contract.md#scope-history, docs/contract.md#validation-rules tombstones)
  'authorize',
  'add',
  'replace',
  'supersede',
  'defer',
  'abandon',
  // the destructive dispositions of a preservation surface (docs/authority.md#human-authority-records)
  'remove',
  'disable',
  'redirect',
  'migrate',
  // lifting a block or a veto (docs/decision.md#the-rules-in-short, docs/decision.md#6-vetoes)
  'dismiss',
  'dismiss_veto',
  // replacing a pinned document (docs/policy.md#policy-and-trust-root)
  'policy_update',
  'trust_update',
] as const;

export type AuthorityOperation = (typeof AUTHORITY_OPERATIONS)[number];

// Every operation a request contract can cite is an authority operation (compile-time check).
const _contractOpsAreAuthorityOps: readonly AuthorityOperation[] = [] as ContractAuthorityOperation[];
void _contractOpsAreAuthorityOps;

export type OperationClass = 'scope' | 'disposition' | 'dismissal' | 'pin';
/** `required`: a `sha256:` digest must be named; `null`: the field must be null. */
export type StateRule = 'required' | 'null';

export interface OperationRule {
  readonly class: OperationClass;
  /** Unit operations name one unit and ≥ 1 ID; pin operations name no unit and no IDs. */
  readonly unit: boolean;
  readonly stateBefore: StateRule;
  readonly stateAfter: StateRule;
  /** One fixed line shown to the human who signs (never a value). */
  readonly meaning: string;
}

const scope = (meaning: string): OperationRule => ({ class: 'scope', unit: true, stateBefore: 'required', stateAfter: 'required', meaning });
const disposition = (meaning: string): OperationRule => ({
  class: 'disposition',
  unit: true,
  stateBefore: 'null',
  stateAfter: 'required',
  meaning,
});
const dismissal = (meaning: string): OperationRule => ({
  class: 'dismissal',
  unit: true,
  stateBefore: 'required',
  stateAfter: 'null',
  meaning,
});
const pin = (meaning: string): OperationRule => ({ class: 'pin', unit: false, stateBefore: 'required', stateAfter: 'required', meaning });

export const OPERATION_RULES: Readonly<Record<AuthorityOperation, OperationRule>> = {
  authorize: scope('authorize a change of the scope of this unit that narrows it (edits or removes the listed items)'),
  add: scope('add the listed items to the scope of this unit'),
  replace: scope('replace the listed items of the scope of this unit'),
  supersede: scope('mark the listed directive superseded and dispose of everything the listed IDs name'),
  defer: scope('defer the listed directive and dispose of everything the listed IDs name'),
  abandon: scope('abandon the listed directive and dispose of everything the listed IDs name'),
  remove: disposition('REMOVE the listed existing product surfaces (destructive)'),
  disable: disposition('DISABLE the listed existing product surfaces (destructive)'),
  redirect: disposition('REDIRECT the listed existing product surfaces elsewhere (destructive)'),
  migrate: disposition('MIGRATE the listed existing product surfaces (destructive)'),
  dismiss: dismissal('dismiss the listed DIRTY or ABORTED review results so they stop blocking their slot'),
  dismiss_veto: dismissal('dismiss the listed veto (the receipt and its refs) so it stops standing'),
  policy_update: pin('replace the pinned POLICY by the document with the state-after digest; every streak restarts'),
  trust_update: pin('replace the pinned TRUST ROOT by the document with the state-after digest; every streak restarts'),
};

export function isAuthorityOperation(value: string): value is AuthorityOperation {
  return (AUTHORITY_OPERATIONS as readonly string[]).includes(value);
}

/** The pin kind a pin operation replaces. */
export function pinKindOf(op: AuthorityOperation): 'policy' | 'trust' | null {
  if (op === 'policy_update') return 'policy';
  if (op === 'trust_update') return 'trust';
  return null;
}
