// Streaming reader for `git cat-file --batch` (docs/contract.md#workspace-digest "For a commit ... computed from git
// objects"). Blob bytes are handed to the caller chunk by chunk, so a commit with large files is
// hashed in constant memory. --batch without --filters/--textconv prints raw object bytes and runs
// no repository-configured program.
import { spawn } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { fail } from '../core/errors.js';
import { GIT_HARDENING_ARGS, gitEnv, type GitRepo } from './git.js';

export interface BlobSink {
  /** Called once per requested object, in request order, before any of its bytes. */
  begin(index: number, type: string, size: number): void;
  data(index: number, chunk: Buffer): void;
  end(index: number): void;
}

const OID_RE = GIT_OID_RE;
import { GIT_HEADER_MAX as HEADER_MAX } from '../core/limits.js';
/** Same bound as commit.ts LIST_MAX_BYTES (runGit's output cap that `ls-tree -r` had). */
import { GIT_OUTPUT_MAX_BYTES as SESSION_OBJECT_MAX } from '../core/limits.js';
import { GIT_OID_RE } from '../core/ids.js';

/** A `git cat-file --batch` header line: object id, type, size. */
const CAT_FILE_HEADER_RE = /^([0-9a-f]+) ([a-z]+) ([0-9]+)$/;

/** A header line of `git cat-file --batch` output: the bytes buffered so far plus this chunk up to
 * its newline (the line, and the rest of the chunk), or, without a newline yet, all of it pending. */
function takeHeaderLine(pending: Buffer, chunk: Buffer): { line: string; rest: Buffer } | { line: null; pending: Buffer } {
  const lf = chunk.indexOf(0x0a);
  if (lf < 0) return { line: null, pending: Buffer.concat([pending, chunk]) };
  return { line: Buffer.concat([pending, chunk.subarray(0, lf)]).toString('latin1'), rest: chunk.subarray(lf + 1) };
}

/**
 * The --batch output protocol (docs/contract.md#workspace-digest): per requested object, in order, a
 * `<oid> <type> <size>` header line, exactly `size` content bytes, one LF. Anything else, or a sink
 * that throws, aborts: the first cause is kept and git is killed.
 */
class BatchReader {
  index = 0;
  /** Bytes of object content still expected; -1 while reading a header. */
  remaining = -1;
  broken: unknown = null;
  private header: Buffer = Buffer.alloc(0);
  /** The LF git prints after each object's content. */
  private needNewline = false;
  private readonly oids: readonly string[];
  private readonly sink: BlobSink;
  private readonly kill: () => void;

  constructor(oids: readonly string[], sink: BlobSink, kill: () => void) {
    this.oids = oids;
    this.sink = sink;
    this.kill = kill;
  }

  abort(cause: unknown): void {
    if (this.broken !== null) return;
    this.broken = cause ?? new Error('cat-file protocol');
    this.kill();
  }

  /** One chunk of git's stdout. */
  push(chunkIn: Buffer): void {
    let chunk = chunkIn;
    while (chunk.length > 0 && this.broken === null) {
      if (this.needNewline) {
        if (chunk[0] !== 0x0a) return this.abort(null);
        this.needNewline = false;
        try {
          this.sink.end(this.index);
        } catch (e) {
          return this.abort(e);
        }
        this.index++;
        chunk = chunk.subarray(1);
        continue;
      }
      if (this.remaining < 0) {
        const got = takeHeaderLine(this.header, chunk);
        if (got.line === null) {
          this.header = got.pending;
          if (this.header.length > HEADER_MAX) this.abort(null);
          return;
        }
        const line = got.line;
        this.header = Buffer.alloc(0);
        chunk = got.rest;
        if (this.index >= this.oids.length) return this.abort(null);
        const m = CAT_FILE_HEADER_RE.exec(line);
        if (m === null || m[1] !== this.oids[this.index]) return this.abort(null);
        const size = Number(m[3]);
        if (!Number.isSafeInteger(size)) return this.abort(null);
        try {
          this.sink.begin(this.index, m[2] as string, size);
        } catch (e) {
          return this.abort(e);
        }
        this.remaining = size;
        if (this.remaining === 0) {
          this.remaining = -1;
          this.needNewline = true;
        }
        continue;
      }
      const take = Math.min(this.remaining, chunk.length);
      try {
        this.sink.data(this.index, chunk.subarray(0, take));
      } catch (e) {
        return this.abort(e);
      }
      this.remaining -= take;
      chunk = chunk.subarray(take);
      if (this.remaining === 0) {
        this.remaining = -1;
        this.needNewline = true;
      }
    }
  }
}

