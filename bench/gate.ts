// bench/gate (docs/gate.md#7-measurements-benchgate; docs/gate.md#6-the-cold-gate-path): cold start of `governed gate` — the
// built CLI as a real child process — on a store with 1,000 and with 100,000 receipts, against
// `node -e ''` in the same run, the three interleaved round-robin and medians reported.
//   Bars: gate(1,000) / node ≤ 1.5;  gate(100,000) / gate(1,000) ≤ 1.2.
// Every run of the gate must exit 0 (RELEASE_ELIGIBLE) or the bench fails: it measures the real
// path — JSON trust root and policy, store open, indexed fact loading, the decision, the
// re-verification of every relied-on receipt (the 16 of the proving rounds and the lifters of the
// history's blocks), and the subject commit's manifest from git.
//
// The stores are real: a repository (baseline with the request, a small subject commit), a unit
// created by `createUnitFlow`, and a history of work revisions (lease acquire/release), each with
// two rounds of the development slot and the four integration roles on its own fabricated state —
// challenges issued, claimed and committed through the store API in large transactions, receipts
// signed by node:crypto keys — with BENCH_DIRTY DIRTY receipts (default 10), each lifted by the next
// revision. Then the
// current state: two planning rounds, two development and two integration rounds on the subject.
// Generating 100,000 receipts takes a while, so each store is cached in the temp dir under a version
// key (BENCH_GATE_CACHE=0 rebuilds). BENCH_RECEIPTS shrinks the large store; BENCH_ROUNDS sets the
// number of round-robin rounds. GOVERNED_CLI picks the CLI (default dist/governed.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { judgeBar, knob, QUICK } from './lib/quick.js';
import { CLI, fixture, quickDirs, type Fixture } from './tools/store-fixture.js';

const LARGE = knob('BENCH_RECEIPTS', 100_000, 120);
const SMALL = QUICK ? 60 : 1_000;
const ROUNDS = knob('BENCH_ROUNDS', 40, 1);

function gateArgs(f: Fixture): string[] {
  return [CLI, 'gate', '--unit', f.unit, '--trust', f.trustFile, '--policy-digest', f.policyDigest, '--subject', f.subject, '--repo', f.repo, '--home', f.home, '--json'];
}

const FLOOR = resolve(process.env.GOVERNED_GATE_FLOOR ?? 'dist/bench/floors/gate-floor.mjs');

/** How many receipts the gate's decision relies on (each is re-verified), from its JSON. */
function reliedOnCount(f: Fixture): number {
  const r = spawnSync(process.execPath, gateArgs(f), { cwd: f.repo, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
  const n = (JSON.parse(r.stdout) as { reliedOn?: { receipts?: unknown[] } }).reliedOn?.receipts?.length;
  if (typeof n !== 'number' || n === 0) throw new Error('gate: no relied-on receipts');
  return n;
}

function floorArgs(f: Fixture, n: number): string[] {
  return [FLOOR, f.home, f.repo, f.trustFile, f.unit, f.subject, String(n)];
}

function timeOnce(args: string[], cwd: string, env: NodeJS.ProcessEnv): { ms: number; code: number | null; stdout: string } {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8' });
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, code: r.status, stdout: r.stdout };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`no CLI at ${CLI}: npm run build (or set GOVERNED_CLI)`);
  const small = await fixture(SMALL);
  const large = await fixture(LARGE);
  // Two environments, each with its own baseline: the bench's own (inherited: what CI gives every
  // process, e.g. NODE_EXTRA_CA_CERTS, which alone costs a bare node ~40 ms here) and a clean one
  // (PATH only: the strictest ratio). The bars are judged on the clean one.
  const envs = { clean: { PATH: '/usr/bin:/bin' }, inherited: { ...process.env } };
  // The floor (bench/floors/gate-floor.ts) re-verifies as many envelopes as the gate relies on.
  const relied = reliedOnCount(small);
  const cases = (['clean', 'inherited'] as const).flatMap((e) => [
    { env: e, name: `node -e ''`, args: ['-e', ''], cwd: tmpdir(), gate: false },
    { env: e, name: `gate, ${small.receipts} receipts`, args: gateArgs(small), cwd: small.repo, gate: true },
    { env: e, name: `gate, ${large.receipts} receipts`, args: gateArgs(large), cwd: large.repo, gate: true },
    { env: e, name: `floor, ${relied} envelopes`, args: floorArgs(small, relied), cwd: small.repo, gate: true },
  ]);
  // Warm-up (page cache, a first-run migration) and the correctness check: the gate must allow.
  for (const c of cases) {
    const r = timeOnce(c.args, c.cwd, envs[c.env]);
    if (c.gate && r.code !== 0) throw new Error(`${c.name}: gate exited ${r.code}, expected 0: ${r.stdout.slice(0, 400)}`);
  }
  const times = cases.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order every round so drift hits every case alike (docs/performance.md#performance).
    for (let j = 0; j < cases.length; j++) {
      const i = (j + round) % cases.length;
      const c = cases[i] as (typeof cases)[number];
      const r = timeOnce(c.args, c.cwd, envs[c.env]);
      if (c.gate && r.code !== 0) throw new Error(`${c.name}: gate exited ${r.code}`);
      (times[i] as number[]).push(r.ms);
    }
  }
  const med = times.map(median);
  const report = (offset: number, label: string): { ratio: number; growth: number } => {
    const [base, g1, g2, floor] = med.slice(offset, offset + 4) as [number, number, number, number];
    process.stdout.write(
      `${label} environment\n` +
        cases.slice(offset, offset + 4).map((c, i) => `  ${c.name.padEnd(28)} ${(med[offset + i] as number).toFixed(1)} ms\n`).join('') +
        `  gate(${small.receipts}) / node -e ''           ${(g1 / base).toFixed(3)}\n` +
        `  gate(${large.receipts}) / gate(${small.receipts})     ${(g2 / g1).toFixed(3)}\n` +
        `  floor / node -e ''                ${(floor / base).toFixed(3)}  (docs/decision.md#8-delivery-state-and-reason-codes's I/O and signatures alone, no governed logic)\n`,
    );
    return { ratio: g1 / base, growth: g2 / g1 };
  };
  process.stdout.write(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${ROUNDS} rounds, medians\n`);
  const clean = report(0, 'clean (PATH only)');
  report(4, 'inherited');
  const ok1 = clean.ratio <= 1.5;
  const ok2 = clean.growth <= 1.2;
  process.stdout.write(
    `bar gate(${small.receipts}) / node -e '' <= 1.5 (clean)        : ${clean.ratio.toFixed(3)} ${ok1 ? 'PASS' : 'FAIL'}\n` +
      `bar gate(${large.receipts}) / gate(${small.receipts}) <= 1.2 (clean) : ${clean.growth.toFixed(3)} ${ok2 ? 'PASS' : 'FAIL'}\n`,
  );
  judgeBar(ok1 && ok2);
}

try {
  await main();
} finally {
  for (const d of quickDirs) rmSync(d, { recursive: true, force: true });
}
