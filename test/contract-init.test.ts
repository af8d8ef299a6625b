// `governed contract init` (docs/contract-init.md): the skeleton's atoms tile each source byte for
// byte in every mode (multi-byte UTF-8, CRLF, leading/trailing blank text), each obligation's
// statement is verbatim, placeholders are refused by the one contract parser with every field path,
// and once filled the skeleton passes every docs/contract.md#validation-rules rule of validateContract. CLI refusals name the
// option, never the value.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertAtomsTileSource } from '../src/core/contract/spans.js';
import { ATOM_MODES, contractSkeleton, segmentSource, skeletonYaml, type AtomMode } from '../src/core/contract/skeleton.js';
import { parseContract } from '../src/core/contract/schema.js';
import { parseContractText } from '../src/core/contract/text.js';
import { validateContract } from '../src/core/contract/validate.js';
import { GovernedError } from '../src/core/errors.js';
import { jsonOut, runCli } from './helpers/cli.js';

const TEXTS = {
  twoLines: 'Add an export command.\nDocument it in the README.\n',
  utf8: '  Écrire «CSV» 😀 vite. Ne pas casser l’API!\r\n\r\nZweiter Absatz: Größe ≤ 4 KiB?  Ja.\n\n\n',
  noNewline: 'One obligation without a final newline',
  cjk: '导出命令。每条记录一行。\n第二段\n',
};

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return e instanceof GovernedError ? e.code : 'not-coded';
  }
  return undefined;
};

describe('segmentSource', () => {
  for (const [name, text] of Object.entries(TEXTS)) {
    for (const mode of ATOM_MODES) {
      it(`tiles the ${name} source exactly in ${mode} mode, on character boundaries`, () => {
        const bytes = Buffer.from(text, 'utf8');
        const segs = segmentSource(text, mode);
        const atoms = segs.map((s, i) => ({ id: `ATOM-${i + 1}`, span: [s.start, s.end] as [number, number], kind: s.kind, directives: [] }));
        expect(() => assertAtomsTileSource('SRC-1', atoms, bytes)).not.toThrow();
        for (const s of segs) {
          expect(bytes.subarray(s.start, s.end).toString('utf8')).toBe(s.text);
          if (s.kind === 'obligation') expect(s.text).toBe(s.text.trim());
          else expect(s.text.trim()).toBe('');
        }
      });
    }
  }

  it('splits by line, paragraph and sentence as documented', () => {
    const ob = (t: string, m: AtomMode) => segmentSource(t, m).filter((s) => s.kind === 'obligation').map((s) => s.text);
    const text = 'First rule. Second rule!\nStill para one.\n\nPara two "quoted." Next?\n';
    expect(ob(text, 'line')).toEqual(['First rule. Second rule!', 'Still para one.', 'Para two "quoted." Next?']);
    expect(ob(text, 'paragraph')).toEqual(['First rule. Second rule!\nStill para one.', 'Para two "quoted." Next?']);
    expect(ob(text, 'sentence')).toEqual(['First rule.', 'Second rule!', 'Still para one.', 'Para two "quoted."', 'Next?']);
  });
});

