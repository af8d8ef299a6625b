// bench/house-compare (docs/performance.md#before-and-after-one-definition-per-format): the cold
// gate and a review-run of THIS tree against the same of an earlier commit, built here, in the same
// run and interleaved, so that load from other processes falls on both alike. The question it
// answers: did the work since that commit (one zod/mini definition per format instead of the lean
// twins, and everything after) lose more than 10 % of either cold path? Ratios are printed; no bar
// is judged (the 10 % is a report, not a test).
//
//   base   — BENCH_BASE_COMMIT (default 432f7b8: the last commit before the one-definition work;
//            it only made that commit's bench/gate build its store again). A comma list compares
//            several (e.g. `432f7b8,main`). Each is checked out with `git worktree add --detach`
//            into a temporary directory, built with its own scripts/build.mjs (node_modules linked
//            from this tree), and removed at the end. A commit this clone does not have is
//            reported as skipped.
//   gate   — the base's own bench/gate builds its 1,000-receipt store (its fixture, cached under its
//            own temp dir); every tree judges a copy of that store, migrated first by that tree's
//            own `status` (a write command; the read-only gate refuses an older schema). Cases:
//            `node -e ''`, each tree's gate, and this tree's floor (bench/floors/gate-floor.ts),
//            rotated round-robin; medians; environment PATH only.
//   runner — each tree's own bench/runner world (its CLI, its attestor, its policy); per
//            repetition, in rotating order: `node -e ''`, bare bwrap with the same reviewer
//            (bench/runner-bare), and for each tree one CLEAN review-run on a fresh challenge (the
//            challenge is issued untimed) and one refused at once (its fixed start-up).
// Counts: BENCH_ROUNDS (gate rounds, default 21), BENCH_RUNS (runner repetitions, default 15).
// Beside each wall-clock median it prints the CPU time (user + sys) the timed child processes used,
// as a mean over the same interleaved rounds (from /proc/self/stat's reaped-children counters: on a
// loaded machine wall time includes waiting for a core, CPU time does not), and the load average.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { knob, QUICK } from './lib/quick.js';
import { bareRunMs, nodeBaselineMs } from './runner-bare.js';
import { TRIVIAL_COVERAGE_REVIEWER } from './runner.js';

const ROUNDS = knob('BENCH_ROUNDS', 21, 1);
const RUNS = knob('BENCH_RUNS', 15, 1);
const BASES = (process.env.BENCH_BASE_COMMIT ?? '432f7b8').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
const HERE = resolve('.');
const CLEAN_ENV = { PATH: '/usr/bin:/bin' };

interface Tree {
  readonly name: string;
  readonly dir: string;
  readonly temporary: boolean;
}

interface FixtureJson {
  readonly home: string;
  readonly repo: string;
  readonly trustFile: string;
  readonly policyDigest: string;
  readonly unit: string;
  readonly subject: string;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const CLOCK_TICKS = 100; // USER_HZ: /proc reports times in 1/100 s on Linux
/** CPU time (user + sys, ms) of this process's reaped children so far: /proc/self/stat cutime + cstime. */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[13]) + Number(f[14])) * 1000) / CLOCK_TICKS;
}
/** Wall and children's CPU time of one awaited step. */
async function measured(step: () => Promise<unknown>): Promise<{ ms: number; cpu: number }> {
  const c0 = childrenCpuMs();
  const t0 = process.hrtime.bigint();
  await step();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpu: childrenCpuMs() - c0 };
}
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
const git = (args: string[], cwd = HERE) => spawnSync('git', args, { cwd, encoding: 'utf8' });

