// The demo's separated part (scripts/demo/separated-story.mjs, step 31 of `npm run demo`) run as a
// test, as root: the demo unit under policies/strict.yaml with `preservation: required` as shipped
// (no waiver) — the contract set and both probes through the daemon — reaches RELEASE_ELIGIBLE with
// trust mode separated, and the gate on the deploy side allows it. Every step checks its own exit
// code; the test requires zero unexpected results and that the step ran (not skipped).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs demo script without type declarations
import { separatedStory } from '../scripts/demo/separated-story.mjs';
import { CLI, REPO_ROOT } from './helpers/cli.js';

const IS_ROOT = process.geteuid?.() === 0;
const work = mkdtempSync(join(tmpdir(), 'gvd-demo-sep-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(!IS_ROOT)('demo: separated mode under policies/strict.yaml, preservation required, through the daemon', () => {
  it('every step behaves as the demo says: no waiver, both probes through the daemon, RELEASE_ELIGIBLE separated, the gate allows', async () => {
    const lines: string[] = [];
    const out = { write: (t: string) => lines.push(t) };
    const failures = await (separatedStory as (o: Record<string, unknown>) => Promise<number>)({ root: REPO_ROOT, cli: CLI, work: join(work, 'separated'), firstStep: 31, out });
    const text = lines.join('');
    expect(text).not.toContain('SKIPPED');
    expect(failures, text.split('\n').filter((l) => l.includes('UNEXPECTED')).join('\n')).toBe(0);
    // The strict template as shipped: setup is not asked to waive preservation.
    expect(text).toMatch(/# governed setup .*--policy-template strict --no-init\n/);
    expect(text).not.toContain('--waive-preservation');
    expect(text).toMatch(/\$ governed preservation set --unit UNIT-[0-9a-f]{32} --contract \$DEMO\/preservation\.json/);
    expect(text).toMatch(/✓ baseline probe: SURF-lib exit 0, capabilities \["export:records"\]/);
    expect(text).toMatch(/✓ current probe: SURF-lib exit 0, capabilities \["export:records"\]/);
    expect(text).toContain('state RELEASE_ELIGIBLE, trustMode separated, reasons [], preservation required true, probes relied on 2');
    expect(text).toContain('gate ALLOW (exit 0): RELEASE_ELIGIBLE');
    expect(text).toMatch(/gate ALLOW \(exit 0\): RELEASE_ELIGIBLE\n(?: {7}.*\n)*? {7}trust mode {8}separated\n/);
  }, 900_000);
});
