// The build guard (first step of `npm test`): every committed pinned program (attestors/*.mjs,
// runner/reviewers/*.mjs) must be byte-for-byte what a fresh build of its sources gives. Each is
// built with the real buildPinned into a private temporary directory — the tree is not written —
// and compared with the file on disk; a missing, stale or sourceless one is named and the exit is
// 1. Without this, `npm test` rebuilt them before the tests compared, so a stale bundle passed.
// Usage: node scripts/check-pinned.mjs [ROOT]   (ROOT: a repository tree, default this one's)
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPinned, pinnedPrograms } from './pinned-build.mjs';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const out = mkdtempSync(join(tmpdir(), 'governed-check-pinned-'));
const problems = [];
try {
  const programs = pinnedPrograms(root);
  if (programs.length === 0) problems.push('no pinned program sources found');
  for (const [i, [entry, outfile]] of programs.entries()) {
    const fresh = join(out, String(i), outfile);
    await buildPinned(entry, fresh, root);
    const committed = join(root, outfile);
    if (!existsSync(committed)) problems.push(`${outfile}: missing (npm run build writes it; commit it)`);
    else if (!readFileSync(committed).equals(readFileSync(fresh))) problems.push(`${outfile}: differs from a fresh build of ${entry} (npm run build, then commit it)`);
  }
  const outputs = new Set(programs.map(([, o]) => o));
  for (const dir of ['attestors', 'runner/reviewers', 'runner/egress']) {
    if (!existsSync(join(root, dir))) continue;
    for (const f of readdirSync(join(root, dir))) {
      if (f.endsWith('.mjs') && !outputs.has(`${dir}/${f}`)) problems.push(`${dir}/${f}: a pinned program with no source in ${dir}/src`);
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
if (problems.length > 0) {
  process.stderr.write(`check-pinned: stale pinned programs:\n${problems.map((p) => `  ${p}\n`).join('')}`);
  process.exit(1);
}
process.stdout.write('check-pinned: every pinned program matches a fresh build of its sources\n');
