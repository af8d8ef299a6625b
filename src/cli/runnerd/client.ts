// The writer side of separated mode (docs/runnerd.md "The client"): `--runner SOCKET` (or
// GOVERNED_RUNNER) on a command sends one request to the daemon and prints the daemon's answer
// exactly as co-located mode prints its own result: the same --json object, human text, exit code
// and error code. The client reads nothing back but that answer; it never names a path the daemon
// should open. The content it sends is a commit: a snapshot of the working tree (tracked files and
// untracked ones .gitignore does not exclude, read from disk byte for byte with no filter, on top of
// HEAD) written with `git fast-import` and shipped as a git pack of every object it reaches.
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ERROR_CODES, fail, GovernedError, type ErrorCode } from '../../core/errors.js';
import {
  RUNNERD_MAX_RESPONSE_BYTES,
  runnerdProgressFrameSchema,
  runnerdResponseSchema,
  type RunnerdContent,
  type RunnerdProgressFrame,
  type RunnerdRequest,
  type RunnerdResponse,
} from '../../core/runnerd-protocol.js';
import { isProgressPhase, type ProgressCommand, type ProgressSink } from '../../core/progress.js';
import { findRepository, runGit, splitNul, type GitRepo } from '../../workspace/git.js';
import { writeError, type CommandResult } from '../output.js';

/** --runner, else $GOVERNED_RUNNER, else co-located (undefined). */
export function runnerSocket(opt: string | undefined): string | undefined {
  return opt ?? (process.env.GOVERNED_RUNNER || undefined);
}

/** Options that name files of the runner machine: refused with --runner (the daemon uses its own). */
export function refuseLocalOnly(opts: Record<string, unknown>, names: readonly string[]): void {
  for (const n of names) if (opts[n] !== undefined) fail('runnerd_option_not_remote', [`--${n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`]);
}

/**
 * One request, its response. With `onProgress`, the lines before the response that are progress
 * frames (docs/runnerd.md "The socket protocol") are handed to it as they arrive and skipped; the
 * first line that is not a frame is the response, judged as always.
 */
export function runnerdCall(
  socket: string,
  req: RunnerdRequest,
  timeoutMs = 30 * 60_000,
  maxResponseBytes = RUNNERD_MAX_RESPONSE_BYTES,
  onProgress?: (frame: RunnerdProgressFrame) => boolean,
): Promise<RunnerdResponse> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    // Frames are read only while every line so far was one; `skip` bytes of them precede the response.
    let framing = onProgress !== undefined;
    let head = Buffer.alloc(0);
    let skip = 0;
    const frames = (c: Buffer): void => {
      head = Buffer.concat([head, c]);
      for (let nl = head.indexOf(10); framing && nl !== -1; nl = head.indexOf(10)) {
        let frame: RunnerdProgressFrame | null = null;
        try {
          const parsed = runnerdProgressFrameSchema.safeParse(JSON.parse(head.subarray(0, nl).toString('utf8')));
          frame = parsed.success ? parsed.data : null;
        } catch {
          frame = null;
        }
        // A frame whose phase the client's own table lacks is no frame: the response check refuses it.
        if (frame === null || onProgress?.(frame) !== true) {
          framing = false;
          break;
        }
        skip += nl + 1;
        head = head.subarray(nl + 1);
      }
      if (!framing) head = Buffer.alloc(0);
    };
    const done = (f: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.destroy();
      f();
    };
    // Before the request is written nothing was sent; after it, the daemon may have acted on it.
    let sent = false;
    const unreachable = (): void => done(() => reject(new GovernedError(sent ? 'runnerd_answer_invalid' : 'runnerd_unreachable')));
    const timer = setTimeout(unreachable, timeoutMs);
    s.on('error', unreachable);
    s.on('connect', () => {
      sent = true;
      s.write(`${JSON.stringify(req)}\n`);
    });
    s.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxResponseBytes) return unreachable();
      chunks.push(c);
      if (framing) frames(c);
    });
    s.on('end', () => {
      const text = Buffer.concat(chunks).subarray(skip).toString('utf8');
      const nl = text.indexOf('\n');
      let value: unknown;
      try {
        value = JSON.parse(nl === -1 ? text : text.slice(0, nl));
      } catch {
        return unreachable();
      }
      const parsed = runnerdResponseSchema.safeParse(value);
      if (!parsed.success) return unreachable();
      done(() => resolve(parsed.data));
    });
  });
}

/** A daemon's progress frames printed through `sink` in the client's own words; false for a phase `command` lacks. */
export function progressFrames<C extends ProgressCommand>(command: C, sink: ProgressSink<C>): (frame: RunnerdProgressFrame) => boolean {
  return (f) => {
    if (!isProgressPhase(command, f.progress)) return false;
    sink(f.progress, f.count);
    return true;
  };
}