describe('the skeleton', () => {
  const sources = [
    { path: 'requests/a.md', text: TEXTS.twoLines },
    { path: 'requests/b.md', text: TEXTS.utf8 },
  ];

  it('round-trips through YAML to the same value, and is refused for its placeholders with every field path', () => {
    const value = contractSkeleton(sources, 'line');
    const yaml = skeletonYaml(value, 'line');
    let err: GovernedError | undefined;
    try {
      parseContractText(yaml, 'c.yaml');
    } catch (e) {
      err = e as GovernedError;
    }
    expect(err?.code).toBe('contract_fill_in_left');
    expect(err?.ids).toContain('$.title');
    expect(err?.ids).toContain('$.directives[0].targets[0].paths[0]');
    expect(err?.ids).toContain('$.directives[0].criteria[0].statement');
    expect(err?.ids).toContain('$.implementations[0].paths[0]');
    expect(err?.ids).toContain('$.evidence[0].paths[0]');
    expect(err?.ids.length).toBe(16); // capped: the first sixteen, in document order
    expect(err?.message).not.toContain('a short title');
  });

  it('filled in, passes every contract rule against the source bytes (verbatim statements, reciprocity, tiling)', () => {
    const value = contractSkeleton(sources, 'sentence', 'A title') as Record<string, any>;
    value.directives.forEach((d: any, i: number) => {
      d.targets[0].paths = [`src/f${i}.js`];
      d.criteria[0].statement = 'met when the test passes';
    });
    value.implementations.forEach((x: any, i: number) => (x.paths = [`src/f${i}.js`]));
    value.evidence.forEach((x: any, i: number) => (x.paths = [`test/f${i}.test.js`]));
    const contract = parseContract(value);
    const sourceBytes = new Map(sources.map((s, i) => [`SRC-${i + 1}`, Buffer.from(s.text, 'utf8')]));
    expect(() => validateContract(contract, { sourceBytes, productRoots: ['.'] })).not.toThrow();
    // Positive control: the same contract with one span shifted by a byte breaks tiling.
    const broken = structuredClone(value);
    broken.sources[1].atoms[1].span[0] += 1;
    expect(codeOf(() => validateContract(parseContract(broken), { sourceBytes, productRoots: ['.'] }))).toMatch(/^contract_span_/);
  });

  it('a placeholder left in any one field is still refused (positive control: none left passes the parser)', () => {
    const value = contractSkeleton([{ path: 'r.md', text: 'Do it.\n' }], 'line', 'T') as Record<string, any>;
    const fill = () => {
      value.directives[0].targets[0].paths = ['a.js'];
      value.directives[0].criteria[0].statement = 'ok';
      value.implementations[0].paths = ['a.js'];
      value.evidence[0].paths = ['a.test.js'];
    };
    fill();
    expect(() => parseContract(value)).not.toThrow();
    value.evidence[0].paths = ['a.test.js', '<<FILL-IN: more>>'];
    expect(codeOf(() => parseContract(value))).toBe('contract_fill_in_left');
  });
});

describe('governed contract init (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gvd-eco-cinit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'req.md'), TEXTS.cjk);
  writeFileSync(join(dir, 'bad.md'), Buffer.from([0x41, 0xff, 0x0a]));

  it('writes the skeleton once, never over an existing file', () => {
    const out = join(dir, 'c.yaml');
    const r = runCli(['contract', 'init', '--source', 'req.md', '--atoms', 'sentence', '--out', out, '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    // `。` is not followed by whitespace: sentence mode splits only at whitespace (docs/contract-init.md).
    expect(jsonOut(r)).toMatchObject({ ok: true, sources: 1, directives: 2 });
    const bytes = readFileSync(out);
    const again = runCli(['contract', 'init', '--source', 'req.md', '--out', out, '--json'], { cwd: dir });
    expect(again.code).toBe(2);
    expect((jsonOut(again).error as { code: string }).code).toBe('contract_init_output_exists');
    expect(readFileSync(out)).toEqual(bytes);
  });

  it('prints the skeleton on stdout without --out', () => {
    const r = runCli(['contract', 'init', '--source', 'req.md', '--atoms', 'line'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('statement: "导出命令。每条记录一行。"');
  });

  it('refuses a source outside the repository, a missing one and a non-UTF-8 one, naming the option only', () => {
    for (const [source, code, ids] of [
      ['../etc/passwd', 'contract_init_source_invalid', ['--source[0]']],
      ['/etc/passwd', 'contract_init_source_invalid', ['--source[0]']],
      ['missing.md', 'contract_init_source_invalid', ['--source[0]']],
      ['bad.md', 'contract_source_not_utf8', ['SRC-1']],
    ] as const) {
      const out = join(dir, `x-${code}.yaml`);
      const r = runCli(['contract', 'init', '--source', source, '--out', out, '--json'], { cwd: dir });
      expect(r.code).toBe(2);
      expect(jsonOut(r).error).toMatchObject({ code, ids });
      expect(`${r.stdout}${r.stderr}`).not.toContain(source);
      expect(existsSync(out)).toBe(false);
    }
  });
});
