// The policy (docs/policy.md#policy-and-trust-root) loaded without zod, for the lean gate path. Same acceptance rule and the
// same result as src/core/policy.ts `loadPolicy`: the closed schema, then the cross-field rules
// (planning/integration slots are exactly the four roles, every slot's reviewer is listed, a policy
// with integration has planning, no reviewer sets a fixed environment name, all credentials are
// distinct keys), each with the same error code — the rules are ONE shared function
// (../policy-rules.ts); this module only replaces the zod schema. test/gate-lean-schemas.test.ts
// runs both loaders over the same valid and mutated policies. Pure.
import { CONTROL_NAMES, STAGE_ORDER } from '../decision/vocabulary.js';
import { isDuration, isSize } from '../duration.js';
import { fail } from '../errors.js';
import { policyFromDocument, ROLES } from '../policy-rules.js';
import type { Policy, PolicyDocument, Role, Stage } from '../policy.js';
import { arr, bool, int, lit, obj, oneOf, opt, record, refine, str, union, type Check } from './shape.js';

/** docs/overview.md#words (src/core/policy.ts ROLES, receipt-predicate STAGES, KNOWN_CONTROLS; equality tested). */
export const ROLES_LEAN: readonly Role[] = ROLES;
export const STAGES_LEAN: readonly Stage[] = STAGE_ORDER;
export const CONTROLS_LEAN = CONTROL_NAMES;

const hex64 = str({ re: /^[0-9a-f]{64}$/ });
const name = str({ re: /^[a-z][a-z0-9_-]{0,31}$/ });
const duration = str({ refine: isDuration });
const size = str({ refine: isSize });
const relPath = str({
  min: 1,
  max: 1024,
  refine: (p) => p === '.' || (!p.startsWith('/') && !p.split('/').some((s) => s === '' || s === '.' || s === '..')),
});
const hexList = arr(hex64, 1, 16);

const stage = obj({ required: bool(), streak: int(2, 100), slots: record(name, name) });
const credential = obj({ key_id: hex64, attestor_sha256: hexList, attestor_config_sha256: hexList });

export const policyShape: Check = obj({
  kind: lit('governed/policy'),
  version: lit(1),
  trust_mode: lit('co-located'),
  accept_co_located: bool(),
  challenge_ttl: duration,
  max_runs_per_content: int(1, 1000),
  reuse_window: opt(duration),
  product_roots: arr(relPath, 1, 64),
  exclude: arr(relPath, 0, 256),
  preservation: union(lit('required'), obj({ waived: str({ min: 1, max: 500 }) })),
  stages: refine(
    obj({ planning: opt(stage), development: opt(stage), test: opt(stage), integration: opt(stage) }),
    (s) => Object.keys(s as object).length > 0,
  ),
  reviewers: record(
    name,
    obj({
      sha256: hex64,
      interpreter: str({ re: /^\/usr\/[A-Za-z0-9._/+-]{1,200}$/, refine: (p) => !p.split('/').includes('..') }),
      env: record(str({ re: /^[A-Z][A-Z0-9_]{0,63}$/ }), str({ max: 4096 })),
    }),
  ),
  sandbox: obj({
    bwrap_sha256: hexList,
    profile_sha256: hexList,
    seccomp_sha256: hexList,
    uid: int(1000, 4294967294),
    timeout: duration,
    memory: size,
    max_output: size,
    max_bundle: size,
  }),
  credentials: obj({ reviewer: credential, runner: credential, gate: credential, log: credential, probe: opt(credential) }),
  controls: arr(oneOf(CONTROLS_LEAN), 0, CONTROLS_LEAN.length),
});

export function loadPolicyLean(value: unknown): Policy {
  const bad = policyShape(value, '$');
  if (bad !== null) fail('policy_invalid', [bad]);
  return policyFromDocument(value as PolicyDocument);
}
