// Demo section: `governed review-pass` over examples/sample-repo with two REAL tools as reviewers
// (tsc --noEmit and ESLint, governed's own devDependencies, each run in a read-only bubblewrap view
// of the repository). Standalone (`node scripts/demo-review-pass.mjs` after a build) and callable
// from the main demo: `import { demoReviewPass } from './demo-review-pass.mjs'`.
// Its three steps (numbered from `firstStep`):
//   1. review the sample as shipped: the typo both tools see is CONFIRMED, the rest are escalations;
//   2. the same reviewers as weave lanes: consensus, promotion, blind labels;
//   3. the writer (this script — never the orchestrator) fixes the code; a new review converges
//      CLEAN after two clean rounds.
// The CLI's stdout carries counts and paths only; the findings are read here from the 0600 result
// files, as a user would.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// `firstStep`: the number of this section's first step, so the main demo numbers its steps on from
// its own (standalone: 1).
export function demoReviewPass({ cli = process.env.GOVERNED_CLI ?? join(root, 'dist', 'governed.mjs'), out = process.stdout, firstStep = 1 } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'governed-demo-review-pass-'));
  const config = join(root, 'examples', 'review-pass.yaml');
  let failures = 0;
  const say = (text = '') => out.write(`   ${text}\n`);
  let next = firstStep;
  const step = (title) => out.write(`\n\u2501\u2501 ${next++}. ${title}\n`);
  const governed = (repo, args, expectExit, tag) => {
    const outDir = join(work, tag);
    const full = ['review-pass', '--stage', 'development', '--config', config, '--out', outDir, ...args];
    out.write(`   $ governed ${full.map((a) => a.replaceAll(work, '$DEMO').replaceAll(root, '.')).join(' ')}\n`);
    const r = spawnSync(process.execPath, [cli, ...full], { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' } });
    for (const line of `${r.stdout}${r.stderr}`.trimEnd().split('\n')) if (line) out.write(`     ${line.replaceAll(work, '$DEMO')}\n`);
    const ok = r.status === expectExit;
    if (!ok) failures++;
    say(`${ok ? '\u2713' : '\u2717 UNEXPECTED'} exit ${r.status} (expected ${expectExit})`);
    let result = null;
    try {
      result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8'));
    } catch {
      failures++;
    }
    return result;
  };
  const finding = (g) => `${g.file}:${g.line} [${g.severity}] ${g.description} (reviewers: ${g.supporters.join(', ')})`;

  try {
    const sample = join(work, 'sample-repo');
    cpSync(join(root, 'examples', 'sample-repo'), sample, { recursive: true });

    step('review-pass over examples/sample-repo: tsc and ESLint as the two reviewers');
    say('Both tools run in a read-only sandbox of the repository (no network, no writes).');
    const first = governed(sample, [], 9, 'first');
    if (first) {
      say(`result ${first.result}: ${first.reasons.join(', ')}`);
      say('CONFIRMED (both independent tools report it — consensus, docs/review-pass-protocol.md#classification):');
      for (const g of first.confirmed) say(`  ${finding(g)}`);
      say('Escalations (one tool only; with R=2 a solo finding is CONTESTED, and no arbiter is configured):');
      for (const g of first.escalations) say(`  ${finding(g)}`);
      say(`health: ${first.health.map((h) => `${h.reviewer} ${h.health}`).join(', ')}; auto-fix: ${first.auto_fix}`);
    }

    step('The same two reviewers as weave lanes: blind labels, consensus, severity promotion');
    const weave = governed(sample, ['--protocol', 'weave'], 9, 'weave');
    if (weave) {
      for (const f of weave.findings) say(`  ${f.issue_id} ${f.final_severity.padEnd(10)} ${f.tag.padEnd(28)} ${f.file}:${f.line} ${f.title}`);
      say(`labels: ${Object.entries(weave.label_map).map(([l, p]) => `${l}=${p}`).join(', ')}`);
    }

    step('The writer fixes the code (the orchestrator never edits); a new review converges');
    const inv = join(sample, 'src', 'inventory.ts');
    writeFileSync(
      inv,
      readFileSync(inv, 'utf8')
        .replace("    return 'none';", '    return 0;')
        .replace('  return item.price * count;', '  return item === undefined ? 0 : item.price * count;'),
    );
    const rep = join(sample, 'src', 'report.js');
    writeFileSync(
      rep,
      readFileSync(rep, 'utf8')
        .replace('  let lines = [];', '  const lines = [];')
        .replace('  return totl;', '  return total;')
        .replace("  const unused = 'left over';\n", '')
        .replace('  return quantity == 0;', '  return Number(quantity) === 0;'),
    );
    const fixed = governed(sample, [], 0, 'fixed');
    if (fixed) {
      say(`result ${fixed.result} after ${fixed.rounds} rounds: ${fixed.review_log.map((e) => `round ${e.round} ${e.result}`).join(', ')}`);
      say(`delivery state ${fixed.delivery_state} (${fixed.delivery_reasons.join(', ')}): the protocol result is advisory; only \`governed gate\` decides release.`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return failures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const failures = demoReviewPass();
  process.stdout.write(`\n${failures === 0 ? 'review-pass demo: all steps behaved as expected' : `review-pass demo: ${failures} unexpected result(s)`}\n`);
  process.exitCode = failures === 0 ? 0 : 1;
}
