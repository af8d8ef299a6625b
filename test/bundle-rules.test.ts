// The review bundle's one definition on governed's side (src/core/bundle/schema.ts, the zod/mini
// schema, and src/core/bundle/rules.ts, the rules it cannot state): a real bundle built by governed
// parses and keeps every rule, and each rule refuses exactly the one defect it names, with the
// same mutations the pinned coverage reviewer is attacked with (test/reviewer-coverage-malformed),
// which bundles these very two definitions.
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleSchema } from '../src/core/bundle/schema.js';
import { bundleRuleViolation } from '../src/core/bundle/rules.js';
import { bundleOf, cleanScenario, cleanup } from './reviewer-coverage-helpers.js';

afterAll(cleanup);

type Json = Record<string, any>;
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const hex = (s: string): string => createHash('sha256').update(s).digest('hex');

function clean(stage: 'development' | 'test' | 'integration' = 'development'): Json {
  return JSON.parse(bundleOf(cleanScenario(), stage, 'coverage').bytes.toString('utf8')) as Json;
}

/** The rule a value breaks, after the schema accepted it (a schema refusal fails the test). */
function ruleOf(v: Json): string | null {
  const parsed = bundleSchema.safeParse(v);
  expect(parsed.success).toBe(true);
  return parsed.success ? bundleRuleViolation(parsed.data) : 'schema';
}

describe('the bundle schema and its rules (src/core/bundle)', () => {
  // Planning bundles and the preservation section's rules: test/bundle-preservation-section.test.ts.
  it.each(['development', 'test', 'integration'] as const)('a real %s bundle parses and keeps every rule (positive control)', (stage) => {
    expect(ruleOf(clean(stage))).toBeNull();
  });

  const cases: [string, string, (b: Json) => void][] = [
    ['view.included out of order', 'view_order', (b) => void b.view.included.reverse()],
    ['a section both included and withheld', 'view_overlap', (b) => void b.view.withheld.push(b.view.included[0])],
    ['an included section that is absent', 'view_sections', (b) => void delete b.sections[b.view.included[0]]],
    ['a source digest not of its bytes', 'source_digest', (b) => void (b.sections.sources[0].digest = `sha256:${'0'.repeat(64)}`)],
    ['non-canonical base64 (padding bits set)', 'source_digest', (b) => {
      const s = b.sections.sources[0];
      s.bytes_b64 = 'QR==';
      s.digest = `sha256:${createHash('sha256').update(Buffer.from('QR==', 'base64')).digest('hex')}`;
      s.atoms = [];
    }],
    ['an atom span past the source bytes', 'atom_span', (b) => void (b.sections.sources[0].atoms[0].span = [0, 1_000_000])],
    ['a reversed atom span', 'atom_span', (b) => void (b.sections.sources[0].atoms[0].span = [5, 4])],
    ['the planning contract form in a development bundle', 'contract_form', (b) => {
      b.sections.contract = { form: 'planning', title: 't', directives: [] };
    }],
    ['a directive naming an implementation the contract lacks', 'contract_mapping', (b) => void b.sections.contract.directives[0].implementations.push('IMP-nope')],
    ['a change id not derived from its path', 'change_id', (b) => void (b.sections.changes[0].id = 'CHG-000000000000000000000000')],
    ['a current file sha256 not of its bytes', 'file_digest', (b) => {
      const f = b.sections.current_files.find((x: Json) => x.present);
      f.bytes_b64 = b64('other bytes');
      f.sha256 = hex('not those bytes');
    }],
    ['a coverage list unsorted', 'coverage_order', (b) => void b.coverage.atoms.reverse()],
    ['a coverage list with a duplicate', 'coverage_order', (b) => void b.coverage.directives.push(b.coverage.directives.at(-1))],
  ];
  it.each(cases)('%s → %s', (_name, rule, mutate) => {
    const b = clean();
    mutate(b);
    expect(ruleOf(b)).toBe(rule);
  });

  it('the schema refuses what is not the closed shape (an unknown key, an impossible date)', () => {
    const b = clean();
    b.extra = 1;
    expect(bundleSchema.safeParse(b).success).toBe(false);
    const c = clean();
    expect(c.sections.scope_history?.length).toBeGreaterThan(0);
    c.sections.scope_history[0].bound_at = '2026-02-30T00:00:00Z';
    expect(bundleSchema.safeParse(c).success).toBe(false);
  });
});
