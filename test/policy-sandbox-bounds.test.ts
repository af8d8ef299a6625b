// A policy that loads is a policy the sandbox accepts (docs/threat-model.md#rules-that-hold-everywhere fail closed, docs/reviewers.md#the-reviewers-world, docs/runner.md#the-run-step-by-step step 5): the
// sandbox bounds live in ONE place (src/core/sandbox-bounds.ts), read by the shared cross-field rules
// of the policy loader (src/core/policy-rules.ts) and by the sandbox (runner/sandbox/limits.ts, argv.ts).
// Each bound at its edge in BOTH loaders (same code, same field path, never the value), and a
// differential over many values: the policy loads exactly when the sandbox's own checks pass.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDurationSeconds, parseSizeBytes } from '../src/core/duration.js';
import { isGovernedError } from '../src/core/errors.js';
import { loadPolicy, type PolicyDocument } from '../src/core/policy.js';
import { SANDBOX_BOUNDS } from '../src/core/sandbox-bounds.js';
import { parseStructured } from '../src/core/strict-parse.js';
import { validateInterpreterPath } from '../runner/sandbox/argv.js';
import { DEFAULT_LIMITS, sandboxLimitsFromPolicy, validateLimits } from '../runner/sandbox/limits.js';
import { policyDoc } from './decision-fixtures.js';
import { REPO_ROOT } from './helpers/cli.js';

type Outcome = { ok: true } | { code: string; ids: readonly string[] };
function outcome(fn: () => unknown): Outcome {
  try {
    fn();
    return { ok: true };
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code, ids: e.ids };
    throw e;
  }
}

type Field = 'timeout' | 'memory' | 'max_output';
function withSandbox(field: Field, value: string): PolicyDocument {
  const d = policyDoc();
  (d.sandbox as Record<Field, string>)[field] = value;
  return d;
}
function withInterpreter(value: string): PolicyDocument {
  const d = policyDoc();
  d.reviewers.coverage = { ...d.reviewers.coverage, interpreter: value } as PolicyDocument['reviewers'][string];
  return d;
}

/** The loader's outcome. */
function loadOnce(doc: PolicyDocument): Outcome {
  return outcome(() => loadPolicy(structuredClone(doc)));
}

function expectLoads(doc: PolicyDocument, label: string): void {
  expect(loadOnce(doc), label).toEqual({ ok: true });
}
function expectRefused(doc: PolicyDocument, path: string, label: string, value: string): void {
  const o = loadOnce(doc);
  expect(o, label).toEqual({ code: 'policy_invalid', ids: [path] });
  // The field path, never the rejected value.
  if ('ids' in o) expect(o.ids.join(' ')).not.toContain(value);
}

describe('sandbox bounds at their edges, in loadPolicy', () => {
  // [field, loads at the edge, refused one unit beyond]
  const edges: readonly [Field, string, string][] = [
    // timeout: the sandbox's max is 24 h in ms; a policy counts whole seconds.
    ['timeout', '86400s', '86401s'],
    ['timeout', '1440m', '1441m'],
    ['timeout', '24h', '25h'],
    ['timeout', '1d', '2d'],
    // memory: RLIMIT_AS 16 MiB … 1024 GiB, bytes.
    ['memory', '16MiB', '16777215B'],
    ['memory', '16384KiB', '16383KiB'],
    ['memory', '1024GiB', '1025GiB'],
    ['memory', '1048576MiB', '1048577MiB'],
    // max_output: 1 B … 256 MiB.
    ['max_output', '268435456B', '268435457B'],
    ['max_output', '262144KiB', '262145KiB'],
    ['max_output', '256MiB', '257MiB'],
    ['max_output', '1B', '512MiB'],
  ];
  for (const [field, edge, over] of edges) {
    it(`sandbox.${field}: ${edge} loads, ${over} is refused (policy_invalid, sandbox.${field})`, () => {
      expectLoads(withSandbox(field, edge), edge);
      expectRefused(withSandbox(field, over), `sandbox.${field}`, over, over);
    });
  }

  it('the floors a policy cannot cross: a 1 s timeout (≥ the 100 ms sandbox floor) and a 1 B output load', () => {
    // A policy duration is ≥ 1 s (src/core/duration.ts), so the sandbox's 100 ms floor is unreachable:
    // no sub-100 ms timeout can be written. `0s` / `0B` are not durations/sizes at all.
    expect(parseDurationSeconds('1s') * 1000).toBeGreaterThanOrEqual(SANDBOX_BOUNDS.timeoutMs[0]);
    expectLoads(withSandbox('timeout', '1s'), '1s');
    expectLoads(withSandbox('max_output', '1B'), '1B');
    expect(loadOnce(withSandbox('timeout', '0s'))).toMatchObject({ code: 'policy_invalid' });
    expect(loadOnce(withSandbox('max_output', '0B'))).toMatchObject({ code: 'policy_invalid' });
  });

  it('sizes far beyond a safe integer are refused, not wrapped (999999999GiB)', () => {
    expectRefused(withSandbox('memory', '999999999GiB'), 'sandbox.memory', 'memory', '999999999');
    expectRefused(withSandbox('max_output', '999999999GiB'), 'sandbox.max_output', 'max_output', '999999999');
    expectRefused(withSandbox('timeout', '999999999d'), 'sandbox.timeout', 'timeout', '999999999');
  });
});

