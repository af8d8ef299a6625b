// The world of the model-reviewer tests: a real repository and store (issue-helpers), the REAL pinned
// model reviewer (runner/reviewers/model.mjs) and broker (runner/egress/broker.mjs), the real
// attestor, a policy whose allowlists hold the real digests (bwrap, both sandbox profiles, seccomp,
// reviewer, broker), and one local model server whose answers each test scripts. Reviewer entries:
//   claude  → provider anthropic, model claude-test   (development slot `claude`, every planning role)
//   local   → provider openai,    model local-model   (development slot `local`)
// Both reach the same loopback server through plain-loopback HTTP; the API key is an environment
// variable of the runner (GVD_MODEL_TEST_KEY), passed only to `review-run`.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { ATTESTOR, REPO_ROOT, type CliResult } from './helpers/cli.js';
import { FILE_CANARY, makeKeys, makeWorld, policyDoc, setupUnit, tempDir, type Keys, type World } from './state-helpers.js';
import { runReviewAsync, type RunWorld } from './run-helpers.js';

export const MODEL_REVIEWER = join(REPO_ROOT, 'runner', 'reviewers', 'model.mjs');
export const BROKER = join(REPO_ROOT, 'runner', 'egress', 'broker.mjs');
export const RELAY = join(REPO_ROOT, 'runner', 'egress', 'relay.mjs');
export const KEY_ENV = 'GVD_MODEL_TEST_KEY';
export const REAL_KEY = 'sk-ant-REAL-gvd-model-e2e-7f3a9c';
export const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'] as const;

function attestorsDir(dir: string, keys: Keys): string {
  const d = join(dir, 'attestors');
  mkdirSync(d, { recursive: true });
  for (const cred of ['reviewer', 'runner'] as const) {
    writeFileSync(join(d, `${cred}.json`), JSON.stringify({ credential: cred, kind: 'review-receipt', key_id: keys[cred].keyId, key_ref: keys[cred].privateKeyPath }));
    copyFileSync(ATTESTOR, join(d, `${cred}.mjs`));
  }
  return d;
}

export function egressEntry(provider: 'anthropic' | 'openai', port: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    provider,
    model: provider === 'anthropic' ? 'claude-test' : 'local-model',
    host: 'localhost',
    port,
    transport: 'plain-loopback',
    routes: [{ method: 'POST', path: provider === 'anthropic' ? '/v1/messages' : '/v1/chat/completions' }],
    credential: { env: KEY_ENV },
    broker_sha256: [sha256(readFileSync(BROKER))],
    caps: { requests: 4, request_bytes: '4MiB', response_bytes: '1MiB', total_up: '16MiB', total_down: '4MiB', request_timeout: '60s', connections: 4 },
    ...over,
  };
}

export async function makeModelWorld(port: number, o: { egress?: (provider: 'anthropic' | 'openai') => Record<string, unknown>; relay?: boolean } = {}): Promise<RunWorld> {
  const dir = tempDir('governed-model-');
  const keys = makeKeys(join(dir, 'keys'));
  const attestors = attestorsDir(dir, keys);
  const reviewersDir = join(dir, 'reviewers');
  mkdirSync(reviewersDir);
  copyFileSync(MODEL_REVIEWER, join(reviewersDir, 'claude.mjs'));
  copyFileSync(MODEL_REVIEWER, join(reviewersDir, 'local.mjs'));
  const reviewerSha = sha256(readFileSync(MODEL_REVIEWER));
  const attestorSha = sha256(readFileSync(ATTESTOR));
  const cfgSha = (cred: string): string => sha256(readFileSync(join(attestors, `${cred}.json`)));
  const bw = await inspectBwrap('/usr/bin/bwrap');
  const cred = (k: { keyId: string }, c: string): Record<string, unknown> => ({
    key_id: k.keyId,
    attestor_sha256: [attestorSha],
    attestor_config_sha256: c === 'reviewer' || c === 'runner' ? [cfgSha(c)] : ['7'.repeat(64)],
  });
  const egress = o.egress ?? ((p: 'anthropic' | 'openai') => egressEntry(p, port));
  const policy = policyDoc(keys, {
    max_runs_per_content: 1000,
    stages: {
      planning: { required: false, streak: 2, slots: Object.fromEntries(ROLES.map((r) => [r, 'claude'])) },
      development: { required: false, streak: 2, slots: { claude: 'claude', local: 'local' } },
    },
    reviewers: {
      claude: { sha256: reviewerSha, interpreter: '/usr/bin/node', env: {}, egress: egress('anthropic') },
      local: { sha256: reviewerSha, interpreter: '/usr/bin/node', env: {}, egress: egress('openai') },
    },
    sandbox: {
      bwrap_sha256: [bw.sha256],
      // With `relay`: the relay profile and its loopback-tcp filter too (docs/egress.md#the-in-sandbox-relay).
      profile_sha256: [staticProfileSha256(), staticProfileSha256('egress'), ...(o.relay === true ? [staticProfileSha256('relay')] : [])],
      seccomp_sha256: [sha256(seccompBlob()), ...(o.relay === true ? [sha256(seccompBlob('loopback-tcp'))] : [])],
      uid: 64560,
      timeout: '60s',
      memory: '2GiB',
      max_output: '64KiB',
      max_bundle: '64MiB',
    },
    credentials: { reviewer: cred(keys.reviewer, 'reviewer'), runner: cred(keys.runner, 'runner'), gate: cred(keys.gate, 'gate'), log: cred(keys.log, 'log') },
  });
  const w: World = makeWorld({ keys, policy, baselineFiles: { 'src/export.ts': 'export const csv = "baseline";\n' } });
  const unit = setupUnit(w);
  w.repo.write('src/export.ts', `export const csv = '${FILE_CANARY}';\n`);
  w.repo.write('test/export.test.ts', 'test("csv", () => {});\n');
  return { ...w, unit, reviewersDir, attestorsDir: attestors, reviewerSha, attestorSha, stubBwrap: '/usr/bin/bwrap', marker: '' };
}

/** `review-run --json` as its own process (the test's model server must keep answering meanwhile). */
export function runModelReview(w: RunWorld, challenge: string, env: Record<string, string> = { [KEY_ENV]: REAL_KEY }): Promise<CliResult> {
  return runReviewAsync(w, challenge, [], { env }).done;
}

/** The view IDs a prompt lists as admissible refs. */
export function promptIds(prompt: string): string[] {
  const line = prompt.split('\n').find((l) => l.startsWith('refs: 1 to 4 IDs, each one of: '));
  return line === undefined ? [] : line.slice('refs: 1 to 4 IDs, each one of: '.length).split(', ');
}

/** The user prompt of a recorded request (either provider shape). */
export function promptOf(body: string): string {
  const b = JSON.parse(body) as { messages: { role: string; content: string }[] };
  return b.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
}