function errorOf(e: { code: string; ids: readonly string[] }): GovernedError {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, e.code)
    ? new GovernedError(e.code as ErrorCode, { ids: [...e.ids] })
    : new GovernedError('internal_error');
}

/** The daemon's answer as this command's own result (or its coded error, thrown). */
export async function remoteResult(
  socket: string,
  req: RunnerdRequest,
  opts: { json?: boolean },
  maxResponseBytes = RUNNERD_MAX_RESPONSE_BYTES,
  onProgress?: (frame: RunnerdProgressFrame) => boolean,
): Promise<CommandResult & { envelope?: Buffer; presentation?: Buffer; storeCopy?: NonNullable<Extract<RunnerdResponse, { ok: true }>['store_copy']> }> {
  const r = await runnerdCall(socket, req, undefined, maxResponseBytes, onProgress);
  if (!r.ok) throw errorOf(r.error);
  if (r.diagnostic !== undefined) writeError(errorOf(r.diagnostic), { json: false });
  void opts;
  return {
    exit: r.exit as CommandResult['exit'],
    json: r.json,
    human: r.human,
    ...(r.envelope_b64 === undefined ? {} : { envelope: Buffer.from(r.envelope_b64, 'base64') }),
    ...(r.store_copy === undefined ? {} : { storeCopy: r.store_copy }),
    ...(r.presentation_b64 === undefined ? {} : { presentation: Buffer.from(r.presentation_b64, 'base64') }),
  };
}

const SNAPSHOT_REF = 'refs/governed/runner-snapshot';
const IDENT = 'governed <governed@localhost> 0 +0000';

/** The working tree of `repoDir` as one commit on top of HEAD, and a pack of all it reaches. */
export async function snapshotContent(repoDir: string): Promise<RunnerdContent> {
  let repo: GitRepo | null;
  try {
    repo = findRepository(repoDir);
  } catch {
    repo = null;
  }
  if (repo === null) return fail('runnerd_worktree_snapshot_failed', ['not-a-repository']);
  const r = repo;
  try {
    const head = (await runGit(r, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']).catch(() => Buffer.alloc(0))).toString('utf8').trim();
    const listed = splitNul(await runGit(r, ['ls-files', '-z', '--cached', '--others', '--exclude-per-directory=.gitignore']));
    const seen = new Set<string>();
    const parts: Buffer[] = [Buffer.from(`commit ${SNAPSHOT_REF}\nauthor ${IDENT}\ncommitter ${IDENT}\ndata 8\nsnapshot\n${head === '' ? '' : `from ${head}\n`}deleteall\n`)];
    for (const raw of listed) {
      const path = raw.toString('utf8');
      // A path fast-import cannot take unquoted (a newline ends the command, a leading quote starts
      // C quoting): refused whole, never skipped — a silently missing file would be reviewed absent.
      if (path.includes('\n') || path.startsWith('"')) fail('runnerd_path_unsupported');
      if (seen.has(path)) continue;
      seen.add(path);
      let st;
      try {
        st = lstatSync(join(r.workTree, path));
      } catch {
        continue; // deleted in the working tree
      }
      let mode: string;
      let data: Buffer;
      if (st.isSymbolicLink()) {
        mode = '120000';
        data = Buffer.from(readlinkSync(join(r.workTree, path), { encoding: 'buffer' }));
      } else if (st.isFile()) {
        mode = (st.mode & 0o111) !== 0 ? '100755' : '100644';
        data = readFileSync(join(r.workTree, path));
      } else {
        continue; // a nested repository or a special file: the daemon's own checks see its absence
      }
      parts.push(Buffer.from(`M ${mode} inline ${path}\ndata ${data.length}\n`), data, Buffer.from('\n'));
    }
    parts.push(Buffer.from('\n'));
    await runGit(r, ['fast-import', '--quiet', '--force'], { input: Buffer.concat(parts) });
    const commit = (await runGit(r, ['rev-parse', '--verify', `${SNAPSHOT_REF}^{commit}`])).toString('utf8').trim();
    const pack = await runGit(r, ['pack-objects', '--revs', '--stdout', '-q'], { input: Buffer.from(`${commit}\n`) });
    await runGit(r, ['update-ref', '-d', SNAPSHOT_REF]).catch(() => undefined);
    return { commit, bundle_b64: pack.toString('base64') };
  } catch (e) {
    if (e instanceof GovernedError && e.code === 'runnerd_path_unsupported') throw e;
    return fail('runnerd_worktree_snapshot_failed', []);
  }
}
