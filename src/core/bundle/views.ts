// Which sections a stage's bundle has and which of them each slot sees (docs/bundle.md#views).
//
// Stage sections:
// - planning is built from the baseline tree and the planning view of the contract only
//   (docs/contract.md#the-states-a-receipt-is-judged-against): no workspace-derived section (`changes`, `current_files`); `prior_receipts` is present and
//   empty (no stage precedes planning);
// - development and test: every section except `prior_receipts`;
// - integration: every section.
// `preservation` (planning and integration) is present when the unit has a preservation contract bound
// (docs/bundle.md#the-preservation-section); a bundle without it lists it neither included nor withheld.
//
// Role views (planning and integration; the table of docs/bundle.md#views, "sees" column):
//   source_fidelity        sources (texts and atoms), authorities, tombstones
//   baseline_preservation  baseline_files (files and manifest), changes, preservation
//   implementation_test    contract, changes, current_files (target, implementation and evidence files)
//   authority_release      authorities, tombstones, scope_history, source_map (atom→directive IDs),
//                          preservation (contract, probes, destructive records, incident history), prior_receipts
// "The delivery state so far" of authority_release arrives with `governed status` (docs/gate.md).
// Development and test slots see the `complete` view: every section of their stage.
import { fail } from '../errors.js';
import type { Role, Stage } from '../policy.js';
import { ROLES, ROLE_STAGES } from '../policy.js';
import { SECTION_NAMES, type SectionName } from './names.js';

const STAGE_SECTIONS: Readonly<Record<Stage, readonly SectionName[]>> = {
  planning: ['sources', 'source_map', 'contract', 'authorities', 'tombstones', 'scope_history', 'baseline_files', 'preservation', 'prior_receipts'],
  development: ['sources', 'source_map', 'contract', 'authorities', 'tombstones', 'scope_history', 'changes', 'current_files', 'baseline_files'],
  test: ['sources', 'source_map', 'contract', 'authorities', 'tombstones', 'scope_history', 'changes', 'current_files', 'baseline_files'],
  // Every section (docs/bundle.md#views).
  integration: SECTION_NAMES,
};

export const ROLE_SECTIONS: Readonly<Record<Role, readonly SectionName[]>> = {
  source_fidelity: ['sources', 'authorities', 'tombstones'],
  baseline_preservation: ['baseline_files', 'changes', 'preservation'],
  implementation_test: ['contract', 'changes', 'current_files'],
  authority_release: ['authorities', 'tombstones', 'scope_history', 'source_map', 'preservation', 'prior_receipts'],
};

/** The view name of development and test slots. */
export const COMPLETE_VIEW = 'complete';

export interface ViewPlan {
  /** The role, or `complete`. */
  readonly name: string;
  /** Sections shown, in SECTION_NAMES order. */
  readonly included: SectionName[];
  /** Sections of the stage's bundle that this view withholds, in SECTION_NAMES order. */
  readonly withheld: SectionName[];
}

export function stageSections(stage: Stage): readonly SectionName[] {
  return STAGE_SECTIONS[stage];
}

function inOrder(names: Iterable<SectionName>): SectionName[] {
  const set = new Set(names);
  return SECTION_NAMES.filter((n) => set.has(n));
}

function isRole(slot: string): slot is Role {
  return (ROLES as readonly string[]).includes(slot);
}

/**
 * The view a slot of a stage gets. Role stages only have the four role slots (the policy schema
 * enforces it; anything else here is a programming error and fails closed).
 */
export function viewFor(stage: Stage, slot: string): ViewPlan {
  const available = stageSections(stage);
  if (!ROLE_STAGES.has(stage)) return { name: COMPLETE_VIEW, included: inOrder(available), withheld: [] };
  // Integration may add check slots beside its four roles (docs/reviewers.md#check-reviewers):
  // a check runs the project's command on the sealed content and sees the complete view.
  if (!isRole(slot) && stage === 'integration') return { name: COMPLETE_VIEW, included: inOrder(available), withheld: [] };
  if (!isRole(slot)) fail('internal_error', ['view_role']);
  const wanted = new Set(ROLE_SECTIONS[slot]);
  return {
    name: slot,
    included: inOrder(available.filter((s) => wanted.has(s))),
    withheld: inOrder(available.filter((s) => !wanted.has(s))),
  };
}
