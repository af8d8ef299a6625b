// docs/contract-init.md's example is the product's: its skeleton is exactly what `governed contract
// init` prints for its request, and its filled contract passes every contract rule (docs/contract.md#validation-rules) against
// the request's bytes (positive control: the skeleton itself is refused for its placeholders).
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseContractText } from '../src/core/contract/text.js';
import { validateContract } from '../src/core/contract/validate.js';
import { REPO_ROOT, runCli } from './helpers/cli.js';

const doc = readFileSync(join(REPO_ROOT, 'docs', 'contract-init.md'), 'utf8');
const blocks = (lang: string): string[] => [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);
const [request] = blocks('text');
const [skeleton, filled] = blocks('yaml');
const dir = mkdtempSync(join(tmpdir(), 'gvd-eco-cdoc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/contract-init.md example', () => {
  it('the skeleton is what contract init prints for the request', () => {
    mkdirSync(join(dir, 'requests'));
    writeFileSync(join(dir, 'requests', 'export.md'), request as string);
    const r = runCli(['contract', 'init', '--source', 'requests/export.md', '--atoms', 'line', '--title', 'Export command'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(skeleton);
  });

  it('the filled contract passes every rule against the request bytes; the skeleton is refused', () => {
    const sourceBytes = new Map([['SRC-1', Buffer.from(request as string, 'utf8')]]);
    expect(() => validateContract(parseContractText(filled as string, 'c.yaml'), { sourceBytes, productRoots: ['.'] })).not.toThrow();
    expect(() => parseContractText(skeleton as string, 'c.yaml')).toThrow(expect.objectContaining({ code: 'contract_fill_in_left' }));
  });
});
