// The demo's first unit (scripts/demo/governed-story.mjs, steps 6–15 of `npm run demo`) run as a
// test: it starts from `governed setup` as a new user would (keys, trust root, attestor configs, a
// pinned policy, the store), shows a re-run that changes nothing and `governed doctor`, and then takes
// the unit to RELEASE_ELIGIBLE, the gate (with the policy digest setup printed), the audit and the
// refusals. Every step checks its own exit code; the test requires zero unexpected results.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs demo script without type declarations
import { governedStory } from '../scripts/demo/governed-story.mjs';
import { CLI, REPO_ROOT } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'gvd-demo-story-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('demo: the first unit from governed setup to the gate', () => {
  it('every step behaves as the demo says, starting from governed setup', () => {
    const lines: string[] = [];
    const out = { write: (t: string) => lines.push(t) };
    const failures = (governedStory as (o: Record<string, unknown>) => number)({ root: REPO_ROOT, cli: CLI, work: join(work, 'story'), out });
    const text = lines.join('');
    expect(failures, text.split('\n').filter((l) => l.includes('UNEXPECTED')).join('\n')).toBe(0);
    // The path a new user takes: setup made everything, a re-run changed nothing, doctor found nothing.
    expect(text).toContain('$ governed setup --out $DEMO/setup --waive-preservation');
    expect(text).toMatch(/changed: false, init: kept, \d+ files kept/);
    expect(text).toContain('doctor: no problem found');
    // Nothing in the story was made by hand: no keygen, no hand-written trust root or policy.
    expect(text).not.toContain('governed keygen');
    expect(text).toMatch(/\$ governed gate --unit UNIT-[0-9a-f]{32} --trust \$DEMO\/setup\/trust\.json --policy-digest sha256:[0-9a-f]{64}/);
  }, 900_000);
});
