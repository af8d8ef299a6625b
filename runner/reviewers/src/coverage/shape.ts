// The bundle readers' one error, `Malformed` (docs/reviewers.md). There are no shape checks here:
// every reviewer reads its bundle with governed's one definition of the format
// (src/core/bundle/schema.ts, its rules in src/core/bundle/rules.ts) through ./bundle.ts
// `parseBundle`. The error never names the offending key or value
// (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output").

/** The bundle is not one this reviewer can trust: exit non-zero with no stdout. */
export class Malformed extends Error {
  constructor() {
    super('bundle_malformed');
  }
}

export function malformed(): never {
  throw new Malformed();
}

export function check(ok: boolean): void {
  if (!ok) malformed();
}
