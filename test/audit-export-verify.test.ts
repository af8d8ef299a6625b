// `governed audit verify --export DIR` (docs/commands.md#what-each-command-guarantees, docs/threat-model.md#rules-that-hold-everywhere item 6) through the built CLI, on an export of a
// real store (the gate tests' story: real git, real keys, receipts as the runner makes them): a
// clean export verifies with the store audit's own counts; every attack on a copy of the export
// fails with its exact code and exit — an edited or dropped log line, a consistent rewrite (caught
// by the signed predicate, or by a checkpoint taken before), a swapped receipt, an extra, missing or
// non-regular file, an edited manifest, a replaced trust root, a foreign --trust — and DIR is never
// written (every entry's type, mode, size, mtime and sha256 compared before/after).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, digestOf } from '../src/core/canonical.js';
import { buildCheckpointStatement } from '../src/core/checkpoint.js';
import { entryHashOf } from '../src/store/index.js';
import { jsonOut, runCli, type CliResult } from './helpers/cli.js';
import { makeKey, payloadOf, signEnvelope, tempDir, trustRootDoc } from './helpers/receipts.js';
import { eligibleStory, type Story } from './gate-world.js';
import { assertNoSecrets, gov, recordAuthorityFor } from './state-helpers.js';
import type { LogLine } from './audit-helpers.js';

interface Failure {
  code: string;
  exit: number;
  ids: string[];
}
interface AuditJson {
  ok: boolean;
  exit: number;
  log: { entries: number; head: string } | null;
  replay: { state_digest: string | null; matches: boolean } | null;
  unit: string | null;
  trust: string;
  receipts: { checked: number; failed: number };
  authority_records: { checked: number; failed: number };
  challenges: Record<string, number>;
  trust_modes: string[];
  checkpoints: { file: string; log_entries: number | null; matches: boolean }[];
  failures: Failure[];
  export?: { files: number; manifest: string; contents: string; unit: string | null; made_at: string };
  caveat?: string;
  error?: Failure;
}

const FORGED = 'ab'.repeat(32);
let story: Story;
let exportDir: string;
let unitExportDir: string;

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Every entry under DIR, never followed: kind, mode, size, mtime, and the sha256 of regular files. */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (abs: string, rel: string): void => {
    for (const name of readdirSync(abs).sort()) {
      const p = join(abs, name);
      const r = `${rel}${name}`;
      const st = lstatSync(p);
      const what = st.isFile() ? sha(readFileSync(p)) : st.isSymbolicLink() ? `-> ${readlinkSync(p)}` : st.isDirectory() ? 'dir' : 'special';
      out.push(`${r} ${st.mode} ${st.size} ${st.mtimeMs} ${what}`);
      if (st.isDirectory()) walk(p, `${r}/`);
    }
  };
  walk(dir, '');
  return out.join('\n');
}

/** A private copy of an export for one attack (cp -a keeps modes and times). */
function copyOf(dir: string): string {
  const copy = join(tempDir('governed-export-verify-copy-'), 'audit');
  execFileSync('/bin/cp', ['-a', dir, copy]);
  return copy;
}

function cli(args: readonly string[]): CliResult {
  return runCli(args, { cwd: story.w.repo.root });
}

/** `audit verify --export DIR …`, asserting DIR is byte-for-byte (and mode, mtime) unchanged. */
function verifyExport(dir: string, extra: readonly string[] = [], json = true): { code: number | null; out: AuditJson; r: CliResult } {
  const before = snapshot(dir);
  const r = cli(['audit', 'verify', '--export', dir, ...extra, ...(json ? ['--json'] : [])]);
  expect(snapshot(dir)).toBe(before);
  expect(r.stdout).not.toContain(FORGED);
  expect(r.stderr).not.toContain(FORGED);
  assertNoSecrets(r); // the request's source text never appears (the log holds only ids and digests)
  return { code: r.code, out: (json ? jsonOut(r) : {}) as unknown as AuditJson, r };
}

