// The decision modules are pure (docs/architecture.md: no I/O, no clock) and lean (docs/gate.md bench:
// no zod/yaml/execa on the gate path). Their local vocabularies must equal the sources of truth.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTROL_NAMES, CONTROL_REGISTRY, STAGE_ORDER } from '../src/core/decision/index.js';
import { DISPOSAL_OPERATION } from '../src/core/contract/tombstones.js';
import { DIRECTIVE_STATES } from '../src/core/contract/schema.js';
import { KNOWN_CONTROLS } from '../src/core/policy.js';
import { STAGES } from '../src/core/receipt-predicate.js';
import { DECISION_REASONS } from '../src/core/error-codes/decision.js';
import { FOUNDATION_REASONS } from '../src/core/error-codes/foundation.js';
import { REPO_ROOT } from './helpers/cli.js';

const DIR = join(REPO_ROOT, 'src', 'core', 'decision');
const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));

/** Runtime imports (type-only imports are erased and cost nothing at run time). */
function runtimeImports(source: string): string[] {
  return [...source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1] as string);
}

describe('decision modules', () => {
  it('exist and are all checked', () => {
    expect(files).toEqual(
      expect.arrayContaining(['controls.ts', 'delivery.ts', 'history.ts', 'index.ts', 'planning.ts', 'streak.ts', 'sufficient.ts', 'types.ts', 'validate-input.ts', 'vocabulary.ts']),
    );
  });

  it('the import scanner sees runtime imports and skips type-only ones', () => {
    expect(runtimeImports("import type { A } from './types.js';\nimport { b } from '../errors.js';\nexport { c } from './x.js';")).toEqual([
      '../errors.js',
      './x.js',
    ]);
    expect(runtimeImports(readFileSync(join(DIR, 'delivery.ts'), 'utf8')).length).toBeGreaterThan(5);
  });

  it.each(files)('%s imports only pure, lean modules at run time', (file) => {
    const source = readFileSync(join(DIR, file), 'utf8');
    const allowed = new Set([
      '../canonical.js',
      '../contract/ids.js',
      '../ids.js',
      '../contract/tombstones.js',
      '../contract/vocabulary.js',
      '../review-vocabulary.js',
      '../errors.js',
      '../error-codes/decision.js',
      './controls.js',
      './delivery.js',
      './history.js',
      './planning.js',
      './streak.js',
      './sufficient.js',
      './types.js',
      './validate-input.js',
      './vocabulary.js',
      './incident-lift.js',
    ]);
    for (const spec of runtimeImports(source)) expect(allowed.has(spec), `${file} imports ${spec}`).toBe(true);
    expect(source).not.toMatch(/\bDate\b|performance\.now|process\.|hrtime|Math\.random|node:fs|node:child_process|better-sqlite3/);
  });

  it('the modules they import at run time pull no schema library', () => {
    for (const rel of ['canonical.ts', 'contract/ids.ts', 'contract/tombstones.ts', 'contract/relations.ts', 'contract/vocabulary.ts', 'review-vocabulary.ts', 'errors.ts']) {
      const source = readFileSync(join(REPO_ROOT, 'src', 'core', rel), 'utf8');
      for (const spec of runtimeImports(source)) expect(spec, `${rel} imports ${spec}`).not.toMatch(/^(zod|yaml|execa)$/);
    }
  });
});

describe('local vocabularies equal their sources of truth', () => {
  it('stages: the very list of the one vocabulary', () => expect(STAGE_ORDER).toBe(STAGES));
  it('controls: the very list of the one vocabulary', () => {
    expect(CONTROL_NAMES).toBe(KNOWN_CONTROLS);
    expect(Object.keys(CONTROL_REGISTRY).sort()).toEqual([...KNOWN_CONTROLS].sort());
  });
  it('every control has its control_pending reason', () => {
    for (const name of KNOWN_CONTROLS) expect(DECISION_REASONS).toHaveProperty([`control_pending:${name}`]);
  });
  it('directive states the validator accepts are the contract’s own list, not a copy', () => {
    const source = readFileSync(join(DIR, 'validate-input.ts'), 'utf8');
    expect(source).toMatch(/import \{ DIRECTIVE_STATES \} from '\.\.\/contract\/vocabulary\.js';/);
    for (const state of DIRECTIVE_STATES) expect(source).not.toContain(`'${state}'`);
    expect(Object.keys(DISPOSAL_OPERATION).sort()).toEqual(['abandoned', 'deferred', 'superseded']);
  });
  it('the foundation reason codes moved to the decision table', () => {
    for (const code of ['streak_incomplete', 'lease_active', 'veto_standing']) {
      expect(DECISION_REASONS).toHaveProperty([code]);
      expect(FOUNDATION_REASONS).not.toHaveProperty([code]);
    }
  });
});
