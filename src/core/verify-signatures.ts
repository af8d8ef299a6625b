// The signature rule of every governed envelope (docs/formats.md#receipt, docs/policy.md#policy-and-trust-root, docs/commands.md#exit-codes precedence). Zod-free: the
// receipt and authority verifiers and the lean gate path all call this one function.
import { pae } from './pae.js';
import { fail } from './errors.js';
import { verifyEd25519 } from './ed25519.js';
import { keyStatusAt } from './key-status.js';
import type { DecodedEnvelope } from './dsse.js';
import type { KeyRole, TrustRoot, TrustedKey } from './trust-root.js';

/** The two signatures of a review receipt (docs/formats.md#receipt): one reviewer key, one distinct runner key. */
export const RECEIPT_ROLES: readonly KeyRole[] = ['reviewer', 'runner'];

export interface SignedBy {
  readonly role: KeyRole;
  readonly keyId: string;
}

/**
 * Check the signatures: every signature present must verify over PAE with a trusted key; each
 * required role needs its own distinct key (a key counts once however often it signs: tuf-js
 * style Set of key ids); the keys must hold the role and be valid at `at` (docs/formats.md#receipt, docs/policy.md#policy-and-trust-root).
 * Failures are collected and the highest-precedence one is thrown (docs/commands.md#exit-codes: 4 before 6).
 */
export function verifySignatures(
  env: DecodedEnvelope,
  trust: TrustRoot,
  requiredRoles: readonly KeyRole[],
  opts: { readonly at: string; readonly offline: boolean },
): SignedBy[] {
  if (env.signatures.length > requiredRoles.length) fail('signature_extra', []);
  const message = pae(env.payloadType, env.payload);
  const verified = new Map<string, TrustedKey>();
  const unknown: string[] = [];
  for (const s of env.signatures) {
    const key = trust.keys.get(s.keyid);
    if (key === undefined) {
      unknown.push(s.keyid);
      continue;
    }
    if (!verifyEd25519(key.publicKey, message, s.sig)) fail('signature_invalid', [s.keyid]);
    verified.set(key.keyId, key);
  }
  if (unknown.length > 0) fail('key_unknown', unknown);
  for (const key of verified.values()) {
    const status = keyStatusAt(key, opts.at, opts.offline);
    if (status === 'revoked') fail('key_revoked', [key.keyId]);
    if (status === 'outside_validity') fail('key_outside_validity', [key.keyId]);
  }
  if (verified.size < requiredRoles.length) fail('signature_missing', requiredRoles.slice(verified.size));
  const assignment = assignRoles([...verified.values()], requiredRoles);
  if (assignment === null) fail('key_wrong_role', [...verified.keys()]);
  return assignment;
}

/** Assign each required role to a distinct key holding it (tiny bipartite search: ≤ 2 roles). */
function assignRoles(keys: readonly TrustedKey[], roles: readonly KeyRole[]): SignedBy[] | null {
  const used = new Set<string>();
  const out: SignedBy[] = [];
  const search = (i: number): boolean => {
    if (i === roles.length) return true;
    const role = roles[i] as KeyRole;
    for (const k of keys) {
      if (used.has(k.keyId) || !k.roles.has(role)) continue;
      used.add(k.keyId);
      out.push({ role, keyId: k.keyId });
      if (search(i + 1)) return true;
      used.delete(k.keyId);
      out.pop();
    }
    return false;
  };
  return search(0) ? out : null;
}


/** The key a policy names for each signing role (`credentials.<role>.key_id`, docs/gate.md#4-what-is-re-verified-and-against-what). */
export type CredentialKeys = Readonly<Partial<Record<KeyRole, string>>>;

/**
 * After `verifySignatures`: each of `roles` must be signed by exactly the key the policy names for
 * it, and the trust root must give that key that role. A trust root that swaps the roles of two
 * real keys satisfies `verifySignatures` (each key holds *a* required role) but not this rule:
 * the reviewer signature must be the policy's reviewer key, the runner's its runner key.
 * `signers`: the key ids of the envelope's (verified) signatures.
 */
export function assertSignedByCredentials(signers: readonly string[], trust: TrustRoot, roles: readonly KeyRole[], credentials: CredentialKeys): void {
  for (const role of roles) {
    const keyId = credentials[role];
    if (keyId === undefined || !signers.includes(keyId) || trust.keys.get(keyId)?.roles.has(role) !== true) fail('signature_not_credential_key', [role]);
  }
}

/** The receipt signing keys a policy names (its `credentials.reviewer` and `credentials.runner`). */
export function receiptCredentialKeys(credentials: { readonly reviewer: { readonly key_id: string }; readonly runner: { readonly key_id: string } }): CredentialKeys {
  return { reviewer: credentials.reviewer.key_id, runner: credentials.runner.key_id };
}
