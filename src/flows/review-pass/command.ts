// Turning a configured command template into the argv the sandbox runs, and the seed's environment
// detection (docs/review-pass-protocol.md#tool-detection "command -v tool") done against what the SANDBOX can see:
//   - `{repo}` becomes /repo (the read-only repository view) and `{prompt_file}` /prompt/prompt.md;
//   - a bare program name is looked up, in order, in governed's tool binaries
//     (/opt/governed/node_modules/.bin, when bound), /usr/local/bin, /usr/bin, /bin;
//   - an absolute program path must lie under a directory the sandbox binds: /usr (and the host's
//     /bin, /lib... layout), /repo, /opt/governed/node_modules.
// A program is "available" when its host counterpart exists, is executable, and its real path
// (symlinks resolved on the host) stays inside a bound directory — a `/usr/bin/x` symlink into
// /root/.local would not exist inside the sandbox. An unavailable tool is not an error of the run:
// the reviewer counts as failed (`tool_missing`) and the protocol degrades (docs/review-pass-protocol.md#graceful-degradation).
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_PROMPT, SANDBOX_REPO, SANDBOX_TOOLS } from '../../../runner/repo-sandbox.js';

export interface SandboxView {
  /** Host path of the repository (bound at /repo). */
  readonly repoDir: string;
  /** Host path of governed's node_modules (bound at /opt/governed/node_modules), or null. */
  readonly toolsDir: string | null;
}

export type ResolvedProgram =
  | { readonly available: true; readonly argv: readonly string[] }
  | { readonly available: false };

/** Expand the placeholders of a validated command template (config-load.ts checked them). */
export function expandCommand(template: readonly string[]): string[] {
  return template.map((a) => a.replaceAll('{repo}', SANDBOX_REPO).replaceAll('{prompt_file}', SANDBOX_PROMPT));
}

/** The host path behind a sandbox path, or null when the sandbox does not bind it. */
export function hostPathOf(view: SandboxView, sandboxPath: string): string | null {
  if (sandboxPath === SANDBOX_REPO || sandboxPath.startsWith(`${SANDBOX_REPO}/`)) {
    return join(view.repoDir, sandboxPath.slice(SANDBOX_REPO.length));
  }
  if (view.toolsDir !== null && (sandboxPath === SANDBOX_TOOLS || sandboxPath.startsWith(`${SANDBOX_TOOLS}/`))) {
    return join(view.toolsDir, sandboxPath.slice(SANDBOX_TOOLS.length));
  }
  if (sandboxPath.startsWith('/usr/') || /^\/(bin|sbin|lib|lib32|lib64|libx32)\//.test(sandboxPath)) return sandboxPath;
  return null;
}

function insideBoundRoots(view: SandboxView, real: string): boolean {
  const roots = ['/usr', realpathOr(view.repoDir), ...(view.toolsDir === null ? [] : [realpathOr(view.toolsDir)])];
  return roots.some((r) => real === r || real.startsWith(`${r}/`));
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function executableOnHost(view: SandboxView, hostPath: string): boolean {
  try {
    const real = realpathSync(hostPath);
    if (!statSync(real).isFile()) return false;
    accessSync(real, constants.X_OK);
    return insideBoundRoots(view, real);
  } catch {
    return false;
  }
}

/** The sandbox PATH search order (runner/repo-sandbox.ts sandboxPath). */
function searchDirs(view: SandboxView): string[] {
  return [...(view.toolsDir !== null ? [`${SANDBOX_TOOLS}/.bin`] : []), '/usr/local/bin', '/usr/bin', '/bin'];
}

/** Resolve argv[0] to an absolute sandbox path that exists behind the sandbox's mounts. */
export function resolveProgram(view: SandboxView, argv: readonly string[]): ResolvedProgram {
  const program = argv[0];
  if (program === undefined) return { available: false };
  const candidates = program.startsWith('/') ? [program] : searchDirs(view).map((d) => `${d}/${program}`);
  for (const c of candidates) {
    const host = hostPathOf(view, c);
    if (host !== null && executableOnHost(view, host)) return { available: true, argv: [c, ...argv.slice(1)] };
  }
  return { available: false };
}
