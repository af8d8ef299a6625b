// Building a review bundle (docs/bundle.md#views, docs/reviewers.md#the-reviewers-world): the stage's sections, the slot's view of them, the
// view's coverage object and digest, and the canonical bytes written to `bundles/<challenge>.json`.
// Pure. Refusals: an empty view (`bundle_view_empty`), a bundle over the policy cap
// (`bundle_too_large`, never truncated), and a bundle that breaks a rule of ./rules.ts
// (`internal_error`: governed's own inputs disagree).
//
// view digest   = digestOf({kind: 'governed/evidence-view', version: 1, stage, slot, name, included,
//                           withheld, sections, coverage})  — what was shown, independent of the challenge
// bundle digest = sha256 of the bundle file bytes (RFC 8785 of the whole bundle object)
import { canonicalBytes, digestOf, sha256Digest } from '../canonical.js';
import { fail } from '../errors.js';
import type { Stage } from '../policy.js';
import { coverageOf, isEmptySections } from './coverage.js';
import { bundleRuleViolation } from './rules.js';
import { BUNDLE_SCHEMA_ID, type Bundle, type CheckInputs, type Coverage, type SectionName, type Sections } from './schema.js';
import { buildStageSections, type SectionInputs } from './sections.js';
import { viewFor, type ViewPlan } from './views.js';

export interface BundleInput extends SectionInputs {
  readonly challengeId: string;
  readonly unit: string;
  readonly slot: string;
  /** The policy's `sandbox.max_bundle` in bytes. */
  readonly maxBytes: number;
  /** A check slot's inputs (docs/reviewers.md#check-reviewers); absent for every other reviewer. */
  readonly check?: CheckInputs | undefined;
}

export interface BuiltBundle {
  readonly bundle: Bundle;
  /** The exact file bytes (RFC 8785). */
  readonly bytes: Buffer;
  /** `sha256:` of `bytes`. */
  readonly digest: string;
  readonly viewDigest: string;
  readonly view: ViewPlan;
  readonly coverage: Coverage;
}

export function viewDigestOf(args: {
  readonly stage: Stage;
  readonly slot: string;
  readonly view: ViewPlan;
  readonly sections: Sections;
  readonly coverage: Coverage;
}): string {
  return digestOf({
    kind: 'governed/evidence-view',
    version: 1,
    stage: args.stage,
    slot: args.slot,
    name: args.view.name,
    included: args.view.included,
    withheld: args.view.withheld,
    sections: args.sections,
    coverage: args.coverage,
  });
}

function pick(all: Sections, names: readonly SectionName[]): Sections {
  const out: Record<string, unknown> = {};
  for (const n of names) if (all[n] !== undefined) out[n] = all[n];
  return out as Sections;
}

export function buildBundle(input: BundleInput): BuiltBundle {
  const all = buildStageSections(input);
  const planned = viewFor(input.stage, input.slot);
  // A section the stage lists but the inputs do not carry (preservation, when no contract is bound) is
  // neither included nor withheld: the view lists what this bundle actually had.
  const has = (n: SectionName): boolean => all[n] !== undefined;
  const view: ViewPlan = { name: planned.name, included: planned.included.filter(has), withheld: planned.withheld.filter(has) };
  const sections = pick(all, view.included);
  if (isEmptySections(sections)) fail('bundle_view_empty', [`${input.stage}.${input.slot}`]);
  const coverage = coverageOf(sections);
  const viewDigest = viewDigestOf({ stage: input.stage, slot: input.slot, view, sections, coverage });
  const bundle: Bundle = {
    schema: BUNDLE_SCHEMA_ID,
    challenge_id: input.challengeId,
    unit: input.unit,
    stage: input.stage,
    slot: input.slot,
    view: { name: view.name, included: view.included, withheld: view.withheld, digest: viewDigest },
    sections,
    coverage,
    ...(input.check === undefined ? {} : { check: input.check }),
  };
  // The rules every reviewer applies to what it is given (./rules.ts, bundled into the pinned
  // reviewers): a bundle that breaks one would be refused by all of them after a claim, so it is an
  // internal error here, before anything is written or recorded; the id names the rule, no value.
  const rule = bundleRuleViolation(bundle);
  if (rule !== null) fail('internal_error', [`bundle_rule:${rule}`]);
  const bytes = canonicalBytes(bundle);
  if (bytes.length > input.maxBytes) fail('bundle_too_large', [`${input.stage}.${input.slot}`]);
  return { bundle, bytes, digest: sha256Digest(bytes), viewDigest, view, coverage };
}
