import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderErrorsDoc } from '../src/core/errors-doc.js';
import { ERROR_CODES, REASON_CODES, highestPrecedence, GovernedError } from '../src/core/errors.js';
import { REPO_ROOT } from './helpers/cli.js';

describe('error lists (docs/commands.md#exit-codes)', () => {
  it('docs/errors.md is generated from the lists and not stale (npm run errors:doc)', () => {
    expect(readFileSync(join(REPO_ROOT, 'docs', 'errors.md'), 'utf8')).toBe(renderErrorsDoc());
  });
  it('codes are snake_case, error and reason lists are disjoint, exits are 1,2,4..9', () => {
    for (const [code, d] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect([1, 2, 4, 5, 6, 7, 8, 9]).toContain(d.exit);
      expect(code in REASON_CODES).toBe(false);
      expect(d.summary).not.toMatch(/\$\{/);
    }
    for (const code of Object.keys(REASON_CODES)) expect(code).toMatch(/^[a-z][a-z0-9_:]*$/);
  });
  it('no placeholder entries remain', () => {
    expect(Object.keys(ERROR_CODES).filter((c) => c.includes('placeholder'))).toEqual([]);
  });
  it('precedence 1 > 4 > 6 > 5 > 8 > 7 > 2 > 3', () => {
    expect(highestPrecedence([3, 2, 7])).toBe(7);
    expect(highestPrecedence([6, 4])).toBe(4);
    expect(highestPrecedence([5, 6])).toBe(6);
    expect(highestPrecedence([8, 5])).toBe(5);
    expect(highestPrecedence([1, 4])).toBe(1);
    expect(highestPrecedence([])).toBe(0);
  });
  it('error messages never carry values', () => {
    const e = new GovernedError('schema_invalid', { ids: ['field.path'] });
    expect(e.message).toBe(ERROR_CODES.schema_invalid.summary);
  });
});
