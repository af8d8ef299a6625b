// `gate --attest FILE`: the decision as a signed SLSA VSA (src/core/vsa.ts), made by the policy's
// `gate` credential through its pinned attestor (docs/formats.md#receipt, docs/formats.md#attestors, docs/policy.md#policy-and-trust-root): the attestor program and its
// config must be on `credentials.gate.attestor_sha256` / `attestor_config_sha256` (nothing runs
// otherwise), the signature it returns must verify under the gate key of the DEPLOY-side trust root
// (role `gate`, valid and not revoked now), and the envelope is written once, never overwriting.
// Loaded only when --attest is given (it pulls zod and the attestor host): off the lean path.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256Digest, canonicalBytes } from '../../core/canonical.js';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE } from '../../core/dsse.js';
import { fail } from '../../core/errors.js';
import type { Policy } from '../../core/policy.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { trustedKeyFor } from '../../core/key-status.js';
import { buildVsaStatement, VSA_MAX_PAYLOAD_BYTES, vsaBoundExceeded, vsaRuleViolation, type DecisionForVsa, VSA_PREDICATE_FORMAT } from '../../core/vsa.js';
import { checkFormat } from '../../core/format/interpret.js';
import { pinAttestor, runPinnedAttestor } from '../../../runner/attestor-host.js';
import { installRoot } from '../run/locations.js';
import { writeOnce } from '../write-once.js';

export interface AttestArgs {
  readonly out: string;
  /** The state directory (default attestors directory: `<home>/attestors`). */
  readonly home: string;
  /** Overrides of review-run's convention (src/flows/run/locations.ts), see `gateAttestorFiles`. */
  readonly attestorsDir?: string | undefined;
  readonly attestorPath?: string | undefined;
  readonly attestorConfigPath?: string | undefined;
  readonly policy: Policy;
  /** The deploy-side trust root: the gate key must be in it with role `gate`, valid `atIso`. */
  readonly trust: TrustRoot;
  readonly atIso: string;
  readonly decision: Omit<DecisionForVsa, 'attestorSha256'>;
}

export interface Attestation {
  readonly path: string;
  /** `sha256:` of the signed payload (the statement's RFC 8785 bytes). */
  readonly payloadDigest: string;
}

/**
 * Where the gate attestor is, by review-run's convention for every credential (docs/runner.md,
 * src/flows/run/locations.ts): `<attestors dir>/gate.json` (its config) and `<attestors dir>/gate.mjs`
 * (its program), falling back to the shipped `<install>/attestors/ed25519-file.mjs`; attestors dir =
 * --attestors, else $GOVERNED_ATTESTORS_DIR, else `<home>/attestors`. --attestor-config and
 * --attestor name the files directly. No location is trusted: only the policy's digests count.
 */
export function gateAttestorFiles(a: Pick<AttestArgs, 'home' | 'attestorsDir' | 'attestorPath' | 'attestorConfigPath'>): GateAttestorFiles {
  const env = process.env.GOVERNED_ATTESTORS_DIR ? process.env.GOVERNED_ATTESTORS_DIR : undefined;
  const dirFrom = a.attestorsDir !== undefined ? '--attestors' : env !== undefined ? 'GOVERNED_ATTESTORS_DIR' : '<home>/attestors';
  const dir = resolve(a.attestorsDir ?? env ?? join(a.home, 'attestors'));
  const own = join(dir, 'gate.mjs');
  return {
    program: a.attestorPath ?? (existsSync(own) ? own : join(installRoot(), 'attestors', 'ed25519-file.mjs')),
    programFrom: a.attestorPath !== undefined ? '--attestor' : existsSync(own) ? `${dirFrom}/gate.mjs` : 'shipped',
    config: a.attestorConfigPath ?? join(dir, 'gate.json'),
    configFrom: a.attestorConfigPath !== undefined ? '--attestor-config' : `${dirFrom}/gate.json`,
  };
}

export interface GateAttestorFiles {
  readonly program: string;
  readonly config: string;
  /** Where each path came from (an option, the environment, the convention): what an error names, never the path. */
  readonly programFrom: string;
  readonly configFrom: string;
}

/**
 * A gate attestor file that is not there is named (`gate_attestor_missing`, 2: which file of the
 * gate credential, and where it was looked for), not left to the reader's `input_unreadable`.
 */
function assertAttestorFilesPresent(files: GateAttestorFiles): void {
  if (!existsSync(files.config)) fail('gate_attestor_missing', ['credentials.gate', 'attestor_config', files.configFrom]);
  if (!existsSync(files.program)) fail('gate_attestor_missing', ['credentials.gate', 'attestor', files.programFrom]);
}

export async function attestDecision(args: AttestArgs): Promise<Attestation> {
  // The gate key of the policy, as the deploy-side trust root holds it (exit 6 otherwise).
  const expectedKey = trustedKeyFor(args.trust, args.policy.doc.credentials.gate.key_id, 'gate', args.atIso);
  const gate = args.policy.doc.credentials.gate;
  const files = gateAttestorFiles(args);
  assertAttestorFilesPresent(files);
  const pinned = pinAttestor(files.program, files.config, { attestorSha256: gate.attestor_sha256, configSha256: gate.attestor_config_sha256 });
  const vsa = args.policy.doc.vsa;
  const statement = buildVsaStatement({ ...args.decision, attestorSha256: pinned.programSha256, verifierId: vsa?.verifier_id, repositoryUri: vsa?.repository_uri });
  // A decision larger than the VSA's bounds (src/core/vsa.ts `VSA_BOUNDS`) cannot be signed:
  // a coded refusal before anything runs, like a deploy record asked for and not written
  // (docs/gate.md#3-the-signed-decision---attest-file "Bounds"): the gate then denies, never exit 0, and no file is written.
  const bound = vsaBoundExceeded(statement.predicate);
  if (bound !== null) fail('gate_attest_decision_too_large', [bound]);
  // Our own check first: a statement the attestor would refuse is a bug here, not a refusal there.
  const parsed = checkFormat(VSA_PREDICATE_FORMAT, statement.predicate);
  if (!parsed.success || vsaRuleViolation({ subject: statement.subject, predicate: parsed.data }) !== null) {
    fail('internal_error', ['vsa']);
  }
  const payload = canonicalBytes(statement);
  if (payload.length > VSA_MAX_PAYLOAD_BYTES) fail('gate_attest_decision_too_large', ['payload']);
  const signed = await runPinnedAttestor(pinned, { expectedKey, payloadType: IN_TOTO_PAYLOAD_TYPE, payload });
  const envelope = `${JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, [{ keyid: signed.keyid, sig: signed.sig }]))}\n`;
  writeOnce(args.out, envelope, { exists: 'gate_attest_output_exists', unwritable: 'gate_attest_output_unwritable' });
  return { path: args.out, payloadDigest: sha256Digest(payload) };
}