function readLines(dir: string): LogLine[] {
  return readFileSync(join(dir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LogLine);
}

function writeLines(dir: string, lines: readonly LogLine[]): void {
  writeFileSync(join(dir, 'log.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

/** What an attacker with the directory does: recompute every sha256 and the log head of the (unsigned) manifest. */
function reManifest(dir: string): void {
  const path = join(dir, 'manifest.json');
  const m = JSON.parse(readFileSync(path, 'utf8')) as { log: { entries: number; head: string }; files: { path: string; sha256: string }[] };
  const lines = readLines(dir);
  m.log = { entries: lines.length, head: (lines.at(-1) as LogLine).entry_hash };
  m.files = m.files.map((f) => ({ path: f.path, sha256: sha(readFileSync(join(dir, f.path))) }));
  writeFileSync(path, `${canonicalJson(m as never)}\n`);
}

/** Change one payload, recompute its digest and every later entry hash: a consistent chain. */
function rewriteExportLog(dir: string, seq: number, change: (p: Record<string, unknown>) => void): void {
  const lines = readLines(dir);
  let prev: string | null = null;
  for (const l of lines) {
    if (l.seq === seq) {
      change(l.payload);
      l.payload_digest = digestOf(l.payload as never);
    }
    if (l.seq >= seq) {
      if (prev !== null) l.prev_hash = prev;
      l.entry_hash = entryHashOf(l);
    }
    prev = l.entry_hash;
  }
  writeLines(dir, lines);
  reManifest(dir);
}

const seqOf = (dir: string, type: string): number => (readLines(dir).find((l) => l.type === type) as LogLine).seq;
const codes = (out: AuditJson): string[] => out.failures.map((f) => f.code);

/** A checkpoint of `dir`'s log head, signed by the trust root's log key (what `audit checkpoint` signs). */
function checkpointOf(dir: string): string {
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { log: { entries: number; head: string }; policy_digest: string; trust_digest: string };
  const statement = buildCheckpointStatement({
    trust_mode: 'co-located',
    log_entries: m.log.entries,
    log_head: m.log.head,
    state_digest: `sha256:${'1'.repeat(64)}`,
    policy_digest: m.policy_digest,
    trust_digest: m.trust_digest,
    attestor_sha256: '2'.repeat(64),
    made_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  });
  const file = join(tempDir('governed-export-verify-cp-'), 'cp.json');
  writeFileSync(file, signEnvelope(payloadOf(statement), [story.w.keys.log]));
  return file;
}

beforeAll(() => {
  story = eligibleStory();
  // One authority record in the log too (an export carries its envelope as authority/<REC-id>.json).
  recordAuthorityFor(story.w, { unit: story.unit, operation: 'replace', ids: ['DIR-1'], stateBefore: `sha256:${'3'.repeat(64)}`, stateAfter: `sha256:${'4'.repeat(64)}` });
  exportDir = join(tempDir('governed-export-verify-'), 'audit');
  expect(gov(story.w, ['audit', 'export', '--out', exportDir, '--json']).code).toBe(0);
  unitExportDir = join(tempDir('governed-export-verify-'), 'audit');
  expect(gov(story.w, ['audit', 'export', '--out', unitExportDir, '--unit', story.unit, '--json']).code).toBe(0);
}, 240_000);

describe('governed audit verify --export', () => {
  it('a clean export verifies (0) with the store audit\'s own counts, read-only', () => {
    const store = jsonOut(gov(story.w, ['audit', 'verify', '--json'])) as unknown as AuditJson;
    const { code, out } = verifyExport(exportDir);
    expect(code, JSON.stringify(out.failures)).toBe(0);
    expect(out.ok).toBe(true);
    expect(out.failures).toEqual([]);
    for (const k of ['log', 'replay', 'receipts', 'authority_records', 'challenges', 'trust_modes', 'unit', 'trust'] as const) expect(out[k], k).toEqual(store[k]);
    expect(out.receipts).toEqual({ checked: story.receipts.length, failed: 0, workers: 0 });
    expect(out.authority_records).toEqual({ checked: 1, failed: 0 });
    const subdirs = ['receipts', 'authority', 'keys', 'intoto', 'sigstore'];
    const files = readdirSync(exportDir).length - subdirs.length + subdirs.reduce((n, d) => n + readdirSync(join(exportDir, d)).length, 0);
    expect(out.export).toMatchObject({ files, manifest: 'matches', contents: 'matches', unit: null });
    expect(out.caveat).toMatch(/co-located/);
    const human = verifyExport(exportDir, [], false);
    expect(human.code).toBe(0);
    expect(human.r.stdout).toMatch(/^AUDIT OK/);
    expect(human.r.stdout).toMatch(/manifest matches; contents match the log/);
  });

  it('a unit export verifies with --unit; its receipts are the unit\'s', () => {
    const { code, out } = verifyExport(unitExportDir, ['--unit', story.unit]);
    expect(code, JSON.stringify(out.failures)).toBe(0);
    expect(out.export?.unit).toBe(story.unit);
    expect(out.receipts.checked).toBe(story.receipts.length);
    const unknown = verifyExport(unitExportDir, ['--unit', `UNIT-${'0'.repeat(32)}`]);
    expect(unknown.code).toBe(7);
    expect(unknown.out.error?.code).toBe('unit_unknown');
  });

  it('a log line\'s payload edited: the chain breaks (log_payload_digest_mismatch, 4) and the audit stops there', () => {
    const dir = copyOf(exportDir);
    const lines = readLines(dir);
    const issue = lines.find((l) => l.type === 'challenge_issue') as LogLine;
    issue.payload.bundle_digest = `sha256:${FORGED}`;
    writeLines(dir, lines);
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.log).toBeNull();
    expect(out.receipts.checked).toBe(0);
    expect(out.failures).toContainEqual({ code: 'log_payload_digest_mismatch', exit: 4, ids: [`seq:${issue.seq}`] });
    expect(out.failures).toContainEqual({ code: 'audit_export_invalid', exit: 4, ids: ['log.jsonl'] });
    expect(out.export?.manifest).toBe('differs');
  });

  it('a log line dropped: log_chain_broken (4), even with the manifest recomputed', () => {
    const dir = copyOf(exportDir);
    const lines = readLines(dir);
    writeLines(dir, lines.filter((l) => l.seq !== 5));
    reManifest(dir);
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.failures).toEqual([{ code: 'log_chain_broken', exit: 4, ids: ['seq:6'] }]);
  });

  it('a log line repeated: log_chain_broken (4) at that position', () => {
    const dir = copyOf(exportDir);
    const lines = readLines(dir);
    writeLines(dir, [...lines.slice(0, 4), lines[3] as LogLine, ...lines.slice(4)]);
    reManifest(dir);
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.failures).toEqual([{ code: 'log_chain_broken', exit: 4, ids: [`seq:${(lines[3] as LogLine).seq}`] }]);
    expect(out.log).toBeNull();
  });

  it('a consistent rewrite (every hash and the manifest recomputed): the signed predicate disagrees (audit_receipt_mismatch, 4)', () => {
    const dir = copyOf(exportDir);
    rewriteExportLog(dir, seqOf(dir, 'challenge_issue'), (p) => {
      p.bundle_digest = `sha256:${FORGED}`;
    });
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.log).not.toBeNull();
    expect(out.export).toMatchObject({ manifest: 'matches', contents: 'matches' });
    expect(codes(out)).toEqual(['audit_receipt_mismatch']);
    expect(out.failures[0]?.ids).toContain('issue.bundle_digest');
  });

  it('a log line with a field the export format does not have, or not strict JSON: audit_export_invalid (4) naming the line', () => {
    const dir = copyOf(exportDir);
    const lines = readFileSync(join(dir, 'log.jsonl'), 'utf8').split('\n');
    lines[2] = (lines[2] as string).replace(/^\{/, '{"note":"x",');
    writeFileSync(join(dir, 'log.jsonl'), lines.join('\n'));
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.error).toMatchObject({ code: 'audit_export_invalid', ids: ['log.jsonl', 'line:3'] });
    lines[2] = (lines[2] as string).replace('{"note":"x",', '{"seq":3,');
    writeFileSync(join(dir, 'log.jsonl'), lines.join('\n'));
    expect(verifyExport(dir).out.error).toMatchObject({ code: 'audit_export_invalid', ids: ['log.jsonl', 'line:3'] });
  });

  it('a challenge answered twice in a consistently rewritten log: the entry does not apply or the reuse is named (4)', () => {
    const dir = copyOf(exportDir);
    const receipts = readLines(dir).filter((l) => l.type === 'run_receipt');
    const challenge = (receipts[0] as LogLine).payload.challenge;
    rewriteExportLog(dir, (receipts.at(-1) as LogLine).seq, (p) => {
      p.challenge = challenge;
    });
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    // The run reducer refuses a second receipt for one challenge (it names the run).
    expect(out.failures.map((f) => [f.code, f.exit])).toEqual([['log_entry_not_applicable', 4]]);
    expect(out.replay).toEqual({ state_digest: null, matches: false });
    expect(out.export?.contents).toBe('not-checked');
  });

  it('the manifest naming another log head (the log untouched): audit_export_mismatch on manifest.json (4)', () => {
    const dir = copyOf(exportDir);
    const path = join(dir, 'manifest.json');
    const m = JSON.parse(readFileSync(path, 'utf8')) as { log: { entries: number; head: string } };
    m.log = { entries: m.log.entries - 1, head: (readLines(dir).at(-2) as LogLine).entry_hash };
    writeFileSync(path, `${canonicalJson(m as never)}\n`);
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.failures).toEqual([{ code: 'audit_export_mismatch', exit: 4, ids: ['manifest.json', 'log'] }]);
  });

  it('a consistent rewrite the signatures cannot see is caught by a checkpoint taken before (audit_checkpoint_mismatch, 4)', () => {
    const cp = checkpointOf(exportDir);
    const good = verifyExport(exportDir, ['--checkpoint', cp]);
    expect(good.code, JSON.stringify(good.out.failures)).toBe(0);
    expect(good.out.checkpoints).toEqual([{ file: cp, log_entries: readLines(exportDir).length, matches: true }]);
    const dir = copyOf(exportDir);
    rewriteExportLog(dir, seqOf(dir, 'writer_register'), (p) => {
      p.pid = (p.pid as number) + 1;
    });
    expect(verifyExport(dir).code).toBe(0); // chain, replay, receipts, files: nothing to see without it
    const { code, out } = verifyExport(dir, ['--checkpoint', cp]);
    expect(code).toBe(4);
    expect(codes(out)).toEqual(['audit_checkpoint_mismatch']);
    expect(out.checkpoints[0]?.matches).toBe(false);
  });

  it('a receipt file swapped for another receipt\'s bytes (manifest recomputed): audit_export_mismatch (4) naming it', () => {
    const dir = copyOf(exportDir);
    const [a, b] = readdirSync(join(dir, 'receipts')).sort();
    writeFileSync(join(dir, 'receipts', a as string), readFileSync(join(dir, 'receipts', b as string)));
    reManifest(dir);
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.failures).toEqual([{ code: 'audit_export_mismatch', exit: 4, ids: [`receipts/${a}`] }]);
    expect(out.export).toMatchObject({ manifest: 'matches', contents: 'differs' });
    expect(out.receipts.failed).toBe(0); // the log's own envelopes are intact
  });

  it('each receipt\'s standard containers are checked against the log: one edited or one dropped (manifest recomputed) is audit_export_mismatch (4) naming it', () => {
    const [name] = readdirSync(join(exportDir, 'receipts')).sort();
    const hex = (name as string).replace(/\.json$/, '');
    // Positive control: the clean export holds them, byte-equal to what `audit export` makes of the receipt.
    expect(readdirSync(join(exportDir, 'intoto'))).toContain(`${hex}.intoto.jsonl`);
    expect(readdirSync(join(exportDir, 'sigstore'))).toContain(`${hex}.0.sigstore.json`);
    const edited = copyOf(exportDir);
    const bundlePath = join(edited, 'sigstore', `${hex}.0.sigstore.json`);
    const bundle = JSON.parse(readFileSync(bundlePath, 'utf8')) as { verificationMaterial: { publicKey: { hint: string } } };
    bundle.verificationMaterial.publicKey.hint = FORGED;
    writeFileSync(bundlePath, `${JSON.stringify(bundle)}\n`);
    reManifest(edited);
    const e = verifyExport(edited);
    expect(e.code).toBe(4);
    expect(e.out.failures).toEqual([{ code: 'audit_export_mismatch', exit: 4, ids: [`sigstore/${hex}.0.sigstore.json`] }]);
    const dropped = copyOf(exportDir);
    unlinkSync(join(dropped, 'intoto', `${hex}.intoto.jsonl`));
    const path = join(dropped, 'manifest.json');
    const m = JSON.parse(readFileSync(path, 'utf8')) as { files: { path: string }[] };
    m.files = m.files.filter((f) => f.path !== `intoto/${hex}.intoto.jsonl`);
    writeFileSync(path, `${canonicalJson(m as never)}\n`);
    const d = verifyExport(dropped);
    expect(d.code).toBe(4);
    expect(d.out.failures).toEqual([{ code: 'audit_export_mismatch', exit: 4, ids: [`intoto/${hex}.intoto.jsonl`] }]);
  });

  it('an authority envelope edited (manifest recomputed): audit_export_mismatch (4) naming it; the log\'s own record still verifies', () => {
    const dir = copyOf(exportDir);
    const [name] = readdirSync(join(dir, 'authority'));
    expect(name).toMatch(/^REC-[0-9a-f]{24}\.json$/);
    const path = join(dir, 'authority', name as string);
    writeFileSync(path, `${readFileSync(path, 'utf8')} `);
    reManifest(dir);
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.failures).toEqual([{ code: 'audit_export_mismatch', exit: 4, ids: [`authority/${name}`] }]);
    expect(out.authority_records).toEqual({ checked: 1, failed: 0 });
  });

  it('an extra file is audit_export_invalid (4); an extra receipt-named file is also not in the log', () => {
    const dir = copyOf(exportDir);
    writeFileSync(join(dir, 'notes.txt'), 'CANARY-extra-content');
    const { code, out, r } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.failures).toEqual([
      { code: 'audit_export_invalid', exit: 4, ids: ['notes.txt'] },
      { code: 'audit_export_mismatch', exit: 4, ids: ['notes.txt'] },
    ]);
    expect(r.stdout).not.toContain('CANARY-extra-content');
    const dir2 = copyOf(exportDir);
    const fake = `receipts/${'c'.repeat(64)}.json`;
    writeFileSync(join(dir2, fake), readFileSync(join(dir2, 'receipts', readdirSync(join(dir2, 'receipts'))[0] as string)));
    const two = verifyExport(dir2);
    expect(two.code).toBe(4);
    expect(two.out.failures).toEqual([
      { code: 'audit_export_invalid', exit: 4, ids: [fake] },
      { code: 'audit_export_mismatch', exit: 4, ids: [fake] },
    ]);
  });

  it('a missing file: audit_export_invalid and audit_export_mismatch (4) naming it; a non-printable name is never echoed', () => {
    const dir = copyOf(exportDir);
    const key = `keys/${readdirSync(join(dir, 'keys'))[0] as string}`;
    unlinkSync(join(dir, key));
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.failures).toEqual([
      { code: 'audit_export_invalid', exit: 4, ids: [key] },
      { code: 'audit_export_mismatch', exit: 4, ids: [key] },
    ]);
    const dir2 = copyOf(exportDir);
    writeFileSync(join(dir2, 'x\u001b[31m y'), '');
    const two = verifyExport(dir2);
    expect(two.code).toBe(4);
    expect(two.out.failures.map((f) => f.ids)).toEqual([['(unprintable name)'], ['(unprintable name)']]);
    expect(two.r.stdout).not.toContain('\u001b');
  });

  it('a manifest hash edited: audit_export_invalid (4) naming the file; a manifest not in the export format is refused (4)', () => {
    const dir = copyOf(exportDir);
    const path = join(dir, 'manifest.json');
    const m = JSON.parse(readFileSync(path, 'utf8')) as { files: { path: string; sha256: string }[] };
    const first = m.files[0] as { path: string; sha256: string };
    first.sha256 = '0'.repeat(64);
    writeFileSync(path, `${canonicalJson(m as never)}\n`);
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.failures).toEqual([{ code: 'audit_export_invalid', exit: 4, ids: [first.path] }]);
    // Not canonical (pretty-printed), and an unknown key: refused before anything else.
    writeFileSync(path, JSON.stringify(m, null, 2));
    const pretty = verifyExport(dir);
    expect(pretty.code).toBe(4);
    expect(pretty.out.error).toMatchObject({ code: 'audit_export_invalid', ids: ['manifest.json'] });
    writeFileSync(path, `${canonicalJson({ ...m, signed: true } as never)}\n`);
    const extraKey = verifyExport(dir);
    expect(extraKey.out.error).toMatchObject({ code: 'audit_export_invalid', ids: ['manifest.json'] });
  });

  it('a symlink or a FIFO anywhere in DIR is refused (audit_export_invalid, 4) without reading through it', () => {
    const dir = copyOf(exportDir);
    const secret = join(tempDir('governed-export-verify-secret-'), 'secret.txt');
    writeFileSync(secret, 'CANARY-symlink-target-content');
    const key = `keys/${readdirSync(join(dir, 'keys'))[0] as string}`;
    rmSync(join(dir, key));
    symlinkSync(secret, join(dir, key));
    const { code, out, r } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.error).toMatchObject({ code: 'audit_export_invalid', ids: [key] });
    expect(r.stdout + r.stderr).not.toContain('CANARY-symlink-target-content');
    const dir2 = copyOf(exportDir);
    execFileSync('mkfifo', [join(dir2, 'receipts', `${'d'.repeat(64)}.json`)]);
    const fifo = verifyExport(dir2);
    expect(fifo.code).toBe(4);
    expect(fifo.out.error).toMatchObject({ code: 'audit_export_invalid', ids: [`receipts/${'d'.repeat(64)}.json`] });
    // DIR itself a symlink to an export: refused too.
    const link = join(tempDir('governed-export-verify-link-'), 'audit');
    symlinkSync(exportDir, link);
    const top = verifyExport(link);
    expect(top.out.error).toMatchObject({ code: 'audit_export_invalid', ids: ['.'] });
  });

  it('trust.pinned.* replaced by another trust root (manifest recomputed): audit_export_mismatch (4)', () => {
    const dir = copyOf(exportDir);
    const keys = tempDir('governed-export-verify-keys-');
    const name = readdirSync(dir).find((f) => f.startsWith('trust.pinned.')) as string;
    writeFileSync(join(dir, name), JSON.stringify(trustRootDoc([{ key: makeKey(keys, 'reviewer'), roles: ['reviewer'] }, { key: makeKey(keys, 'runner'), roles: ['runner'] }])));
    reManifest(dir);
    const { code, out } = verifyExport(dir);
    expect(code).toBe(4);
    expect(out.failures).toEqual([{ code: 'audit_export_mismatch', exit: 4, ids: [name] }]);
  });

  it('--trust with a foreign trust root: every receipt untrusted (key_unknown, 6)', () => {
    const keys = tempDir('governed-export-verify-keys-');
    const file = join(keys, 'trust.json');
    writeFileSync(file, JSON.stringify(trustRootDoc([{ key: makeKey(keys, 'reviewer'), roles: ['reviewer'] }, { key: makeKey(keys, 'runner'), roles: ['runner'] }])));
    const { code, out } = verifyExport(exportDir, ['--trust', file]);
    expect(code).toBe(6);
    expect(out.receipts.failed).toBe(story.receipts.length);
    expect(new Set(codes(out))).toEqual(new Set(['key_unknown']));
    expect(out.trust).toBe('given');
    expect(verifyExport(exportDir, ['--trust', story.w.trustFile]).code).toBe(0);
  });

  it('--export together with --home is a usage error (2); DIR untouched, no store created', () => {
    const home = join(tempDir('governed-export-verify-home-'), 'state');
    const { code, out } = verifyExport(exportDir, ['--home', home]);
    expect(code).toBe(2);
    expect(out.error).toMatchObject({ code: 'usage_error', ids: ['--export', '--home'] });
    expect(() => lstatSync(home)).toThrow();
  });
});
