// Executables the sandbox runs from the host's /usr (docs/threat-model.md#rules-that-hold-everywhere trust assumptions, docs/reviewers.md#the-reviewers-world): the
// reviewer's interpreter and the env/prlimit helpers. They are trusted as part of the root-owned
// base, so the check is about ownership and mode, not content: a file that is not root-owned, is
// writable by group/others, or is setuid/setgid is not part of that base.
import { realpathSync, statSync } from 'node:fs';
import { fail } from '../../src/core/errors.js';
import type { ErrorCode } from '../../src/core/errors.js';

export function assertTrustedUsrExecutable(path: string, code: ErrorCode, id: string): void {
  let real: string;
  let st;
  try {
    real = realpathSync(path);
    st = statSync(real);
  } catch {
    fail(code, [id]);
  }
  if (!real.startsWith('/usr/')) fail(code, [id]);
  if (!st.isFile() || st.uid !== 0) fail(code, [id]);
  if ((st.mode & 0o6000) !== 0 || (st.mode & 0o022) !== 0 || (st.mode & 0o111) === 0) fail(code, [id]);
}
