// The one way tests read an error code (sigstore-js toThrowWithCode style): never message text.
import { GovernedError } from '../../src/core/errors.js';

/** The code a call throws, or undefined when it returns. Non-governed errors are re-thrown. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof GovernedError) return e.code;
    throw e;
  }
  return undefined;
}

/** The code and ids a call throws, as `code:id1,id2`. */
export function codeAndIdsOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof GovernedError) return `${e.code}:${e.ids.join(',')}`;
    throw e;
  }
  return undefined;
}
