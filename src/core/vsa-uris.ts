// The URI alphabets a VSA's policy-named fields use (docs/gate.md#3-the-signed-decision---attest-file): the policy's `vsa` section
// checks them when a policy is parsed, and the VSA schema (./vsa.ts, which re-exports them) when a
// decision is signed. A module of their own so that parsing a policy — which every gate does —
// does not build the whole VSA schema, which only `gate --attest` uses
// (docs/performance.md#before-and-after-one-definition-per-format).

/** An https URI without whitespace or control characters (the policy's `vsa.verifier_id`). */
export const VSA_HTTPS_URI_RE = /^https:\/\/[A-Za-z0-9._~:/?#[\]@!$&'()*+,;=%-]{1,500}$/;
/** The policy's `vsa.repository_uri`: a `git+https://` repository URI (no `@`: the commit is appended). */
export const VSA_REPOSITORY_URI_RE = /^git\+https:\/\/[A-Za-z0-9._~:/?#[\]!$&'()*+,;=%-]{1,500}$/;
