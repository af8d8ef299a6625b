// Runs every benchmark built from bench/*.ts (dist/bench/*.mjs), one process each, in sequence, so
// they do not compete for the 2 cores. Each prints its own ratios against a native baseline
// measured in the same run. `npm run bench -- NAME` runs one.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const only = process.argv.slice(2);
const all = readdirSync('dist/bench').filter((f) => f.endsWith('.mjs')).sort();
let failed = 0;
for (const f of all) {
  const name = f.replace(/\.mjs$/, '');
  if (only.length > 0 && !only.includes(name)) continue;
  process.stdout.write(`\n== bench/${name} ==\n`);
  const r = spawnSync(process.execPath, [`dist/bench/${f}`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
