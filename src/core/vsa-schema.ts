// The signed decision's predicate: its one definition (docs/gate.md#3-the-signed-decision---attest-file;
// the statement around it: ./vsa.ts). Closed at every level. Read through its compiled form
// (docs/architecture.md#compiled-formats).
import * as z from 'zod/mini';
import { digestString as digest, gitId, hex64, isoSeconds, list, str } from './schema-primitives.js';
import { VSA_HTTPS_URI_RE } from './vsa-uris.js';
import { VSA_BOUNDS, PRESERVATION_WAIVER_MAX_CHARS } from './limits.js';
import { UNIT_ID_RE } from './ids.js';
import { DECISION_SCHEMA_VERSION, FAILED_LEVEL, RELEASE_LEVEL, VSA_EXTENSION_KEY, VSA_POLICY_URI } from './vsa.js';

const INPUT_URI_RE = /^governed:(?:receipt:sha256:[0-9a-f]{64}|probe:sha256:[0-9a-f]{64}|authority:REC-[0-9a-f]{24})$/;
/** Reason codes and ids: closed alphabets only (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output"). */
const reasonCode = str({ re: /^[a-z][a-z0-9_]{0,63}(?::[a-z][a-z0-9_]{0,63})?$/ });
const reasonId = str({ re: /^[A-Za-z0-9][A-Za-z0-9._:>@-]{0,199}$/ });

const COMMIT = '(?:[0-9a-f]{40}|[0-9a-f]{64})';
/** `git+https://<repository>@<commit>` (policy names the repository), else `git+commit:<commit>`. */
const RESOURCE_URI_RE = new RegExp(`^(?:git\\+commit:${COMMIT}|git\\+https://[A-Za-z0-9._~:/?#[\\]!$&'()*+,;=%-]{1,500}@${COMMIT})$`);

export const vsaPredicateSchema = z.strictObject({
  verifier: z.strictObject({ id: str({ re: VSA_HTTPS_URI_RE }), version: z.strictObject({ governed: str({ re: /^\d+\.\d+\.\d+$/ }) }) }),
  timeVerified: isoSeconds,
  resourceUri: str({ re: RESOURCE_URI_RE }),
  policy: z.strictObject({ uri: z.literal(VSA_POLICY_URI), digest: z.strictObject({ sha256: hex64 }) }),
  inputAttestations: list(z.strictObject({ uri: str({ re: INPUT_URI_RE }), digest: z.strictObject({ sha256: hex64 }) }), 0, VSA_BOUNDS.maxInputAttestations),
  verificationResult: z.enum(['PASSED', 'FAILED']),
  verifiedLevels: list(z.enum([RELEASE_LEVEL, FAILED_LEVEL]), 1, 1),
  slsaVersion: z.literal('1.0'),
  [VSA_EXTENSION_KEY]: z.strictObject({
    decision_schema: z.literal(DECISION_SCHEMA_VERSION),
    unit: str({ re: UNIT_ID_RE }),
    state: z.enum(['RELEASE_ELIGIBLE', 'REVIEW_ONLY']),
    reasons: list(z.strictObject({ code: reasonCode, ids: list(reasonId, 0, VSA_BOUNDS.maxIdsPerReason) }), 0, VSA_BOUNDS.maxReasons),
    trust_mode: z.enum(['co-located', 'separated']),
    policy_digest: digest,
    trust_digest: digest,
    gate_trust_digest: digest,
    subject: z.strictObject({ commit: gitId, manifest_digest: digest }),
    current: z.strictObject({ planning_state_digest: digest, content_digest: digest, work_state_digest: digest }),
    preservation_waiver: z.nullable(str({ min: 1, max: PRESERVATION_WAIVER_MAX_CHARS })),
    attestor_sha256: hex64,
  }),
});

export type VsaPredicate = z.infer<typeof vsaPredicateSchema>;
