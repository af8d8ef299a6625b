// One definition of strict UTF-8 (src/core/utf8.ts): no other module of src/ builds its own fatal
// TextDecoder, so every reader refuses the same bytes the same way. The pinned programs (attestors/, runner/reviewers/) are
// single self-contained files and are not scanned here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

const FATAL_DECODER = /new\s+TextDecoder\s*\([^)]*fatal/;

describe('strict UTF-8 has one definition in src/', () => {
  const files = tsFiles(join(REPO_ROOT, 'src'));

  it('positive control: the scan finds the one decoder in src/core/utf8.ts', () => {
    const hits = files.filter((f) => FATAL_DECODER.test(readFileSync(f, 'utf8'))).map((f) => relative(REPO_ROOT, f));
    expect(hits).toContain('src/core/utf8.ts');
  });

  it('no other module builds a fatal TextDecoder (use utf8OrNull / decodeUtf8)', () => {
    const hits = files.filter((f) => FATAL_DECODER.test(readFileSync(f, 'utf8'))).map((f) => relative(REPO_ROOT, f));
    expect(hits.filter((f) => f !== 'src/core/utf8.ts')).toEqual([]);
  });
});
