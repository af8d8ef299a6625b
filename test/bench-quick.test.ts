// Every benchmark still runs: `npm run bench -- --quick` (bench/run.mjs over the built dist/bench/*.mjs, small counts,
// bars not judged) exits 0 and each bench prints its ratio lines — a bench that crashes or stops reporting fails here.
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/cli.js';

/** Each bench's ratio lines (the numbers it exists to report); a new bench must add its own here. */
const RATIO_LINES: Record<string, RegExp[]> = {
  egress: [
    /^added by the broker \(reused connection\): p50 [+-]?-?\d+\.\d{3} ms, p90 [+-]?-?\d+\.\d{3} ms; ratio broker\/direct p50 \d+\.\d\d$/m,
    /^added by relay\+terminate \(reused connection\): p50 [+-]?-?\d+\.\d{3} ms, p90 [+-]?-?\d+\.\d{3} ms; ratio terminate\/direct TLS p50 \d+\.\d\d; ratio terminate\/floor p50 \d+\.\d\d$/m,
    /^terminate\/floor p50 \(reused\) \d+\.\d\d \(bar ≤ 2\.5/m,
  ],
  preservation: [/^governed \/ bare = \d+\.\d\d \(bar ≤ 1\.3/m],
  // As root it measures; otherwise it says it was skipped (it needs root for its users and the daemon).
  runnerd: process.geteuid?.() === 0 ? [/^\(run − bare\) \/ node = -?\d+\.\d\d/m, /^floor \/ node = \d+\.\d\d/m, /^throughput with \d+ clients: \d+\.\d\d reviews\/s/m, /^throughput floor with \d+ clients: \d+\.\d\d runs\/s = \d+\.\d\d of bare .*daemon \/ floor = \d+\.\d\d$/m, /^daemon RSS after warm-up \d+\.\d MiB \(VmHWM \d+\.\d MiB\) → after \d+ more runs \d+\.\d MiB \(VmHWM \d+\.\d MiB\); growth -?\d+\.\d MiB RSS/m] : [/^bench\/runnerd: skipped \(needs root/m],
  checks: [/^\(run − bare\) \/ node = -?\d+\.\d\d/m],
  audit: [/^ratio audit verify \/ raw verify \d+\.\d{3}$/m, /^ratio audit verify peak RSS \/ floor \d+\.\d{3}$/m, /^ratio audit verify --jobs 0 \/ raw verify \d+\.\d{3}$/m, /^ratio audit verify resumed \/ full \d+\.\d{3}$/m, /^ratio append with tree \/ without \d+\.\d{3}$/m, /^ratio proof\(\d+\) \/ proof\(1000\) \d+\.\d{3}$/m],
  // Builds its base commit in a scratch worktree; a clone without that commit says it skipped.
  'house-compare': [/^ratio gate this tree \/ .+ \d+\.\d{3}$|^bench\/house-compare: skipped/m, /^ratio review-run this tree \/ .+ \d+\.\d{3}|^bench\/house-compare: skipped/m],
  gate: [/^ {2}gate\(\d+\) \/ node -e ''\s+\d+\.\d{3}$/m, /^ {2}gate\(\d+\) \/ gate\(\d+\)\s+\d+\.\d{3}$/m, /^ {2}floor \/ node -e ''\s+\d+\.\d{3}/m],
  'runner-bare': [/^\(sandbox − bare\) \/ node = -?\d+\.\d\d/m],
  runner: [/^\(run − bare\) \/ node = -?\d+\.\d\d/m, /\(floor − bare\) \/ node = -?\d+\.\d\d$/m],
  verify: [/^ratio\s+: \d+\.\d{3} /m],
  workspace: [/^ratio manifest \/ raw-file throughput\s+\d+\.\d\d/m, /^ratio status \/ git status\s+\d+\.\d\dx/m],
};

describe('npm run bench -- --quick', () => {
  it('runs every bench to exit 0 and each prints its ratio lines', () => {
    const built = readdirSync(join(REPO_ROOT, 'dist', 'bench')).filter((f) => f.endsWith('.mjs')).map((f) => f.replace(/\.mjs$/, '')).sort();
    expect(built).toEqual(Object.keys(RATIO_LINES).sort());
    const r = spawnSync(process.execPath, ['bench/run.mjs', '--quick', ...built], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, BENCH_GATE_CACHE: '0' } });
    expect(r.stderr).not.toContain('bench: failed');
    expect(r.status).toBe(0);
    const sections = new Map<string, string>();
    for (const part of r.stdout.split(/^== bench\//m).slice(1)) {
      const name = part.slice(0, part.indexOf(' =='));
      sections.set(name, part);
    }
    expect([...sections.keys()].sort()).toEqual(built);
    for (const [name, patterns] of Object.entries(RATIO_LINES)) {
      for (const p of patterns) expect(sections.get(name), `${name}: ${p}`).toMatch(p);
    }
  }, 300_000);
});