/** Stream the objects `oids` (full hex ids) through `sink`; rejects with `workspace_git_failed`. */
export function catFileBatch(repo: GitRepo, oids: readonly string[], sink: BlobSink): Promise<void> {
  for (const oid of oids) if (!OID_RE.test(oid)) fail('workspace_git_failed', ['object-id']);
  if (oids.length === 0) return Promise.resolve();
  return new Promise<void>((resolvePromise, reject) => {
    const child = spawn('git', [...GIT_HARDENING_ARGS, 'cat-file', '--batch'], {
      cwd: repo.workTree,
      env: gitEnv(repo),
      stdio: ['pipe', 'pipe', 'ignore'],
      windowsHide: true,
    });
    const reader = new BatchReader(oids, sink, () => child.kill('SIGKILL'));
    child.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
    child.stdin.on('error', () => {
      // EPIPE after an abort; the close handler reports the failure.
    });
    child.on('error', (e) => reader.abort(e));
    child.on('close', (code, signal) => {
      if (reader.broken === null && (code !== 0 || signal !== null || reader.index !== oids.length || reader.remaining >= 0)) {
        reader.broken = new Error('cat-file exit');
      }
      const broken = reader.broken;
      if (broken === null) {
        resolvePromise();
        return;
      }
      // A sink may throw a GovernedError of its own (e.g. a refused object type): keep its code.
      if (broken instanceof Error && broken.name === 'GovernedError') reject(broken);
      else {
        try {
          fail('workspace_git_failed', ['cat-file'], broken);
        } catch (e) {
          reject(e);
        }
      }
    });
    child.stdin.end(oids.join('\n') + '\n');
  });
}

/**
 * One object of a `CatFileSession` answer: found (with its full id, type, and its bytes — or, for a
 * `digest` request, their SHA-256 hex, hashed as they stream so a large blob costs no memory) or not.
 */
export type BatchObject =
  | { readonly found: true; readonly oid: string; readonly type: string; readonly data: Buffer; readonly sha256: string | null }
  | { readonly found: false };

