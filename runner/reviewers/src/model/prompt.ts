// The model reviewer's prompt (docs/reviewers.md "The model reviewer"): the common envelope of the
// review procedure — context, the stage's or role's lens with its checks, the evidence of THIS view
// only, and a mandatory JSON answer format whose vocabulary is closed (codes, classes, severities)
// and whose references must be IDs listed in the prompt. Built only from the parsed bundle: a section
// the view withholds is not in the bundle at all, so it cannot reach the model; the prompt names it
// as "withheld for independence", never its content.
import type { Bundle, SectionName } from '../coverage/bundle.js';
import { COVERAGE_KINDS, SECTION_NAMES } from '../coverage/bundle.js';
import { FINDING_CLASSES, FINDING_CODES, SEVERITIES } from '../coverage/findings.js';

interface Lens {
  readonly name: string;
  readonly checks: string;
}

/** Lenses per stage (development, test) and per role (planning, integration). */
const STAGE_LENSES: Readonly<Record<'development' | 'test', readonly Lens[]>> = {
  development: [
    { name: 'correctness', checks: 'logic matches intent; null checks on external inputs; off-by-one in loops; error paths handled; no silent failures' },
    { name: 'completeness', checks: 'all planned items implemented; every directive has implementation mappings; no TODO stubs in production paths' },
    { name: 'consistency', checks: 'naming matches project conventions; import paths correct; no conflicts with existing code; no unintended side effects' },
    { name: 'req_to_code', checks: 'each directive maps to specific code; acceptance criteria traceable to the implementation' },
  ],
  test: [
    { name: 'test_validity', checks: 'tests import and call the changed code; assertions execute after the code under test runs; mocks do not replace the logic being tested' },
    { name: 'coverage', checks: 'every directive has test evidence; negative and edge cases exist' },
    { name: 'assertion_quality', checks: 'assertions check specific values; no assertion that always passes' },
    { name: 'req_to_test', checks: 'each directive maps to a specific test' },
  ],
};

const ROLE_LENSES: Readonly<Record<string, { readonly question: string; readonly lenses: Readonly<Record<'planning' | 'integration', Lens>> }>> = {
  source_fidelity: {
    question: 'What did the user actually authorize, constrain, and preserve?',
    lenses: {
      planning: { name: 'source_fidelity', checks: 'independently extract obligations from the original sources before any derived requirement; every human directive is covered and every derived requirement is entailed' },
      integration: { name: 'source_to_release', checks: 'original source to release is complete, with no AI-derived authority substituted for a human one' },
    },
  },
  baseline_preservation: {
    question: 'What existed and was reachable before the change?',
    lenses: {
      planning: { name: 'preservation_setup', checks: 'the baseline is immutable; every product surface has a disposition; destructive dispositions carry exact user authority' },
      integration: { name: 'baseline_preservation', checks: 'every preserved surface still matches baseline behaviour; every destructive change carries exact authority' },
    },
  },
  implementation_test: {
    question: 'What changed, and do tests exercise the real product path?',
    lenses: {
      planning: { name: 'design_coherence', checks: 'no internal contradictions; dependencies identified; scope bounded; the approach is feasible' },
      integration: { name: 'cross_stage_consistency', checks: 'plan matches code; code matches tests; no contradiction between any two stages' },
    },
  },
  authority_release: {
    question: 'Is any derived interpretation acting as authority, and is release permitted?',
    lenses: {
      planning: { name: 'authority', checks: 'every disposal carries a valid authority and tombstone; no derived requirement narrows, supersedes or reverses a human directive' },
      integration: { name: 'authority_release', checks: 'incident history resolved; review evidence current; work that is not clean stays review-only' },
    },
  },
};

/** The role of a planning/integration slot, or 'standard'. */
export function roleOf(b: Bundle): string {
  return (b.stage === 'planning' || b.stage === 'integration') && Object.prototype.hasOwnProperty.call(ROLE_LENSES, b.slot) ? b.slot : 'standard';
}

export function lensesOf(b: Bundle): { readonly question: string | null; readonly lenses: readonly Lens[] } {
  const role = roleOf(b);
  if (b.stage === 'development' || b.stage === 'test') return { question: null, lenses: STAGE_LENSES[b.stage] };
  const r = role === 'standard' ? undefined : ROLE_LENSES[role];
  if (r === undefined) return { question: null, lenses: STAGE_LENSES.development };
  return { question: r.question, lenses: [r.lenses[b.stage]] };
}

/** Evidence as JSON text: file bytes are shown as UTF-8 text (what the model reads). */
function evidenceJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v: unknown) => {
      if (v !== null && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)) {
        return Buffer.from((v as { data: number[] }).data).toString('utf8');
      }
      return v;
    },
    1,
  );
}

export const SYSTEM_PROMPT =
  'You are a code-review reviewer inside a governed review pipeline. You see only the evidence view assigned to your stage and role. ' +
  'Answer with exactly one JSON object and nothing else. Never include file paths, quotes or explanations: only the closed codes and the IDs listed in the prompt.';

/** The user prompt for this bundle's view. */
export function buildPrompt(b: Bundle): string {
  const included = new Set<SectionName>(b.view.included);
  const withheld = SECTION_NAMES.filter((s) => !included.has(s));
  const { question, lenses } = lensesOf(b);
  const ids = [...new Set(COVERAGE_KINDS.flatMap((k) => b.coverage[k]))].sort();
  const lines: string[] = [
    '## Review Context',
    `Stage: ${b.stage}`,
    `Role: ${roleOf(b)}`,
    `View: ${b.view.name}`,
    `Evidence shown: ${b.view.included.join(', ') || 'none'}`,
    `Withheld for independence: ${withheld.join(', ') || 'none'}`,
    ...(question === null ? [] : [`Primary question: ${question}`]),
    '',
    '## Review Lens',
    ...lenses.flatMap((l) => [`Lens: ${l.name}`, `Checks to perform: ${l.checks}`]),
    '',
    '## Evidence',
  ];
  for (const name of b.view.included) {
    lines.push(`### ${name}`, evidenceJson((b.sections as Record<string, unknown>)[name]), '');
  }
  lines.push(
    '## Output Format (MANDATORY)',
    'Answer with exactly one JSON object: {"verdict": "CLEAN" | "DIRTY", "findings": [{"code": ..., "class": ..., "severity": ..., "refs": [...]}]}',
    'CLEAN means no findings; DIRTY means at least one finding.',
    `code: one of ${FINDING_CODES.join(', ')}`,
    `class: one of ${FINDING_CLASSES.join(', ')}`,
    `severity: one of ${SEVERITIES.join(', ')}`,
    `refs: 1 to 4 IDs, each one of: ${ids.join(', ')}`,
    'Do not write any text outside the JSON object.',
  );
  return lines.join('\n');
}
