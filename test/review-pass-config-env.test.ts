// review-pass.yaml tool environments (docs/review-pass.md#review-protocols non-governed mode, docs/threat-model.md#rules-that-hold-everywhere fail closed with a
// stable code). A NUL inside a tool's `env` value cannot be passed by execve; before the fix the
// configuration loaded and the sandbox builder threw mid-run, which the CLI reported as
// internal_error (exit 1). It must be refused as orchestrator_config_invalid (exit 2), by field,
// with the value never echoed and no output directory left behind.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/flows/review-pass/config-load.js';
import { isGovernedError } from '../src/core/errors.js';
import { makeTempRepo } from './helpers/git-repo.js';
import { runCli } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';

const SECRET = 'S3CRET-env-value';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return isGovernedError(e) ? `${e.code}:${e.ids.join(',')}` : `uncoded:${String(e)}`;
  }
  return 'no error';
}

const config = (env: Record<string, string>): unknown => ({
  tools: { mine: { command: ['/usr/bin/cat'], parse: 'text_fallback', env } },
  stages: { development: { reviewers: ['mine'], arbiter: null } },
});

describe('review-pass tool env values', () => {
  it('refuses a NUL inside an env value at load, naming the field', () => {
    expect(codeOf(() => resolveConfig(config({ FOO: `a\u0000${SECRET}` }), 'review-pass.yaml'))).toBe('orchestrator_config_invalid:tools.mine.env');
  });

  it('still accepts ordinary values', () => {
    const c = resolveConfig(config({ FOO: 'bar' }), 'review-pass.yaml');
    expect(c.tools.mine?.env).toEqual({ FOO: 'bar' });
  });

  it('the CLI exits 2 with the coded error, one JSON object, no value echoed, no output directory', () => {
    const repo = makeTempRepo({ prefix: 'governed-review-pass-env-repo-' });
    try {
      repo.write('a.js', 'export const a = 1;\n');
      repo.commitAll();
      const side = makeTempDir('governed-review-pass-env-'); // outside the repository, removed after the file
      const cfg = join(side, 'cfg.json');
      writeFileSync(cfg, JSON.stringify(config({ FOO: `a\u0000${SECRET}` })));
      const out = join(side, 'out');
      const r = runCli(['review-pass', '--stage', 'development', '--config', cfg, '--repo', repo.root, '--out', out, '--json'], { cwd: repo.root });
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] as string)).toMatchObject({ ok: false, error: { code: 'orchestrator_config_invalid', ids: ['tools.mine.env'] } });
      expect(r.stdout + r.stderr).not.toContain(SECRET);
      expect(existsSync(out)).toBe(false);
    } finally {
      repo.cleanup();
    }
  });
});
