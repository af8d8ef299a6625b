// The CI recipes (docs/ci.md): action.yml is a composite action whose one step runs ci/gate.sh with
// every input passed through the environment, and whose outputs are that step's; the GitLab template
// runs the same script. Here the script runs as a plain script (as the runner would run it) against
// a real repository and a real setup: DENY with the gate's exit code and outputs, and a missing input
// refused before governed runs. The ALLOW path runs in test/setup-to-gate-story.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { jsonOut, REPO_ROOT, runCli } from './helpers/cli.js';
import { runGateScript } from './helpers/ci-gate.js';
import { makeTempRepo } from './helpers/git-repo.js';

const dir = mkdtempSync(join(tmpdir(), 'gvd-eco-ci-'));
const repo = makeTempRepo({ prefix: 'gvd-eco-ci-repo-' });
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  repo.cleanup();
});

describe('action.yml', () => {
  const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8'));
  it('is a composite action whose one step runs ci/gate.sh with every input in its environment', () => {
    expect(action.runs.using).toBe('composite');
    expect(action.runs.steps).toHaveLength(1);
    const step = action.runs.steps[0];
    expect(step.run).toBe('"$GITHUB_ACTION_PATH/ci/gate.sh"');
    for (const input of Object.keys(action.inputs)) {
      const name = input === 'governed' ? 'GOVERNED_COMMAND' : `INPUT_${input.toUpperCase().replaceAll('-', '_')}`;
      expect(step.env[name]).toBe(`\${{ inputs.${input} }}`);
    }
    expect(action.outputs.decision.value).toBe('${{ steps.gate.outputs.decision }}');
    expect(action.outputs.exit.value).toBe('${{ steps.gate.outputs.exit }}');
    // Inputs never reach the shell command text (no ${{ inputs.* }} inside `run`).
    expect(step.run).not.toContain('inputs.');
  });

  it('the GitLab template runs the same script with the same inputs', () => {
    const gl = parse(readFileSync(join(REPO_ROOT, 'ci', 'gitlab', 'governed.gitlab-ci.yml'), 'utf8'));
    expect(gl['governed-gate'].script).toEqual(['ci/gate.sh']);
    expect(Object.keys(gl['governed-gate'].variables).sort()).toEqual(['INPUT_HOME', 'INPUT_POLICY_DIGEST', 'INPUT_SUBJECT', 'INPUT_TRUST', 'INPUT_UNIT']);
    expect(gl['governed-gate'].artifacts.reports.dotenv).toBe('governed-gate.env');
  });
});

describe('ci/gate.sh against a real repository', () => {
  it('DENY with the gate exit code in its outputs; a missing input is refused before governed runs', () => {
    repo.write('README.md', '# x\n');
    const head = repo.commitAll('base');
    const s = jsonOut(runCli(['setup', '--out', join(dir, 'setup'), '--home', join(dir, 'home'), '--json']));
    const env = {
      INPUT_UNIT: `UNIT-${'0'.repeat(32)}`,
      INPUT_TRUST: String(s.trust),
      INPUT_POLICY_DIGEST: String(s.policy_digest),
      INPUT_SUBJECT: head,
      INPUT_HOME: join(dir, 'home'),
    };
    const r = runGateScript(env, repo.root);
    expect(r.code).toBe(7);
    expect(r.outputs).toEqual({ decision: 'DENY', exit: '7' });
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ decision: 'DENY', exit: 7 });
    const wrong = runGateScript({ ...env, INPUT_POLICY_DIGEST: `sha256:${'0'.repeat(64)}` }, repo.root);
    expect(wrong.outputs).toEqual({ decision: 'DENY', exit: '4' });
    const { INPUT_SUBJECT: _drop, ...missing } = env;
    const m = runGateScript(missing, repo.root);
    expect(m.code).not.toBe(0);
    expect(m.outputs).toEqual({});
  });
});
