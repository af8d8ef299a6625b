// The sandbox's lifeline (docs/sandbox.md "Lifetime"): the sandbox must not outlive governed, and
// bwrap's --die-with-parent cannot promise that on its own. bwrap arms the parent-death signal in
// its outer (monitor) process only after it cloned the sandbox's first process, and that first
// process waits on an internal eventfd until the outer has written the JSON status and released
// it. When governed dies inside that window, the outer dies too (parent-death signal, or SIGPIPE
// on the status pipe) and the sandbox's first process waits on the eventfd forever: PID 1 of its
// own PID namespace, parent pid 1 on the host, and deaf to SIGTERM (the kernel drops signals to a
// namespace init that has no handler for them). Reproduced here with a runner SIGKILLed at random
// points of its setup.
//
// So bwrap is not spawned directly. governed spawns, in a new session (its own process group),
// `/usr/bin/sh -c LIFELINE_SCRIPT governed-lifeline <bwrap> <argv…>` with one more descriptor,
// fd 9, whose other end only governed holds. The shell forks a watcher (it closes every other
// descriptor and blocks reading fd 9), then closes fd 9 itself and execs bwrap in place: bwrap
// keeps the pid governed spawned, the same descriptors 0–8, an empty environment, and never sees
// fd 9. The outer bwrap and the sandbox's first process (until bwrap's --new-session setsid,
// right before it execs the go-gate) are in that process group with the watcher. When governed
// goes, by any death, the kernel closes its end, the watcher reads EOF and SIGKILLs its own
// process group (`kill -KILL 0`: the group is alive while the watcher is in it, so the number
// cannot have been recycled). After that setsid, the first process is bound to the outer by its
// own parent-death signal, armed right after it (and the go-gate refuses to start a reviewer that
// was never released). On a normal end, governed closes its end once bwrap has exited: the
// watcher then kills a group that holds only itself.
//
// The watcher is governed's supervision code, like the timeout: it is outside the sandbox, and
// outside the pinned static profile, whose invocation of bwrap it does not change.

import { SHELL_PATH } from './profile.js';

/** The descriptor the watcher reads; governed holds its other end. */
export const LIFELINE_FD = 9;

/** The spawned program: the /usr shell, a helper checked before every spawn (profile.ts). */
export const LIFELINE_SHELL = SHELL_PATH;

/**
 * `$@` is the bwrap path and its argv. `unset PWD`: dash exports PWD even from an empty
 * environment, and bwrap is spawned with none. The watcher closes 0–8 so that governed's stdout,
 * status and block pipes end when bwrap and the sandbox end, not when the watcher does.
 */
export const LIFELINE_SCRIPT =
  `unset PWD; (exec 0<&- 1>&- 2>&- 3>&- 4>&- 5>&- 6>&- 7>&- 8>&-; read -r _ <&${LIFELINE_FD}; kill -KILL 0) & exec ${LIFELINE_FD}<&- "$@"`;

/** The argv that runs `bwrapPath argv…` under the lifeline watcher. */
export function lifelineArgv(bwrapPath: string, argv: readonly string[]): string[] {
  return ['-c', LIFELINE_SCRIPT, 'governed-lifeline', bwrapPath, ...argv];
}
