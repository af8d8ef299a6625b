// Runs every benchmark built from bench/*.ts (dist/bench/*.mjs), one process each, in sequence, so
// they do not compete for the 2 cores. Each prints its own ratios against a native baseline
// measured in the same run. `npm run bench -- NAME` runs one; `--quick` runs each with small
// counts and unjudged bars (bench/lib/quick.ts), as test/bench-quick.test.ts does in `npm test`.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('--'));
const only = args.filter((a) => !a.startsWith('--'));
const all = readdirSync('dist/bench').filter((f) => f.endsWith('.mjs')).sort();
const unknown = only.filter((n) => !all.includes(`${n}.mjs`));
if (unknown.length > 0) {
  process.stderr.write(`bench: no such bench: ${unknown.join(', ')}\n`);
  process.exit(2);
}
if (flags.includes('--quick')) process.stdout.write('quick mode: small counts, one round; the numbers are not measurements and no bar is judged\n');
const failed = [];
for (const f of all) {
  const name = f.replace(/\.mjs$/, '');
  if (only.length > 0 && !only.includes(name)) continue;
  process.stdout.write(`\n== bench/${name} ==\n`);
  const r = spawnSync(process.execPath, [`dist/bench/${f}`, ...flags], { stdio: 'inherit' });
  if (r.status !== 0) failed.push(name);
}
if (failed.length > 0) process.stderr.write(`bench: failed: ${failed.join(', ')}\n`);
process.exitCode = failed.length === 0 ? 0 : 1;
