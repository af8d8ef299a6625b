// bench/tools/runner-ab (issue core-3 performance work): two builds of the CLI, A and B, compared on
// `governed review-run` in ONE world, interleaved pair by pair (order alternating), as medians of
// wall time AND CPU time — what a change to review-run must win (docs/architecture.md, "review-run's
// bundle, zod and yaml loading"). On 2 shared cores wall time alone moves with other people's load;
// task-clock CPU time (perf stat) moves far less, so both are reported, with the load average.
//
//   full — a CLEAN run on a fresh challenge (claim, sandbox, drift, two signatures, commit);
//   ref  — the same CLI refused at once (unknown challenge, exit 5): the fixed start-up cost.
//
// CPU is `perf stat -e task-clock` of the CLI process: with OWN=1 of governed's own process only
// (`-i`, no children: the figure a change to governed itself moves); otherwise including its
// children (attestors, bwrap, the reviewer, git). Requires /usr/bin/perf. Not run by bench/run.mjs
// (it needs two builds): build each (scripts/build.mjs, or a private copy of it), then
//   node bench/tools/runner-ab.mjs <A/governed.mjs> <B/governed.mjs> [pairs=25]
// The world is made by a built bench/runner (BENCH_RUNNER, default dist/bench/runner.mjs) through A.
// REF_ONLY=1 times only the refused run (cheap: use many pairs to resolve ~1 ms).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [A, B] = process.argv.slice(2, 4).map((p) => resolve(p ?? ''));
const PAIRS = Number(process.argv[4] ?? 25);
if (!process.argv[3]) throw new Error('usage: runner-ab.mjs <A/governed.mjs> <B/governed.mjs> [pairs]');
process.env.GOVERNED_CLI = A;
const bench = await import(pathToFileURL(resolve(process.env.BENCH_RUNNER ?? 'dist/bench/runner.mjs')).href);
const w = await bench.makeWorld();
const tdir = mkdtempSync(join(tmpdir(), 'governed-runner-ab-'));
const REFUSED = `CHL-${'0'.repeat(32)}`;
let n = 0;

function run(cli, challenge, expect) {
  return new Promise((res, rej) => {
    const out = join(tdir, `t${n++}`);
    const perf = ['stat', ...(process.env.OWN === '1' ? ['-i'] : []), '-x', ',', '-e', 'task-clock', '-o', out];
    const t0 = process.hrtime.bigint();
    const args = [cli, 'review-run', '--challenge', challenge, '--reviewers-dir', w.reviewers, '--attestors', w.attestors, '--home', w.home, '--json'];
    const c = spawn('/usr/bin/perf', [...perf, process.execPath, ...args], { cwd: w.repo, env: { PATH: '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    c.stdout.on('data', (b) => (text += b));
    c.stderr.on('data', (b) => (text += b));
    c.on('error', rej);
    c.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== expect) return rej(new Error(`review-run exit ${code}: ${text}`));
      const cpu = Number(readFileSync(out, 'utf8').trim().split('\n').pop().split(',')[0]);
      res({ wall, cpu });
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const kinds = process.env.REF_ONLY === '1' ? ['ref'] : ['full', 'ref'];
const R = { A: { full: [], ref: [] }, B: { full: [], ref: [] } };
const loads = [];
try {
  // Warm-up (page cache, first bwrap/node start), not counted.
  for (const cli of [A, B]) {
    await run(cli, await bench.challenge(w), 0);
    await run(cli, REFUSED, 5);
  }
  for (let i = 0; i < PAIRS; i++) {
    for (const k of i % 2 ? ['B', 'A'] : ['A', 'B']) {
      const cli = k === 'A' ? A : B;
      if (kinds.includes('full')) R[k].full.push(await run(cli, await bench.challenge(w), 0));
      R[k].ref.push(await run(cli, REFUSED, 5));
    }
    loads.push(loadavg()[0]);
  }
} finally {
  rmSync(w.dir, { recursive: true, force: true });
  rmSync(tdir, { recursive: true, force: true });
}
const m = (xs, key) => median(xs.map((x) => x[key])).toFixed(1);
const d = (kind, key) => median(R.A[kind].map((a, i) => R.B[kind][i][key] - a[key])).toFixed(1);
process.stdout.write(`pairs=${PAIRS} cpu=${process.env.OWN === '1' ? 'own process' : 'with children'} load1 median=${median(loads).toFixed(2)} (min ${Math.min(...loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)})\n`);
for (const kind of kinds) {
  process.stdout.write(
    `${kind.padEnd(4)} wall A ${m(R.A[kind], 'wall')} B ${m(R.B[kind], 'wall')} (median of B−A ${d(kind, 'wall')}) | ` +
      `cpu A ${m(R.A[kind], 'cpu')} B ${m(R.B[kind], 'cpu')} (median of B−A ${d(kind, 'cpu')}) ms\n`,
  );
}
