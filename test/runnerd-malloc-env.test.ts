// Guards glibc's malloc settings of the daemon and its sandbox host (docs/performance.md#the-daemons-memory-over-many-runs).
//  - one definition: the daemon's systemd unit sets exactly RUNNERD_MALLOC_ENV (the settings the
//    daemon gives its sandbox host), so the two cannot drift apart;
//  - glibc honours them: a node whose worker threads allocate keeps at most MALLOC_ARENA_MAX - 1
//    arenas beside the main one (counted in /proc/self/maps: a 64 MiB-aligned heap of glibc's);
//    control: the same process without the settings gets more than twice that many;
//  - the mmap threshold stays fixed: after a large block is freed, a 1 MiB block is still mmapped on
//    its own and given back when freed (control: glibc's default raises the threshold and the
//    freed 1 MiB blocks stay in the main arena, resident).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUNNERD_MALLOC_ENV } from '../src/flows/runnerd/malloc-env.js';
import { RUNNERD_MALLOC_ARENA_MAX } from '../src/core/limits.js';
import { REPO_ROOT } from './helpers/cli.js';

const ARENAS = `
const { readFileSync } = require('node:fs');
const { Worker } = require('node:worker_threads');
const H = 64n << 20n;
function arenas() {
  const maps = readFileSync('/proc/self/maps', 'latin1').split('\\n')
    .map((x) => /^([0-9a-f]+)-([0-9a-f]+) (\\S+) 00000000 00:00 0\\s*$/.exec(x))
    .map((m) => m && { s: BigInt('0x' + m[1]), e: BigInt('0x' + m[2]), p: m[3] });
  let n = 0;
  maps.forEach((m, i) => {
    if (!m || m.p !== 'rw-p' || m.s % H !== 0n) return;
    const nx = maps[i + 1];
    if (m.e === m.s + H || (nx && nx.p === '---p' && nx.s === m.e && nx.e === m.s + H)) n++;
  });
  return n;
}
const ws = Array.from({ length: 6 }, () => new Worker('const a=[];for(let i=0;i<1e4;i++)a.push(Buffer.alloc(200));setInterval(()=>{},1000)', { eval: true }));
Promise.all(ws.map((w) => new Promise((r) => w.once('online', r)))).then(() => setTimeout(() => {
  process.stdout.write(String(arenas()));
  for (const w of ws) w.terminate();
}, 500));
`;

// A large block freed, then sixteen 1 MiB blocks held and freed: the main arena's resident size ([heap] in
// /proc/self/smaps, KiB) at the start, while they are held and after they are freed.
const MMAP = `
const { readFileSync } = require('node:fs');
function heapKb() {
  let on = false, kb = 0;
  for (const x of readFileSync('/proc/self/smaps', 'latin1').split('\\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(x)) on = x.endsWith('[heap]');
    else if (on && x.startsWith('Rss:')) kb += Number(x.split(/\\s+/)[1]);
  }
  return kb;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  const start = heapKb();
  let big = Buffer.allocUnsafeSlow(16 << 20); big.fill(1); big = null;
  // V8 frees an ArrayBuffer's backing store on a background sweeper thread: on a loaded machine
  // three short rounds were not always enough for the free (that raises glibc's threshold) to happen.
  for (let i = 0; i < 20; i++) { globalThis.gc(); await sleep(50); }
  let keep = [];
  for (let i = 0; i < 16; i++) { const b = Buffer.allocUnsafeSlow(1 << 20); b.fill(1); keep.push(b); }
  const held = heapKb();
  keep = null;
  for (let i = 0; i < 3; i++) { globalThis.gc(); await sleep(50); }
  process.stdout.write(JSON.stringify({ start, held, freed: heapKb() }));
})();
`;

describe("the daemon's and sandbox host's glibc malloc settings", () => {
  it('the systemd unit gives the daemon exactly the settings the daemon gives its sandbox host', () => {
    const unit = readFileSync(join(REPO_ROOT, 'docs', 'deploy', 'governed-runnerd.service'), 'utf8');
    const env: Record<string, string> = {};
    for (const line of unit.split('\n')) {
      const m = /^Environment=([A-Z_]+)=(\S+)$/.exec(line);
      if (m !== null) env[m[1] as string] = m[2] as string;
    }
    expect(env).toEqual({ ...RUNNERD_MALLOC_ENV });
    expect(Object.keys(RUNNERD_MALLOC_ENV).sort()).toEqual(['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']);
  });

  it('glibc keeps at most MALLOC_ARENA_MAX arenas with them; without them (control) a threaded node gets many more', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gvd-malloc-'));
    try {
      writeFileSync(join(dir, 'arenas.cjs'), ARENAS);
      const run = (env: Record<string, string>): number => {
        const r = spawnSync(process.execPath, [join(dir, 'arenas.cjs')], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', ...env } });
        expect(r.status, r.stderr).toBe(0);
        return Number(r.stdout);
      };
      const bound = run({ ...RUNNERD_MALLOC_ENV });
      const control = run({});
      expect(bound).toBeLessThanOrEqual(RUNNERD_MALLOC_ARENA_MAX - 1);
      expect(control).toBeGreaterThan(2 * RUNNERD_MALLOC_ARENA_MAX);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a freed large block does not raise the mmap threshold with them: 1 MiB blocks stay out of the main arena; without them (control) they stay resident there after being freed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gvd-malloc-'));
    try {
      writeFileSync(join(dir, 'mmap.cjs'), MMAP);
      const run = (env: Record<string, string>): { start: number; held: number; freed: number } => {
        const r = spawnSync(process.execPath, ['--expose-gc', join(dir, 'mmap.cjs')], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', ...env } });
        expect(r.status, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as { start: number; held: number; freed: number };
      };
      const bound = run({ ...RUNNERD_MALLOC_ENV });
      const control = run({});
      // KiB: the sixteen blocks are 16,384 KiB.
      expect(bound.held - bound.start).toBeLessThan(4096);
      expect(bound.freed - bound.start).toBeLessThan(4096);
      expect(control.held - control.start).toBeGreaterThan(16_000);
      expect(control.freed - control.start).toBeGreaterThan(16_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
