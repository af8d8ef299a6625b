// The commander-free entry of `governed review-run` (bench/runner: commander and the ten command
// groups cost about 0.7× a bare `node -e ''` start before review-run does anything). An entry point
// may route `governed review-run ...` here first: `parseReviewRunArgv` accepts ONLY argument lists
// it understands exactly as commander does for the declaration in ../register/run.ts (kept equal by
// test/runner-perf-argv.test.ts) — `--name value` / `--name=value` for each option taking a value
// (the next word is the value whatever it looks like, as commander takes it; the last one wins),
// bare `--json`, and `--challenge` present. Anything else (help, an unknown option, a positional, a
// missing value or a missing --challenge) returns null and the caller hands the argv to commander,
// which prints its usual usage error (exit 2) or help: one grammar, one set of messages.
import { runAction } from '../run-action.js';
import type { ReviewRunOptions } from './review-run.js';

/** The options of `review-run` in register/run.ts: true = takes a value, false = a flag. */
export const REVIEW_RUN_ARGV_OPTIONS = {
  challenge: true,
  repo: true,
  'reviewers-dir': true,
  attestors: true,
  bwrap: true,
  policy: true,
  trust: true,
  home: true,
  runner: true,
  json: false,
  progress: false,
} as const;
type Name = keyof typeof REVIEW_RUN_ARGV_OPTIONS;

const CAMEL: Record<Name, keyof ReviewRunOptions> = {
  challenge: 'challenge',
  repo: 'repo',
  'reviewers-dir': 'reviewersDir',
  attestors: 'attestors',
  bwrap: 'bwrap',
  policy: 'policy',
  trust: 'trust',
  home: 'home',
  runner: 'runner',
  json: 'json',
  progress: 'progress',
};

const isName = (s: string): s is Name => Object.prototype.hasOwnProperty.call(REVIEW_RUN_ARGV_OPTIONS, s);

/** The options commander would produce for these words (after `review-run`), or null: let commander decide. */
export function parseReviewRunArgv(argv: readonly string[]): ReviewRunOptions | null {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (!word.startsWith('--') || word === '--') return null;
    const eq = word.indexOf('=');
    const name = eq === -1 ? word.slice(2) : word.slice(2, eq);
    if (!isName(name)) return null;
    const key = CAMEL[name];
    if (!REVIEW_RUN_ARGV_OPTIONS[name]) {
      if (eq !== -1) return null;
      out[key] = true;
      continue;
    }
    if (eq !== -1) {
      out[key] = word.slice(eq + 1);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined) return null;
    out[key] = value;
    i++;
  }
  if (typeof out.challenge !== 'string') return null;
  return out as unknown as ReviewRunOptions;
}

/** Run `review-run` if the argv is one this parser owns; false = not handled (use commander). */
export async function reviewRunMain(argv: readonly string[]): Promise<boolean> {
  const opts = parseReviewRunArgv(argv);
  if (opts === null) return false;
  await import('./review-run-jitless.js');
  await runAction(opts, async () => {
    const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
    if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteReviewRun(s, opts);
    return (await import('./review-run.js')).reviewRunCommand(opts);
  });
  return true;
}
