// A check adapter's view of its bundle (docs/reviewers.md#check-reviewers): the review bundle of
// the slot, read as strictly as the coverage reviewer reads it (../coverage/bundle.ts), plus the
// top-level `check` object the runner adds for a check slot — the command the policy fixes, the
// sealed snapshot's path, the dependency root the challenge bound, the report format and the
// adapter's time budget. Everything is checked; anything else is `Malformed` (exit 65, no stdout).
import { readBundle, COVERAGE_KINDS, type Bundle } from '../coverage/bundle.js';
import { canonicalJson } from '../coverage/canonical.js';
import { arr, check, DIGEST_RE, int, malformed, nullable, obj, oneOf, path, str } from '../coverage/shape.js';

export const CHECK_REPORTS = ['tap', 'exit-code'] as const;
export type CheckReport = (typeof CHECK_REPORTS)[number];

export interface CheckInputs {
  readonly command: readonly string[];
  readonly snapshot: string;
  readonly dependencyRoot: { readonly path: string; readonly digest: string } | null;
  readonly report: CheckReport;
  readonly timeoutMs: number;
}

export interface CheckBundle {
  readonly bundle: Bundle;
  readonly check: CheckInputs;
  /** Every ID of the view (the coverage object's kinds). */
  readonly visible: ReadonlySet<string>;
}

const ARG_RE = /^[^\0]{1,4096}$/;

export function readCheckBundle(bytes: Uint8Array): CheckBundle {
  let text: string;
  let value: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    value = JSON.parse(text);
  } catch {
    return malformed();
  }
  let canonical: string;
  try {
    canonical = canonicalJson(value);
  } catch {
    return malformed();
  }
  check(canonical === text);
  const o = obj(value, ['check', 'coverage', 'challenge_id', 'schema', 'sections', 'slot', 'stage', 'unit', 'view']);
  const { check: raw, ...rest } = o;
  // The rest is exactly a review bundle (removing a key keeps RFC 8785 form): the one reader.
  const bundle = readBundle(Buffer.from(canonicalJson(rest), 'utf8'));
  const c = obj(raw, ['command', 'dependency_root', 'report', 'snapshot', 'timeout_ms']);
  const command = arr(c.command, (a) => str(a, ARG_RE));
  check(command.length >= 1 && command.length <= 64 && (command[0] as string).startsWith('/'));
  const snapshot = str(c.snapshot);
  check(snapshot === '/snapshot');
  const dependencyRoot = nullable(c.dependency_root, (d) => {
    const x = obj(d, ['digest', 'path']);
    return { path: path(x.path), digest: str(x.digest, DIGEST_RE) };
  });
  const report = oneOf(c.report, CHECK_REPORTS);
  const timeoutMs = int(c.timeout_ms, 1000);
  return { bundle, check: { command, snapshot, dependencyRoot, report, timeoutMs }, visible: new Set(COVERAGE_KINDS.flatMap((k) => bundle.coverage[k])) };
}