interface Pending {
  readonly count: number;
  readonly digest: boolean;
  readonly objects: BatchObject[];
  readonly resolve: (objects: BatchObject[]) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * One hardened `git cat-file --batch` process answering several rounds of requests (object names
 * or full ids, one per line), so a whole commit manifest — resolve the commit, walk its trees level
 * by level, hash its blobs — costs ONE git process instead of three (bench/gate: every process is
 * a fork of node and a git start-up on the gate's cold path). Same hardening as `runGit`: empty
 * environment, `--no-replace-objects` (refs/replace cannot substitute content), no repository
 * program. A name git cannot resolve answers `{found: false}`; any protocol surprise, a non-zero
 * exit or a signal fails closed with `workspace_git_failed`.
 */
export class CatFileSession {
  private readonly child: ReturnType<typeof spawn>;
  private readonly queue: Pending[] = [];
  private header: Buffer = Buffer.alloc(0);
  private body: Buffer[] = [];
  private hash: Hash | null = null;
  private current: { oid: string; type: string; size: number } | null = null;
  private remaining = -1;
  private needNewline = false;
  private broken: unknown = null;
  private readonly closed: Promise<void>;

  /**
   * `maxObjectBytes`: the largest object whose bytes may be buffered (a non-digest request: commits
   * and trees). Git's header announces the size first, so a larger one fails the session before
   * any of its bytes are held (a multi-GB commit message or tree is refused, never buffered).
   */
  constructor(
    repo: GitRepo,
    private readonly maxObjectBytes: number = SESSION_OBJECT_MAX,
  ) {
    this.child = spawn('git', [...GIT_HARDENING_ARGS, 'cat-file', '--batch'], {
      cwd: repo.workTree,
      env: gitEnv(repo),
      stdio: ['pipe', 'pipe', 'ignore'],
      windowsHide: true,
    });
    this.child.stdout?.on('data', (c: Buffer) => this.onChunk(c));
    this.child.stdin?.on('error', () => {
      // EPIPE after git died; the close handler reports the failure.
    });
    this.child.on('error', (e) => this.abort(e));
    this.closed = new Promise<void>((resolveClosed) => {
      this.child.on('close', (code, signal) => {
        if (this.broken === null && (code !== 0 || signal !== null || this.queue.length > 0)) this.broken = new Error('cat-file exit');
        if (this.broken !== null) this.failAll();
        resolveClosed();
      });
    });
  }

  /** Ask for `names` (no NUL/LF/CR; callers validate) and get one answer per name, in order. */
  request(names: readonly string[], options: { readonly digest?: boolean } = {}): Promise<BatchObject[]> {
    if (names.length === 0) return Promise.resolve([]);
    if (this.broken !== null) return Promise.reject(this.error());
    return new Promise<BatchObject[]>((resolvePromise, reject) => {
      this.queue.push({ count: names.length, digest: options.digest === true, objects: [], resolve: resolvePromise, reject });
      this.child.stdin?.write(names.join('\n') + '\n');
    });
  }

  /** End the session: git must exit 0 with every request answered. */
  async close(): Promise<void> {
    this.child.stdin?.end();
    await this.closed;
    if (this.broken !== null) throw this.error();
  }

  /** Kill git (after a refusal found by the caller); never throws. */
  async kill(): Promise<void> {
    this.abort(null);
    await this.closed;
  }

  private error(): Error {
    try {
      return fail('workspace_git_failed', ['cat-file'], this.broken);
    } catch (e) {
      return e as Error;
    }
  }

  private failAll(): void {
    const e = this.error();
    for (const p of this.queue.splice(0)) p.reject(e);
  }

  private abort(cause: unknown): void {
    if (this.broken !== null) return;
    this.broken = cause ?? new Error('cat-file protocol');
    this.child.kill('SIGKILL');
    this.failAll();
  }

  private push(obj: BatchObject): void {
    const p = this.queue[0];
    if (p === undefined) return this.abort(null);
    p.objects.push(obj);
    if (p.objects.length === p.count) {
      this.queue.shift();
      p.resolve(p.objects);
    }
  }

  private onChunk(chunkIn: Buffer): void {
    let chunk = chunkIn;
    while (chunk.length > 0 && this.broken === null) {
      if (this.needNewline) {
        if (chunk[0] !== 0x0a) return this.abort(null);
        this.needNewline = false;
        const cur = this.current as { oid: string; type: string; size: number };
        this.current = null;
        if (this.hash !== null) {
          this.push({ found: true, oid: cur.oid, type: cur.type, data: Buffer.alloc(0), sha256: this.hash.digest('hex') });
          this.hash = null;
        } else {
          const data = this.body.length === 1 ? (this.body[0] as Buffer) : Buffer.concat(this.body, cur.size);
          this.body = [];
          this.push({ found: true, oid: cur.oid, type: cur.type, data, sha256: null });
        }
        chunk = chunk.subarray(1);
        continue;
      }
      if (this.remaining < 0) {
        const got = takeHeaderLine(this.header, chunk);
        if (got.line === null) {
          this.header = got.pending;
          if (this.header.length > HEADER_MAX) this.abort(null);
          return;
        }
        const line = got.line;
        this.header = Buffer.alloc(0);
        chunk = got.rest;
        // "<name> missing" / "<name> ambiguous": the name does not resolve to one object.
        if (line.endsWith(' missing') || line.endsWith(' ambiguous')) {
          this.push({ found: false });
          continue;
        }
        const m = CAT_FILE_HEADER_RE.exec(line);
        if (m === null || !OID_RE.test(m[1] as string)) return this.abort(null);
        const size = Number(m[3]);
        if (!Number.isSafeInteger(size)) return this.abort(null);
        const head = this.queue[0];
        if (head === undefined) return this.abort(null);
        if (!head.digest && size > this.maxObjectBytes) return this.abort(null);
        this.current = { oid: m[1] as string, type: m[2] as string, size };
        this.hash = head.digest ? createHash('sha256') : null;
        this.remaining = size;
        if (size === 0) {
          this.remaining = -1;
          this.needNewline = true;
        }
        continue;
      }
      const take = Math.min(this.remaining, chunk.length);
      // A view, not a copy: every 'data' chunk of a child's pipe is a fresh buffer.
      if (this.hash !== null) this.hash.update(chunk.subarray(0, take));
      else this.body.push(chunk.subarray(0, take));
      this.remaining -= take;
      chunk = chunk.subarray(take);
      if (this.remaining === 0) {
        this.remaining = -1;
        this.needNewline = true;
      }
    }
  }
}
