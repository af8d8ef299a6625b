// Renders docs/errors.md from the two code lists (docs/commands.md#exit-codes). Pure: no I/O.
import { ERROR_CODES, REASON_CODES, EXIT_PRECEDENCE } from './errors.js';

const EXIT_MEANING: Record<number, string> = {
  0: 'success',
  1: 'internal error',
  2: 'usage or configuration error',
  3: 'REVIEW_ONLY (policy not satisfied)',
  4: 'verification failure',
  5: 'stale or replayed',
  6: 'untrusted key or executable',
  7: 'no evidence',
  8: 'refused by state',
  9: 'review not clean',
};

export function renderErrorsDoc(): string {
  const lines: string[] = [];
  lines.push('# Error and reason codes');
  lines.push('');
  lines.push('<!-- GENERATED from src/core/errors.ts by `npm run errors:doc`; test/errors.test.ts fails when stale. -->');
  lines.push('');
  lines.push('Every non-zero exit code means *deny*. Error codes stop a command and map to exactly one exit');
  lines.push('code; reason codes explain a `REVIEW_ONLY` decision (exit 3). Messages never contain the rejected');
  lines.push('value, only the code and identifiers (docs/threat-model.md#rules-that-hold-everywhere).');
  lines.push('');
  lines.push(`When several failures apply, the exit code follows the precedence ${EXIT_PRECEDENCE.join(' > ')}.`);
  lines.push('');
  lines.push('## Exit codes');
  lines.push('');
  lines.push('| exit | meaning |');
  lines.push('|---|---|');
  for (const [k, v] of Object.entries(EXIT_MEANING)) lines.push(`| ${k} | ${v} |`);
  lines.push('');
  lines.push('## Error codes');
  lines.push('');
  lines.push('| code | exit | meaning |');
  lines.push('|---|---|---|');
  const errs = Object.entries(ERROR_CODES).sort(([a, x], [b, y]) => x.exit - y.exit || (a < b ? -1 : 1));
  for (const [code, d] of errs) lines.push(`| \`${code}\` | ${d.exit} | ${d.summary} |`);
  lines.push('');
  lines.push('## Reason codes (exit 3)');
  lines.push('');
  lines.push('| code | meaning |');
  lines.push('|---|---|');
  for (const [code, summary] of Object.entries(REASON_CODES).sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(`| \`${code}\` | ${summary} |`);
  }
  lines.push('');
  return lines.join('\n');
}
