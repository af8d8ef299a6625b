// The bundle's `coverage` section schema and the two ID shapes it is made of, in a module of their
// own: `governed review-run` checks a stored bundle's coverage (src/flows/run/load-challenge.ts) and
// nothing else of the bundle format, so it loads only these few schemas instead of constructing the
// whole bundle schema (≈ 115 zod schemas) on every start
// (bench/runner, docs/performance.md#review-run-start-up). zod/mini, like every format
// (../schema-primitives.ts). ./schema.ts builds the full bundle
// schema from these very objects, so both paths accept exactly the same coverage (docs/bundle.md#views).
import * as z from 'zod/mini';
import { str } from '../schema-primitives.js';
import { CONTRACT_ID_RE, CONTRACT_RELATION_RE } from '../ids.js';

/** A record ID of the contract/bundle (`DIR-1`, `ATOM-a.b`): prefix, dash, 1–24 characters. */
export const bundleIdSchema = str({ re: CONTRACT_ID_RE });
/** An `ID>ID` relation edge. */
export const relationSchema = str({ re: CONTRACT_RELATION_RE });

const id = bundleIdSchema;

export const coverageSchema = z.strictObject({
  sources: z.array(id),
  atoms: z.array(id),
  directives: z.array(id),
  targets: z.array(id),
  criteria: z.array(id),
  implementations: z.array(id),
  evidence: z.array(id),
  authorities: z.array(id),
  tombstones: z.array(id),
  changes: z.array(id),
  scope_versions: z.array(id),
  surfaces: z.array(id),
  relations: z.array(relationSchema),
});

export type Coverage = z.infer<typeof coverageSchema>;
