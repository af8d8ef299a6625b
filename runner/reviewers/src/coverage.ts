// The `coverage` reviewer (docs/reviewers.md#the-coverage-reviewer; docs/bundle.md#the-review-bundle): a pinned, self-contained program that the
// runner starts inside the sandbox as `<interpreter> <this file>` with no arguments, stdin closed,
// cwd /tmp and exactly the environment of docs/reviewers.md#the-reviewers-world. It reads the bundle at $GOVERNED_BUNDLE and
// prints one review output (docs/reviewers.md#reviewer-output) on stdout. scripts/build.mjs bundles this file and
// ./coverage/* into runner/reviewers/coverage.mjs, which imports only Node built-ins (docs/formats.md#attestors).
//
// Exit status (docs/reviewers.md):
//   0   a review output was printed (CLEAN or DIRTY: the verdict is in the output)
//   64  GOVERNED_BUNDLE is not set
//   66  the bundle cannot be read
//   65  the bundle is malformed (shape, canonical form, digests, view coherence)
//   70  internal error
// On every non-zero exit stdout is empty, and stderr carries one fixed line that never includes a
// path, a key or a value from the bundle (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output").
import { readFileSync } from 'node:fs';
import { Malformed } from './coverage/shape.js';
import { reviewBundleBytes } from './coverage/review.js';

function main(): number {
  const path = process.env.GOVERNED_BUNDLE;
  if (path === undefined || path === '') {
    process.stderr.write('coverage: GOVERNED_BUNDLE is not set\n');
    return 64;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    process.stderr.write('coverage: bundle unreadable\n');
    return 66;
  }
  let out: string;
  try {
    out = reviewBundleBytes(bytes);
  } catch (e) {
    process.stderr.write(e instanceof Malformed ? 'coverage: bundle malformed\n' : 'coverage: internal error\n');
    return e instanceof Malformed ? 65 : 70;
  }
  process.stdout.write(out);
  return 0;
}

process.exitCode = main();
