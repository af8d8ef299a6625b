// The README's two command lines are the product's contract with a fresh machine; .ci/run must run
// exactly the README's test line (DEVELOPERS: "`.ci/run` runs exactly the README's test line").
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/cli.js';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const ci = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8');
const shLines = [...readme.matchAll(/```sh\n([^\n]+)\n```/g)].map((m) => m[1] as string);

describe('README command lines', () => {
  it('has exactly one demo line and one test line', () => {
    expect(shLines.filter((l) => l.endsWith('npm run demo'))).toHaveLength(1);
    expect(shLines.filter((l) => l.endsWith('npm test'))).toHaveLength(1);
  });
  it('.ci/run runs the README test line verbatim and prints the plain summary line', () => {
    const testLine = shLines.find((l) => l.endsWith('npm test')) as string;
    expect(ci.split('\n')).toContain(testLine);
    expect(ci).toContain('echo "${passed} passed, ${failed} failed"');
  });
});
