// Every refinement a compiled format may use (docs/architecture.md#compiled-formats): rules a
// schema language cannot say, each defined once here under a stable name. The zod/mini
// definitions refine with these functions; src/core/format/compile.ts finds each one's name by
// identity (an unnamed inline refinement makes the build fail), and ./interpret.ts calls it by
// that name. Pure.
import { isIsoSeconds } from '../iso-time.js';
import { checkCommandAllowed, dependencyRootAllowed } from '../sandbox-bounds.js';

/** '.' or a relative path with no empty, '.' or '..' segment (policy product roots, excludes). */
function relativePath(p: string): boolean {
  return p === '.' || (!p.startsWith('/') && !p.split('/').some((s) => s === '' || s === '.' || s === '..'));
}

/** No '..' segment (absolute interpreter and credential paths). */
function noDotDotSegment(p: string): boolean {
  return !p.split('/').includes('..');
}

/** No '.' or '..' segment (an egress request path). */
function noDotSegment(p: string): boolean {
  return !p.split('/').some((s) => s === '.' || s === '..');
}

/** Refuses an own `__proto__` key, which zod's record would drop unseen (src/core/closed-record.ts). */
function noOwnProto(v: unknown): boolean {
  return !(typeof v === 'object' && v !== null && Object.prototype.hasOwnProperty.call(v, '__proto__'));
}

/**
 * zod's own `z.base64()` format (zod's isValidBase64, restated so that a compiled form can check it;
 * test/format-compiled.test.ts holds the two equal): empty, or no whitespace, a length that is a
 * multiple of 4, and what `atob` decodes.
 */
function isValidBase64(data: string): boolean {
  if (data === '') return true;
  if (/\s/.test(data)) return false;
  if (data.length % 4 !== 0) return false;
  try {
    atob(data);
    return true;
  } catch {
    return false;
  }
}

/** A policy's automatic checkpoints name at least one trigger. */
function checkpointTrigger(c: { readonly every_entries?: number | undefined; readonly every?: string | undefined }): boolean {
  return c.every_entries !== undefined || c.every !== undefined;
}

/** A policy names at least one stage. */
function atLeastOneKey(s: object): boolean {
  return Object.keys(s).length > 0;
}

export const REFINEMENTS = {
  isIsoSeconds,
  dependencyRootAllowed,
  checkCommandAllowed,
  relativePath,
  noDotDotSegment,
  noDotSegment,
  noOwnProto,
  isValidBase64,
  checkpointTrigger,
  atLeastOneKey,
} as const;

export type RefinementName = keyof typeof REFINEMENTS;