function checkout(commit: string, scratch: string): Tree | null {
  const id = git(['rev-parse', '--verify', '--quiet', `${commit}^{commit}`]).stdout.trim();
  if (id === '') return null;
  const dir = join(scratch, `tree-${id.slice(0, 12)}`);
  const add = git(['worktree', 'add', '--detach', dir, id]);
  if (add.status !== 0) throw new Error(`git worktree add ${commit}: ${add.stderr}`);
  symlinkSync(join(HERE, 'node_modules'), join(dir, 'node_modules'));
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build of ${commit} failed: ${build.stderr.slice(0, 400)}`);
  // Named by the commit it is (the short id), with the name it was asked by when that differs
  // (e.g. `main (17d8838)`): the label always says which tree was measured.
  const short = id.slice(0, 7);
  return { name: id.startsWith(commit.toLowerCase()) ? short : `${commit} (${short})`, dir, temporary: true };
}

function timeOnce(args: readonly string[], cwd: string): { ms: number; cpu: number; code: number | null; stdout: string } {
  const c0 = childrenCpuMs();
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, env: CLEAN_ENV, encoding: 'utf8' });
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, cpu: childrenCpuMs() - c0, code: r.status, stdout: r.stdout };
}

/** The base's own bench/gate builds (and caches) its 1,000-receipt store under `tmp`; its fixture.json says where. */
function baseStore(base: Tree, tmp: string): FixtureJson {
  // The base's bench/gate with its cache on (its default): only its cached run prints where the
  // store is, and BENCH_GATE_CACHE=0 (test/bench-quick) makes the old bench fail after building.
  const { BENCH_GATE_CACHE: _cache, ...inherited } = process.env;
  const r = spawnSync(process.execPath, ['dist/bench/gate.mjs'], {
    cwd: base.dir,
    env: { ...inherited, TMPDIR: tmp, BENCH_RECEIPTS: '1000', BENCH_ROUNDS: '1' },
    encoding: 'utf8',
  });
  const dir = /store with 1000 receipts: cached in (\S+)/.exec(r.stdout)?.[1];
  if (dir === undefined) throw new Error(`the base bench/gate built no store (exit ${r.status}): ${r.stdout.slice(-400)} ${r.stderr.slice(-400)}`);
  return JSON.parse(readFileSync(join(dir, 'fixture.json'), 'utf8')) as FixtureJson;
}

async function compareGate(trees: readonly Tree[], scratch: string): Promise<void> {
  const f = baseStore(trees[0] as Tree, scratch);
  const cases: { name: string; args: string[]; cwd: string; gate: boolean }[] = [{ name: `node -e ''`, args: ['-e', ''], cwd: tmpdir(), gate: false }];
  trees.forEach((t, i) => {
    // Each tree judges its own copy, migrated by its own write command.
    const home = join(scratch, `home-${i}`);
    cpSync(f.home, home, { recursive: true });
    const cli = join(t.dir, 'dist', 'governed.mjs');
    const st = spawnSync(process.execPath, [cli, 'status', '--unit', f.unit, '--repo', f.repo, '--home', home, '--json'], { cwd: f.repo, env: CLEAN_ENV, encoding: 'utf8' });
    if (st.status !== 0) throw new Error(`${t.name}: status (migration) exited ${st.status}: ${st.stdout.slice(0, 300)}`);
    const args = [cli, 'gate', '--unit', f.unit, '--trust', f.trustFile, '--policy-digest', f.policyDigest, '--subject', f.subject, '--repo', f.repo, '--home', home, '--json'];
    cases.push({ name: `gate ${t.name}`, args, cwd: f.repo, gate: true });
  });
  // This tree's floor (the I/O and signatures of the relied-on receipts, no governed logic) on its own copy.
  const here = cases[cases.length - 1] as (typeof cases)[number];
  const relied = (JSON.parse(timeOnce(here.args, here.cwd).stdout) as { reliedOn: { receipts: unknown[] } }).reliedOn.receipts.length;
  const floor = join(HERE, 'dist', 'bench', 'floors', 'gate-floor.mjs');
  cases.push({ name: `floor (${relied} envelopes)`, args: [floor, join(scratch, `home-${trees.length - 1}`), f.repo, f.trustFile, f.unit, f.subject, String(relied)], cwd: f.repo, gate: true });
  for (const c of cases) {
    const r = timeOnce(c.args, c.cwd);
    if (c.gate && r.code !== 0) throw new Error(`${c.name}: exit ${r.code}: ${r.stdout.slice(0, 300)}`);
  }
  const times = cases.map(() => [] as number[]);
  const cpus = cases.map(() => [] as number[]);
  const loadBefore = load();
  for (let round = 0; round < ROUNDS; round++) {
    for (let j = 0; j < cases.length; j++) {
      const i = (j + round) % cases.length;
      const c = cases[i] as (typeof cases)[number];
      const r = timeOnce(c.args, c.cwd);
      if (c.gate && r.code !== 0) throw new Error(`${c.name}: exit ${r.code}`);
      (times[i] as number[]).push(r.ms);
      (cpus[i] as number[]).push(r.cpu);
    }
  }
  const med = times.map(median);
  const node = med[0] as number;
  const fl = med[med.length - 1] as number;
  const cpu = cpus.map(mean);
  const gates = med.slice(1, 1 + trees.length);
  const gateCpu = cpu.slice(1, 1 + trees.length);
  process.stdout.write(`gate (1,000 receipts, ${relied} relied on; ${ROUNDS} rounds rotated, PATH only; load average ${loadBefore} before, ${load()} after)\n`);
  process.stdout.write(`  ${''.padEnd(34)} wall (median)   CPU user+sys (mean)\n`);
  cases.forEach((c, i) => process.stdout.write(`  ${c.name.padEnd(34)} ${(med[i] as number).toFixed(1).padStart(8)} ms   ${(cpu[i] as number).toFixed(1).padStart(8)} ms\n`));
  trees.forEach((t, i) =>
    process.stdout.write(
      `  ${t.name.padEnd(34)} gate/node ${((gates[i] as number) / node).toFixed(3)}  gate/floor ${((gates[i] as number) / fl).toFixed(3)}  CPU: gate/floor ${((gateCpu[i] as number) / (cpu[cpu.length - 1] as number)).toFixed(3)}\n`,
    ),
  );
  const cur = gates[gates.length - 1] as number;
  const curCpu = gateCpu[gateCpu.length - 1] as number;
  trees.slice(0, -1).forEach((t, i) => {
    process.stdout.write(`ratio gate this tree / ${t.name} ${(cur / (gates[i] as number)).toFixed(3)}\n`);
    process.stdout.write(`ratio gate CPU this tree / ${t.name} ${(curCpu / (gateCpu[i] as number)).toFixed(3)}\n`);
  });
}

interface RunnerModule {
  makeWorld(): Promise<{ dir: string }>;
  challenge(w: unknown): Promise<string>;
  timedRun(w: unknown, challenge: string, expectExit?: number): Promise<number>;
  /** bench/runner's floor (node + both pinned attestors + the bare reviewer + one git listing); absent in old trees. */
  specFloorMs?(w: unknown): Promise<number>;
}

async function compareRunner(trees: readonly Tree[]): Promise<void> {
  const worlds: { t: Tree; m: RunnerModule; w: { dir: string } }[] = [];
  for (const t of trees) {
    // Each bench module reads its CLI and attestor from the environment when it is loaded.
    process.env.GOVERNED_CLI = join(t.dir, 'dist', 'governed.mjs');
    process.env.GOVERNED_ATTESTOR = join(t.dir, 'attestors', 'ed25519-file.mjs');
    const m = (await import(pathToFileURL(join(t.dir, 'dist', 'bench', 'runner.mjs')).href)) as RunnerModule;
    worlds.push({ t, m, w: await m.makeWorld() });
  }
  try {
    const refused = `CHL-${'0'.repeat(32)}`;
    for (const x of worlds) {
      await x.m.timedRun(x.w, await x.m.challenge(x.w));
      await x.m.timedRun(x.w, refused, 5);
    }
    await bareRunMs(TRIVIAL_COVERAGE_REVIEWER);
    await nodeBaselineMs();
    // The floor line is this tree's bench/runner floor, timed in the same rotation.
    const own = worlds[worlds.length - 1] as (typeof worlds)[number];
    const floorOf = own.m.specFloorMs?.bind(own.m);
    if (floorOf !== undefined) await floorOf(own.w);
    type Series = { ms: number[]; cpu: number[] };
    const series = (): Series => ({ ms: [], cpu: [] });
    const node = series();
    const bare = series();
    const floor = series();
    const run = worlds.map(series);
    const ref = worlds.map(series);
    const into = (s: Series, step: () => Promise<unknown>) => async () => {
      const m = await measured(step);
      s.ms.push(m.ms);
      s.cpu.push(m.cpu);
    };
    const loadBefore = load();
    for (let i = 0; i < RUNS; i++) {
      const ids = await Promise.all(worlds.map((x) => x.m.challenge(x.w)));
      const steps: (() => Promise<void>)[] = [
        into(node, () => nodeBaselineMs()),
        into(bare, () => bareRunMs(TRIVIAL_COVERAGE_REVIEWER)),
        ...(floorOf === undefined ? [] : [into(floor, () => floorOf(own.w))]),
        ...worlds.map((x, k) => into(run[k] as Series, () => x.m.timedRun(x.w, ids[k] as string))),
        ...worlds.map((x, k) => into(ref[k] as Series, () => x.m.timedRun(x.w, refused, 5))),
      ];
      for (let j = 0; j < steps.length; j++) await (steps[(j + i) % steps.length] as () => Promise<void>)();
    }
    const n = median(node.ms);
    const b = median(bare.ms);
    const cpuN = mean(node.cpu);
    const cpuB = mean(bare.cpu);
    process.stdout.write(`runner (review-run, trivial reviewer; ${RUNS} repetitions rotated; wall medians, CPU user+sys means; load average ${loadBefore} before, ${load()} after)\n`);
    process.stdout.write(`  node -e '' ${n.toFixed(1)} ms (CPU ${cpuN.toFixed(1)}) | bare bwrap ${b.toFixed(1)} ms (CPU ${cpuB.toFixed(1)})\n`);
    if (floorOf !== undefined) {
      const f = median(floor.ms);
      process.stdout.write(`  floor (this tree's bench/runner floor) ${f.toFixed(1)} ms (CPU ${mean(floor.cpu).toFixed(1)}): (floor − bare)/node ${((f - b) / n).toFixed(2)}\n`);
    }
    worlds.forEach((x, k) => {
      const r = median((run[k] as Series).ms);
      const rc = mean((run[k] as Series).cpu);
      process.stdout.write(
        `  ${x.t.name.padEnd(34)} review-run ${r.toFixed(1)} ms (CPU ${rc.toFixed(1)})  refused at once ${median((ref[k] as Series).ms).toFixed(1)} ms (CPU ${mean((ref[k] as Series).cpu).toFixed(1)})  (run − bare)/node ${((r - b) / n).toFixed(2)}\n`,
      );
    });
    const cur = median((run[run.length - 1] as Series).ms);
    const curCpu = mean((run[run.length - 1] as Series).cpu);
    const curRef = mean((ref[ref.length - 1] as Series).cpu);
    worlds.slice(0, -1).forEach((x, k) => {
      const old = median((run[k] as Series).ms);
      const oldCpu = mean((run[k] as Series).cpu);
      process.stdout.write(`ratio review-run this tree / ${x.t.name} ${(cur / old).toFixed(3)}  (run − bare) ${((cur - b) / (old - b)).toFixed(3)}\n`);
      process.stdout.write(
        `ratio review-run CPU this tree / ${x.t.name} ${(curCpu / oldCpu).toFixed(3)}  (run − bare) ${((curCpu - cpuB) / (oldCpu - cpuB)).toFixed(3)}  refused at once ${(curRef / mean((ref[k] as Series).cpu)).toFixed(3)}\n`,
      );
    });
  } finally {
    for (const x of worlds) rmSync(x.w.dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'governed-house-compare-'));
  const trees: Tree[] = [];
  try {
    for (const c of BASES) {
      const t = checkout(c, scratch);
      if (t === null) process.stdout.write(`bench/house-compare: base ${c} skipped (not a commit of this clone)\n`);
      else trees.push(t);
    }
    if (trees.length === 0) {
      process.stdout.write('bench/house-compare: skipped (no base commit available)\n');
      return;
    }
    const head = git(['rev-parse', '--short=7', 'HEAD']).stdout.trim();
    const dirty = git(['status', '--porcelain', '--untracked-files=no']).stdout.trim() !== '';
    trees.push({ name: `this tree (${head}${dirty ? ', modified' : ''})`, dir: HERE, temporary: false });
    process.stdout.write(`bench/house-compare: base ${trees.slice(0, -1).map((t) => t.name).join(', ')} (BENCH_BASE_COMMIT; default 432f7b8, the last commit with the lean schema twins) against ${(trees[trees.length - 1] as Tree).name}\n`);
    if (QUICK) process.stdout.write('quick mode: one round each; not a measurement\n');
    await compareGate(trees, scratch);
    await compareRunner(trees);
  } finally {
    for (const t of trees) if (t.temporary) git(['worktree', 'remove', '--force', t.dir]);
    rmSync(scratch, { recursive: true, force: true });
    git(['worktree', 'prune']);
  }
}

if (!existsSync(join(HERE, 'dist', 'governed.mjs'))) throw new Error('no dist/governed.mjs: npm run build');
await main();
