// A code is defined in exactly one error-code table: errors.ts spreads the tables into one object, so a code listed in
// two would compile and the later table's exit code would win silently — even the same code with the same exit fails here.
import { describe, it, expect } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ERROR_CODES, REASON_CODES } from '../src/core/errors.js';
import { REPO_ROOT } from './helpers/cli.js';

const DIR = join(REPO_ROOT, 'src', 'core', 'error-codes');

/** Every table of every module under src/core/error-codes/: [file, export, codes]. */
async function tables(): Promise<{ file: string; name: string; codes: string[] }[]> {
  const out: { file: string; name: string; codes: string[] }[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.ts') && f !== 'def.ts').sort()) {
    const mod = (await import(pathToFileURL(join(DIR, file)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      if (/_(ERRORS|REASONS)$/.test(name)) out.push({ file, name, codes: Object.keys(value as object) });
    }
  }
  return out;
}

describe('error-code tables', () => {
  it('define each error and reason code once, across all tables', async () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const t of await tables()) {
      for (const code of t.codes) {
        const where = `${t.file} ${t.name}`;
        const first = seen.get(code);
        if (first !== undefined) twice.push(`${code}: ${first} and ${where}`);
        else seen.set(code, where);
      }
    }
    expect(twice).toEqual([]);
  });
  it('are all assembled by errors.ts (the union of the tables is ERROR_CODES and REASON_CODES)', async () => {
    const all = await tables();
    const union = (kind: string): string[] => all.filter((t) => t.name.endsWith(kind)).flatMap((t) => t.codes).sort();
    expect(union('_ERRORS')).toEqual(Object.keys(ERROR_CODES).sort());
    expect(union('_REASONS')).toEqual(Object.keys(REASON_CODES).sort());
  });
});
