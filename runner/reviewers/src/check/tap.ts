import { REPO_PATH_MAX_CHARS } from '../../../../src/core/limits.js';
// A strict-enough TAP reader for a check adapter (TAP 13/14, as node:test's `tap` reporter, ava's
// `--tap` and tape print it). It reads only structure, never keeps text: the plan, each test
// point's ok / not ok (a `# TODO` not-ok is not a failure, a `# SKIP` is a pass), indentation
// (subtests are indented by 4 spaces per level; only top-level points count, their subtests are
// summarised by them), `Bail out!`, and the `location:` of a failed point's YAML block (node:test
// writes `location: '/snapshot/test/x.test.js:3:1'`), reduced to a repository path.

export interface TapFailure {
  /** Repository-relative path of the failing test's file, or null when the report names none. */
  readonly file: string | null;
}

export interface TapReport {
  readonly version: boolean;
  readonly plan: number | null;
  readonly points: number;
  readonly passed: number;
  readonly failures: readonly TapFailure[];
  readonly bailedOut: boolean;
}

const POINT = /^(not ok|ok)\b\s*(\d+)?[^#]*(#\s*(\w+))?/i;
const PLAN = /^1\.\.(\d+)\b/;
const LOCATION = /^\s*location:\s*'?"?([^'"]+?)(?::\d+(?::\d+)?)?'?"?\s*$/;

/** `/snapshot/a/b.js` or `a/b.js` → `a/b.js`; null outside the snapshot or not a clean relative path. */
export function snapshotRelative(p: string, snapshot: string): string | null {
  let s = p.startsWith('file://') ? decodeURIComponent(p.slice('file://'.length)) : p;
  if (s.startsWith('/')) {
    if (!s.startsWith(`${snapshot}/`)) return null;
    s = s.slice(snapshot.length + 1);
  }
  while (s.startsWith('./')) s = s.slice(2);
  if (s.length === 0 || s.length > REPO_PATH_MAX_CHARS || s.includes('\0') || s.split('/').some((c) => c === '' || c === '.' || c === '..')) return null;
  return s;
}

export function parseTap(text: string, snapshot: string): TapReport {
  let version = false;
  let plan: number | null = null;
  let points = 0;
  let passed = 0;
  let bailedOut = false;
  const failures: { file: string | null }[] = [];
  let open: { file: string | null } | null = null;
  let yamlTarget: { file: string | null } | null = null;
  let inYaml = false;
  for (const raw of text.split(/\r?\n/)) {
    const indent = raw.length - raw.trimStart().length;
    const line = raw.trim();
    if (inYaml) {
      if (line === '...') {
        inYaml = false;
        continue;
      }
      if (yamlTarget !== null && yamlTarget.file === null) {
        const m = LOCATION.exec(line);
        if (m?.[1] !== undefined) yamlTarget.file = snapshotRelative(m[1], snapshot);
      }
      continue;
    }
    if (indent === 0 && /^TAP version (13|14)$/.test(line)) {
      version = true;
      continue;
    }
    if (line === '---') {
      // A top-level point's YAML block is indented by 2; a subtest's by more (not attributed).
      inYaml = true;
      yamlTarget = indent === 2 ? open : null;
      continue;
    }
    if (indent !== 0) continue; // a subtest: its top-level point summarises it
    if (/^Bail out!/.test(line)) {
      bailedOut = true;
      continue;
    }
    const p = PLAN.exec(line);
    if (p?.[1] !== undefined) {
      plan = Number(p[1]);
      continue;
    }
    const m = POINT.exec(line);
    if (m === null) {
      open = null;
      continue;
    }
    points++;
    const directive = (m[4] ?? '').toUpperCase();
    const ok = m[1]?.toLowerCase() === 'ok';
    if (ok || directive === 'TODO') {
      passed++;
      open = null;
    } else {
      open = { file: null };
      failures.push(open);
    }
  }
  return { version, plan, points, passed, failures, bailedOut };
}