describe('reviewer interpreter: the sandbox segment rule at load', () => {
  const refused = [
    '/usr/bin/./node', '/usr/./bin/node', '/usr/bin/.', '/usr/bin//node', '/usr//bin/node', '/usr/bin/',
    '/usr/-bin/node', '/usr/bin/-node', '/usr/bin/--node', '/usr/.', '/usr/-',
  ];
  for (const p of refused) {
    it(`${p} → policy_invalid reviewers.coverage.interpreter`, () => {
      expectRefused(withInterpreter(p), 'reviewers.coverage.interpreter', p, p);
    });
  }
  it('accepted shapes still load: dots and dashes inside a segment, a single-segment path', () => {
    for (const p of ['/usr/bin/node', '/usr/bin/python3.12', '/usr/lib/node-v20/bin/node', '/usr/bin/.hidden', '/usr/bin/a-', '/usr/x', '/usr/bin/node..', '/usr/bin/...']) {
      expectLoads(withInterpreter(p), p);
    }
  });
  it('the reviewer name is in the path, not the interpreter', () => {
    const d = policyDoc();
    d.reviewers['lint-x'] = { ...d.reviewers.coverage, interpreter: '/usr/bin/./node' } as PolicyDocument['reviewers'][string];
    expectRefused(d, 'reviewers.lint-x.interpreter', 'named', '/usr/bin/./node');
  });
});

describe('the loaders and the sandbox can never disagree (differential over many values)', () => {
  const sizes = (() => {
    const out = new Set<string>();
    for (const n of [1, 2, 15, 16, 17, 255, 256, 257, 1023, 1024, 1025, 16383, 16384, 16385, 262143, 262144, 262145, 1048575, 1048576, 1048577, 16777215, 16777216, 16777217, 268435455, 268435456, 268435457, 999999999]) {
      for (const u of ['B', 'KiB', 'MiB', 'GiB']) out.add(`${n}${u}`);
    }
    return [...out];
  })();
  const durations = (() => {
    const out = new Set<string>();
    for (const n of [1, 2, 23, 24, 25, 59, 60, 1439, 1440, 1441, 86399, 86400, 86401, 999999999]) for (const u of ['s', 'm', 'h', 'd']) out.add(`${n}${u}`);
    return [...out];
  })();

  function sandboxAccepts(limits: Parameters<typeof validateLimits>[0]): boolean {
    return 'ok' in outcome(() => validateLimits(limits));
  }
  const base = { timeoutMs: 120_000, memoryBytes: 2 * 1024 ** 3, maxOutputBytes: 1024 ** 2, ...DEFAULT_LIMITS };

  it(`sandbox.memory / max_output (${sizes.length} sizes each) and sandbox.timeout (${durations.length} durations)`, () => {
    let loaded = 0;
    let refused = 0;
    const check = (field: Field, value: string, limits: Parameters<typeof validateLimits>[0]): void => {
      const o = loadOnce(withSandbox(field, value));
      const sandboxOk = sandboxAccepts(limits);
      expect('ok' in o, `${field}=${value}`).toBe(sandboxOk);
      if ('ok' in o) {
        loaded++;
        // What loaded is exactly what the sandbox is given.
        expect(sandboxAccepts(sandboxLimitsFromPolicy(loadPolicy(withSandbox(field, value))))).toBe(true);
      } else {
        refused++;
        expect(o).toEqual({ code: 'policy_invalid', ids: [`sandbox.${field}`] });
      }
    };
    for (const s of sizes) {
      check('memory', s, { ...base, memoryBytes: parseSizeBytes(s) });
      check('max_output', s, { ...base, maxOutputBytes: parseSizeBytes(s) });
    }
    for (const t of durations) check('timeout', t, { ...base, timeoutMs: parseDurationSeconds(t) * 1000 });
    // Both sides of every bound were exercised.
    expect(loaded).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });

  it('reviewer interpreter: every schema-valid path loads exactly when validateInterpreterPath accepts it', () => {
    const segs = ['bin', 'node', '.', '..', '', '-x', 'x-', '.x', 'x.', '..x', 'a+b', '_', '-', 'lib64'];
    const paths: string[] = [];
    for (const a of segs) for (const b of segs) for (const c of ['node', '', '.', '-n']) paths.push(`/usr/${a}/${b}/${c}`.replace(/\/$/, c === '' ? '/' : ''));
    for (const a of segs) paths.push(`/usr/${a}`);
    let loaded = 0;
    let refused = 0;
    for (const p of paths) {
      const o = loadOnce(withInterpreter(p));
      const sandboxOk = 'ok' in outcome(() => validateInterpreterPath(p));
      expect('ok' in o, p).toBe(sandboxOk);
      if ('ok' in o) loaded++;
      else refused++;
    }
    expect(paths.length).toBeGreaterThan(700);
    expect(loaded).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(300);
  });
});

describe('shipped policies still load and the sandbox accepts them', () => {
  for (const rel of ['policies/default.yaml', 'policies/strict.yaml']) {
    it(rel, () => {
      const doc = parseStructured(readFileSync(join(REPO_ROOT, rel), 'utf8'), rel) as PolicyDocument;
      expectLoads(doc, rel);
      const p = loadPolicy(doc);
      validateLimits(sandboxLimitsFromPolicy(p));
      for (const r of Object.values(p.doc.reviewers)) validateInterpreterPath(r.interpreter);
    });
  }
});
