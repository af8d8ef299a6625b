// The layout of a setup directory (docs/setup.md "What setup makes"): one definition, read by
// `governed setup` (which makes it) and `governed doctor` (which checks it).
//
//   DIR/keys/<credential>.key   PKCS#8 PEM, 0600 (keys/ is 0700)     DIR/trust.json    the trust root
//   DIR/keys/<credential>.pub   SPKI PEM                               DIR/policy.yaml   the policy
//   DIR/attestors/<credential>.json   attestor configuration (review-run's `--attestors` convention)
import { join, resolve } from 'node:path';
import type { AttestorKind } from '../../core/attestor-protocol.js';

/** Every credential setup makes a key for, in trust-root order; each key holds exactly its own role. */
export const SETUP_CREDENTIALS = ['reviewer', 'runner', 'gate', 'log', 'authority', 'probe'] as const;
export type SetupCredential = (typeof SETUP_CREDENTIALS)[number];

/** The credentials that sign through a pinned attestor, and the one kind each signs (docs/formats.md). */
export const ATTESTED_CREDENTIALS: Readonly<Record<'reviewer' | 'runner' | 'gate' | 'log' | 'probe', AttestorKind>> = {
  reviewer: 'review-receipt',
  runner: 'review-receipt',
  gate: 'decision',
  log: 'checkpoint',
  // preservation probes (docs/preservation.md#probes): `preservation probe --attestors DIR/attestors`
  probe: 'probe',
};
export type AttestedCredential = keyof typeof ATTESTED_CREDENTIALS;
export const ATTESTED = Object.keys(ATTESTED_CREDENTIALS) as AttestedCredential[];

/** The shipped policy templates (`policies/<name>.yaml`). */
export const POLICY_TEMPLATES = ['default', 'strict'] as const;
export type PolicyTemplate = (typeof POLICY_TEMPLATES)[number];

/** How long a trust root made by setup stays valid (its `expires` and every key's `not_after`). */
export const SETUP_TRUST_VALIDITY_SECONDS = 365 * 24 * 3600;

export interface SetupLayout {
  readonly dir: string;
  readonly keysDir: string;
  readonly attestorsDir: string;
  readonly trust: string;
  readonly policy: string;
  privateKey(c: SetupCredential): string;
  publicKey(c: SetupCredential): string;
  attestorConfig(c: AttestedCredential): string;
}

export function setupLayout(dir: string): SetupLayout {
  const root = resolve(dir);
  const keysDir = join(root, 'keys');
  const attestorsDir = join(root, 'attestors');
  return {
    dir: root,
    keysDir,
    attestorsDir,
    trust: join(root, 'trust.json'),
    policy: join(root, 'policy.yaml'),
    privateKey: (c) => join(keysDir, `${c}.key`),
    publicKey: (c) => join(keysDir, `${c}.pub`),
    attestorConfig: (c) => join(attestorsDir, `${c}.json`),
  };
}

/** A path of the layout as the user sees it: relative to DIR (what output names, never contents). */
export function layoutName(layout: SetupLayout, path: string): string {
  return path.startsWith(`${layout.dir}/`) ? path.slice(layout.dir.length + 1) : path;
}
