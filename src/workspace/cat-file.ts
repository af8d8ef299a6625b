// Streaming reader for `git cat-file --batch` (SPEC §6.4 "For a commit ... computed from git
// objects"). Blob bytes are handed to the caller chunk by chunk, so a commit with large files is
// hashed in constant memory. --batch without --filters/--textconv prints raw object bytes and runs
// no repository-configured program.
import { spawn } from 'node:child_process';
import { fail } from '../core/errors.js';
import { GIT_HARDENING_ARGS, gitEnv, type GitRepo } from './git.js';

export interface BlobSink {
  /** Called once per requested object, in request order, before any of its bytes. */
  begin(index: number, type: string, size: number): void;
  data(index: number, chunk: Buffer): void;
  end(index: number): void;
}

const OID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const HEADER_MAX = 256;

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
    let index = 0;
    let header: Buffer = Buffer.alloc(0);
    let remaining = -1; // bytes of object content still expected; -1 while reading a header
    let needNewline = false; // the LF git prints after each object's content
    let broken: unknown = null;

    const abort = (cause: unknown): void => {
      if (broken !== null) return;
      broken = cause ?? new Error('cat-file protocol');
      child.kill('SIGKILL');
    };

    const onChunk = (chunkIn: Buffer): void => {
      let chunk = chunkIn;
      while (chunk.length > 0 && broken === null) {
        if (needNewline) {
          if (chunk[0] !== 0x0a) return abort(null);
          needNewline = false;
          sink.end(index);
          index++;
          chunk = chunk.subarray(1);
          continue;
        }
        if (remaining < 0) {
          const lf = chunk.indexOf(0x0a);
          if (lf < 0) {
            header = Buffer.concat([header, chunk]);
            if (header.length > HEADER_MAX) abort(null);
            return;
          }
          const line = Buffer.concat([header, chunk.subarray(0, lf)]).toString('latin1');
          header = Buffer.alloc(0);
          chunk = chunk.subarray(lf + 1);
          if (index >= oids.length) return abort(null);
          const m = /^([0-9a-f]+) ([a-z]+) ([0-9]+)$/.exec(line);
          if (m === null || m[1] !== oids[index]) return abort(null);
          const size = Number(m[3]);
          if (!Number.isSafeInteger(size)) return abort(null);
          try {
            sink.begin(index, m[2] as string, size);
          } catch (e) {
            return abort(e);
          }
          remaining = size;
          if (remaining === 0) {
            remaining = -1;
            needNewline = true;
          }
          continue;
        }
        const take = Math.min(remaining, chunk.length);
        try {
          sink.data(index, chunk.subarray(0, take));
        } catch (e) {
          return abort(e);
        }
        remaining -= take;
        chunk = chunk.subarray(take);
        if (remaining === 0) {
          remaining = -1;
          needNewline = true;
        }
      }
    };

    child.stdout.on('data', onChunk);
    child.stdin.on('error', () => {
      // EPIPE after an abort; the close handler reports the failure.
    });
    child.on('error', (e) => abort(e));
    child.on('close', (code, signal) => {
      if (broken === null && (code !== 0 || signal !== null || index !== oids.length || remaining >= 0)) {
        broken = new Error('cat-file exit');
      }
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
