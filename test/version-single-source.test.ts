// One version string, package.json's: `governed --version` prints it, and no source file spells a version literal
// of its own (the VSA's signed verifier version is checked in test/gate-attest.test.ts).
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GOVERNED_VERSION } from '../src/core/version.js';
import { CLI, REPO_ROOT } from './helpers/cli.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe("governed's version", () => {
  it('is package.json version, in the built CLI and in src/core/version.ts under vitest', () => {
    expect(execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' }).trim()).toBe(pkg.version);
    expect(GOVERNED_VERSION).toBe(pkg.version);
  });
  it('is spelled nowhere in src/ (every reader takes GOVERNED_VERSION)', () => {
    const literal = new RegExp(`['"\`]${pkg.version.replace(/\./g, '\\.')}['"\`]`);
    const offenders = sources(join(REPO_ROOT, 'src')).filter((f) => literal.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
