// Baseline blobs are admitted by size BEFORE their bytes are read (readCommitFiles
// buffered whole blobs and the bundle budget refused only afterwards, so a multi-GB baseline file
// crashed the command instead of answering bundle_too_large). Observable: /proc/self/io `rchar`,
// the bytes this process read through read(2) — a refused 32 MiB blob must cost a few pipe buffers,
// an admitted one its whole size (the control that makes the assertion able to fail).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GovernedError } from '../src/core/errors.js';
import { catFileBatch, CatFileSession } from '../src/workspace/cat-file.js';
import { requireRepository } from '../src/workspace/git.js';
import { readCommitFiles } from '../src/workspace/index.js';
import { ByteBudget } from '../src/flows/challenge/evidence-files.js';
import { readBaselineSources } from '../src/flows/challenge/baseline-sources.js';
import { parseContract } from '../src/core/contract/schema.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';
import { contractDoc, SOURCE_TEXT } from './state-helpers.js';

const MiB = 1024 * 1024;
const BIG = 32 * MiB;
const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function rchar(): number {
  const m = /^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
  if (m === null) throw new Error('no rchar');
  return Number(m[1]);
}

function bigRepo(): { r: TempRepo; commit: string } {
  const r = makeTempRepo({ prefix: 'governed-blobcap-' });
  repos.push(r);
  r.write('big.bin', Buffer.alloc(BIG, 0x61));
  r.write('small.txt', 'small\n');
  r.write('requests/export.md', SOURCE_TEXT);
  const commit = r.commitAll('baseline');
  return { r, commit };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof GovernedError) return e.code;
    throw e;
  }
  return 'resolved';
}

describe('readCommitFiles: a byte cap applied before a blob is buffered', () => {
  it('refuses an over-cap blob with the budget code, reading a few pipe buffers instead of 32 MiB (control: admitted, it reads ≥ 32 MiB)', async () => {
    const { r, commit } = bigRepo();
    const seen: Array<[number, number]> = [];
    const budget = new ByteBudget(1 * MiB);
    const before = rchar();
    const code = await codeOf(
      readCommitFiles(r.root, commit, ['small.txt', 'big.bin'], {
        admit: (i, size) => {
          seen.push([i, size]);
          budget.take(size, `f${i}`);
        },
      }),
    );
    const refusedRead = rchar() - before;
    if (process.env.BLOBCAP_REPORT) console.log(`rchar refused=${refusedRead}`);
    expect(code).toBe('bundle_too_large');
    // The size came from git's object header, in request order, before the bytes.
    expect(seen).toEqual([
      [0, 6],
      [1, BIG],
    ]);
    expect(refusedRead).toBeLessThan(4 * MiB);

    const before2 = rchar();
    const files = await readCommitFiles(r.root, commit, ['small.txt', 'big.bin'], { admit: () => undefined });
    const admittedRead = rchar() - before2;
    if (process.env.BLOBCAP_REPORT) console.log(`rchar admitted=${admittedRead}`);
    expect(files.get('big.bin')?.length).toBe(BIG);
    expect(files.get('small.txt')?.toString()).toBe('small\n');
    expect(admittedRead).toBeGreaterThanOrEqual(BIG);
  });

  it('catFileBatch: a sink that refuses in begin never sees a byte of that object and the batch rejects with its error', async () => {
    const { r, commit } = bigRepo();
    const oid = r.git('rev-parse', `${commit}:big.bin`);
    let delivered = 0;
    const code = await codeOf(
      catFileBatch(requireRepository(r.root), [oid], {
        begin: (_i, _type, size) => new ByteBudget(MiB).take(size, 'big'),
        data: (_i, chunk) => {
          delivered += chunk.length;
        },
        end: () => undefined,
      }),
    );
    expect(code).toBe('bundle_too_large');
    expect(delivered).toBe(0);
  });

  it('a caller without a limit still gets the bytes (backstop ceiling far above this blob)', async () => {
    const { r, commit } = bigRepo();
    const files = await readCommitFiles(r.root, commit, ['big.bin']);
    expect(files.get('big.bin')?.length).toBe(BIG);
  });

  it('readBaselineSources with a cap refuses a source over it before reading it, naming the source id', async () => {
    const r = makeTempRepo({ prefix: 'governed-blobcap-src-' });
    repos.push(r);
    r.write('requests/export.md', Buffer.concat([Buffer.from(SOURCE_TEXT), Buffer.alloc(2 * MiB, 0x62)]));
    r.write('src/util.ts', 'export const util = 1;\n');
    const commit = r.commitAll('baseline');
    const contract = parseContract(contractDoc());
    const before = rchar();
    let err: unknown = null;
    try {
      await readBaselineSources(r.root, commit, contract, MiB);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GovernedError);
    expect((err as GovernedError).code).toBe('bundle_too_large');
    expect((err as GovernedError).ids).toEqual(['SRC-1']);
    expect(rchar() - before).toBeLessThan(2 * MiB);
    // Under the cap (or without one) the same source reads whole.
    const ok = await readBaselineSources(r.root, commit, contract, 4 * MiB);
    expect(ok.bytes.get('SRC-1')?.length).toBe(Buffer.byteLength(SOURCE_TEXT) + 2 * MiB);
  });

  it('CatFileSession: an object to buffer over its cap fails the session before its bytes (digest requests stream, uncapped)', async () => {
    const { r, commit } = bigRepo();
    const repo = requireRepository(r.root);
    const msg = 'm'.repeat(2 * MiB);
    r.write('small.txt', 'changed\n');
    r.git('add', '-A');
    const msgFile = join(r.root, '.git', 'FAT_MSG');
    writeFileSync(msgFile, msg);
    r.git('commit', '-q', '-F', msgFile);
    const fat = r.git('rev-parse', 'HEAD');
    const capped = new CatFileSession(repo, MiB);
    const before = rchar();
    expect(await codeOf(capped.request([fat]))).toBe('workspace_git_failed');
    expect(rchar() - before).toBeLessThan(2 * MiB);
    await capped.kill();
    // Control: the default cap buffers the same commit; a 32 MiB blob is hashed, not buffered.
    const open = new CatFileSession(repo, MiB);
    const [blob] = await open.request([r.git('rev-parse', `${commit}:big.bin`)], { digest: true });
    expect(blob).toMatchObject({ found: true, type: 'blob' });
    await open.close();
    const dflt = new CatFileSession(repo);
    const [c] = await dflt.request([fat]);
    expect(c !== undefined && c.found && c.data.length > 2 * MiB).toBe(true);
    await dflt.close();
  });
});
