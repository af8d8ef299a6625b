// `governed setup --out DIR` (docs/setup.md): every key, the trust root, each attestor
// configuration and a policy with this machine's real digests, then `init`. One command instead of
// six keygen runs, a hand-written trust root, five attestor files and twenty-one pasted digests.
//
// Order: everything setup must READ is read first (bwrap, profile, seccomp, the reviewer and
// attestor programs, the policy template), so a machine that cannot run reviewers is refused before
// a single file is made. Then each file is made with exclusive create, or KEPT when it is already
// there and is exactly what setup would make (for a key: a 0600 private key whose public half is the
// .pub beside it). A file that is there but differs is refused (`setup_file_conflict`, naming the
// file relative to DIR), never overwritten. So a re-run on a finished DIR changes nothing and says
// so, and a run stopped half-way (disk full, a refused init) is finished by the next run.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, parseDocument, Scalar, YAMLSeq } from 'yaml';
import { canonicalJson, sha256Hex } from '../../core/canonical.js';
import { type AttestorConfig } from '../../core/attestor-protocol.js';
import { ATTESTOR_CONFIG_FORMAT } from '../../core/attestor-protocol.js';
import { checkFormat } from '../../core/format/interpret.js';
import { fail, isGovernedError } from '../../core/errors.js';
import { publicKeyFromPem, publicKeyFromSpkiDer } from '../../core/ed25519.js';
import { loadPolicy, type Policy } from '../../core/policy.js';
import { isoSecondsOf, loadTrustRoot, type TrustRoot } from '../../core/trust-root.js';
import { closeStore, openStoreReadOnly, readPin } from '../../store/index.js';
import { PIN_DOCUMENT_MAX_BYTES as MAX_PIN_FILE_BYTES } from '../../core/limits.js';
import { parsePinDocument } from '../../core/pin-document.js';
import { initFlow } from '../init.js';
import { keygen } from '../keygen.js';
import { readInputFile } from '../read-input.js';
import { writeOnce } from '../write-once.js';
import { installRoot, resolveLocations } from '../run/locations.js';
import { attestorProgramSha256, preservationAdapterSha256 as preservationAdapterSha256Of, reviewerSha256, sandboxDigests, shippedAttestorPath, shippedPreservationAdapterPath, type SandboxDigests } from './machine.js';
import {
  ATTESTED,
  ATTESTED_CREDENTIALS,
  layoutName,
  POLICY_TEMPLATES,
  SETUP_CREDENTIALS,
  SETUP_TRUST_VALIDITY_SECONDS,
  setupLayout,
  type AttestedCredential,
  type PolicyTemplate,
  type SetupCredential,
  type SetupLayout,
} from './layout.js';

export interface SetupArgs {
  readonly out: string;
  readonly home: string;
  readonly template: string;
  readonly init: boolean;
  /** `preservation: { waived: REASON }` in the policy instead of the template's setting. */
  readonly preservationWaiver?: string | undefined;
  readonly now: number;
  readonly bwrapPath?: string | undefined;
  readonly reviewersDir?: string | undefined;
}

export type SetupAction = 'created' | 'kept';

export interface SetupResult {
  readonly dir: string;
  readonly home: string;
  readonly changed: boolean;
  /** Every file of the layout, relative to DIR, and what this run did with it. */
  readonly files: readonly { readonly path: string; readonly action: SetupAction }[];
  readonly init: SetupAction | 'skipped';
  readonly keyIds: Readonly<Record<SetupCredential, string>>;
  readonly policyDigest: string;
  readonly trustDigest: string;
  readonly trustExpires: string;
  readonly sandbox: SandboxDigests;
  readonly attestorsDir: string;
  readonly trustFile: string;
  readonly policyFile: string;
  readonly gateConfig: string;
}

/** What the policy pins about this machine and these keys (all hex sha256 or key ids). */
export interface PolicyPins {
  readonly reviewers: Readonly<Record<string, string>>;
  readonly sandbox: SandboxDigests;
  readonly attestorSha256: string;
  /** The shipped preservation adapter's sha256 (set where the template allowlists adapters). */
  readonly preservationAdapterSha256: string;
  readonly credentials: Readonly<Record<AttestedCredential, { readonly keyId: string; readonly configSha256: string }>>;
}

export function isPolicyTemplate(t: string): t is PolicyTemplate {
  return (POLICY_TEMPLATES as readonly string[]).includes(t);
}

export function policyTemplatePath(t: PolicyTemplate): string {
  return join(installRoot(), 'policies', `${t}.yaml`);
}

export async function setupFlow(a: SetupArgs): Promise<SetupResult> {
  if (!isPolicyTemplate(a.template)) fail('setup_template_unknown', []);
  const layout = setupLayout(a.out);
  // 1. Read everything first: a machine that cannot run reviewers makes no file.
  const sandbox = await sandboxDigests(a.bwrapPath ?? '/usr/bin/bwrap');
  const templateText = readTemplate(a.template);
  const loc = resolveLocations({ home: a.home, reviewersDir: a.reviewersDir, attestorsDir: layout.attestorsDir, bwrapPath: a.bwrapPath });
  const reviewerNames = Object.keys((parseDocument(templateText).toJS() as { reviewers: Record<string, unknown> }).reviewers);
  const reviewers = Object.fromEntries(reviewerNames.map((n) => [n, reviewerSha256(loc, n)]));
  const attestorSha256 = attestorProgramSha256(shippedAttestorPath());
  const preservationAdapterSha256 = preservationAdapterSha256Of(shippedPreservationAdapterPath());

  // 2. Keys, attestor configurations, trust root, policy: each made or kept.
  const files: { path: string; action: SetupAction }[] = [];
  const record = (path: string, action: SetupAction): void => void files.push({ path: layoutName(layout, path), action });
  makeDir(layout, layout.dir, 0o755);
  const keyIds = {} as Record<SetupCredential, string>;
  for (const c of SETUP_CREDENTIALS) {
    const r = ensureKey(layout, c);
    keyIds[c] = r.keyId;
    record(layout.privateKey(c), r.action);
    record(layout.publicKey(c), r.action);
  }
  makeDir(layout, layout.attestorsDir, 0o755);
  const credentials = {} as Record<AttestedCredential, { keyId: string; configSha256: string }>;
  for (const c of ATTESTED) {
    const config: AttestorConfig = { credential: c, kind: ATTESTED_CREDENTIALS[c], key_id: keyIds[c], key_ref: layout.privateKey(c) };
    const r = ensureFile(layout, layout.attestorConfig(c), `${JSON.stringify(config, null, 2)}\n`, (bytes) => sameAttestorConfig(bytes, config));
    credentials[c] = { keyId: keyIds[c], configSha256: r.sha256 };
    record(layout.attestorConfig(c), r.action);
  }
  const trustText = `${JSON.stringify(trustRootDocument(layout, a.now), null, 2)}\n`;
  const trustR = ensureFile(layout, layout.trust, trustText, (bytes) => trustHoldsKeys(bytes, keyIds));
  record(layout.trust, trustR.action);
  const pins: PolicyPins = { reviewers, sandbox, attestorSha256, preservationAdapterSha256, credentials };
  const policyText = policyFromTemplate(templateText, a.template, pins, a.preservationWaiver);
  loadPolicy(parsePinDocument(Buffer.from(policyText, 'utf8'), 'policy').value); // a bad --waive-preservation reason: policy_invalid before policy.yaml is written
  const policyR = ensureFile(layout, layout.policy, policyText, (bytes) => policyPinsMatch(bytes, pins).length === 0);
  record(layout.policy, policyR.action);

  const policyBytes = readInputFile(layout.policy, MAX_PIN_FILE_BYTES);
  const trustBytes = readInputFile(layout.trust, MAX_PIN_FILE_BYTES);
  const policy = loadPolicy(parsePinDocument(policyBytes, 'policy').value);
  const trust = loadTrustRoot(parsePinDocument(trustBytes, 'trust').value);

  // 3. init, unless asked not to; a store that already pins these two documents is kept.
  let init: SetupAction | 'skipped' = 'skipped';
  if (a.init) init = ensureInit(a, layout, policy, trust);
  return {
    dir: layout.dir,
    home: a.home,
    changed: files.some((f) => f.action === 'created') || init === 'created',
    files,
    init,
    keyIds,
    policyDigest: policy.digest,
    trustDigest: trust.digest,
    trustExpires: trust.expires,
    sandbox,
    attestorsDir: layout.attestorsDir,
    trustFile: layout.trust,
    policyFile: layout.policy,
    gateConfig: layout.attestorConfig('gate'),
  };
}

function readTemplate(t: PolicyTemplate): string {
  try {
    return readFileSync(policyTemplatePath(t), 'utf8');
  } catch {
    fail('setup_file_missing', [`policies/${t}.yaml`]);
  }
}

function makeDir(layout: SetupLayout, dir: string, mode: number): void {
  try {
    mkdirSync(dir, { recursive: true, mode });
  } catch {
    fail('setup_output_unwritable', [layoutName(layout, dir) || '.']);
  }
  if (!lstatSync(dir).isDirectory()) fail('setup_output_unwritable', [layoutName(layout, dir)]);
}

/** A key pair made by keygen, or kept: a 0600 private key whose public half is exactly the .pub. */
function ensureKey(layout: SetupLayout, c: SetupCredential): { keyId: string; action: SetupAction } {
  const priv = layout.privateKey(c);
  const pub = layout.publicKey(c);
  const have = [existsSync(priv), existsSync(pub)];
  if (!have[0] && !have[1]) {
    try {
      return { keyId: keygen(c, layout.keysDir).keyId, action: 'created' };
    } catch (e) {
      if (isGovernedError(e) && e.code === 'key_output_unwritable') fail('setup_output_unwritable', [layoutName(layout, priv)]);
      throw e;
    }
  }
  if (!have[0] || !have[1]) fail('setup_file_conflict', [layoutName(layout, have[0] ? pub : priv)]);
  const st = lstatSync(priv);
  if (!st.isFile()) fail('setup_file_conflict', [layoutName(layout, priv)]);
  if ((st.mode & 0o077) !== 0) fail('private_key_exposed', [layoutName(layout, priv)]);
  let keyId: string;
  try {
    keyId = publicKeyFromPem(readFileSync(pub, 'utf8')).keyId;
    const derived = createPublicKey(createPrivateKey(readFileSync(priv))).export({ format: 'der', type: 'spki' });
    if (publicKeyFromSpkiDer(derived).keyId !== keyId) fail('setup_file_conflict', [layoutName(layout, pub)]);
  } catch (e) {
    if (isGovernedError(e)) throw e;
    fail('setup_file_conflict', [layoutName(layout, priv)]);
  }
  return { keyId, action: 'kept' };
}

/** Write `text` with exclusive create, or keep the file when `same(bytes)` accepts what is there. */
function ensureFile(layout: SetupLayout, path: string, text: string, same: (bytes: Buffer) => boolean): { action: SetupAction; sha256: string } {
  const name = layoutName(layout, path);
  if (existsSync(path) || isSymlink(path)) {
    let bytes: Buffer;
    try {
      bytes = readInputFile(path, MAX_PIN_FILE_BYTES);
    } catch {
      fail('setup_file_conflict', [name]);
    }
    let ok = false;
    try {
      ok = same(bytes);
    } catch {
      ok = false;
    }
    if (!ok) fail('setup_file_conflict', [name]);
    return { action: 'kept', sha256: sha256HexOf(bytes) };
  }
  try {
    writeOnce(path, text, { exists: 'setup_file_conflict', unwritable: 'setup_output_unwritable' });
  } catch (e) {
    if (isGovernedError(e)) fail(e.code, [name]);
    throw e;
  }
  return { action: 'created', sha256: sha256HexOf(Buffer.from(text)) };
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

const sha256HexOf = (bytes: Uint8Array): string => sha256Hex(bytes);

function sameAttestorConfig(bytes: Buffer, expected: AttestorConfig): boolean {
  const parsed = checkFormat(ATTESTOR_CONFIG_FORMAT, JSON.parse(bytes.toString('utf8')));
  return parsed.success && canonicalJson(parsed.data) === canonicalJson(expected);
}

/** The trust root setup writes: each key for exactly its own role, valid from now for a year. */
export function trustRootDocument(layout: SetupLayout, now: number): unknown {
  const from = isoSecondsOf(new Date(now * 1000));
  const until = isoSecondsOf(new Date((now + SETUP_TRUST_VALIDITY_SECONDS) * 1000));
  return {
    version: 1,
    expires: until,
    keys: SETUP_CREDENTIALS.map((role) => {
      const pem = readFileSync(layout.publicKey(role), 'utf8');
      return { key_id: publicKeyFromPem(pem).keyId, public_key: pem, roles: [role], not_before: from, not_after: until };
    }),
  };
}

function trustHoldsKeys(bytes: Buffer, keyIds: Readonly<Record<SetupCredential, string>>): boolean {
  const trust = loadTrustRoot(parsePinDocument(bytes, 'trust').value);
  return SETUP_CREDENTIALS.every((c) => trust.keys.get(keyIds[c])?.roles.has(c) === true);
}

/**
 * The policy: the shipped template with every pinned digest and key id replaced by this machine's
 * and these keys' (comments kept, the template's EXAMPLE notes dropped with the values they were on).
 */
export function policyFromTemplate(templateText: string, template: PolicyTemplate, pins: PolicyPins, preservationWaiver?: string): string {
  const doc = parseDocument(templateText);
  // The waiver's reason is checked by the one policy schema when the policy loads (policy_invalid).
  if (preservationWaiver !== undefined) doc.set('preservation', doc.createNode({ waived: preservationWaiver }));
  // A new node replaces the template's value AND the EXAMPLE note on it; hex always double-quoted.
  const hex = (v: string): Scalar => Object.assign(new Scalar(v), { type: Scalar.QUOTE_DOUBLE });
  const list = (v: string): YAMLSeq => Object.assign(new YAMLSeq(), { items: [hex(v)], flow: true });
  for (const [name, sha] of Object.entries(pins.reviewers)) doc.setIn(['reviewers', name, 'sha256'], hex(sha));
  doc.setIn(['sandbox', 'bwrap_sha256'], list(pins.sandbox.bwrapSha256));
  // A policy that allowlists preservation adapters probes in the check profile: pin it beside the
  // reviewer profile (docs/preservation.md#probes).
  const probes = doc.hasIn(['preservation_adapters', 'sha256']);
  doc.setIn(['sandbox', 'profile_sha256'], probes ? Object.assign(new YAMLSeq(), { items: [hex(pins.sandbox.profileSha256), hex(pins.sandbox.checkProfileSha256)], flow: true }) : list(pins.sandbox.profileSha256));
  doc.setIn(['sandbox', 'seccomp_sha256'], list(pins.sandbox.seccompSha256));
  if (probes) doc.setIn(['preservation_adapters', 'sha256'], list(pins.preservationAdapterSha256));
  for (const c of ATTESTED) {
    doc.setIn(['credentials', c, 'key_id'], hex(pins.credentials[c].keyId));
    doc.setIn(['credentials', c, 'attestor_sha256'], list(pins.attestorSha256));
    doc.setIn(['credentials', c, 'attestor_config_sha256'], list(pins.credentials[c].configSha256));
  }
  // The template's header (it says its values are EXAMPLES) and the note on `credentials:` go.
  if (isMap(doc.contents)) {
    const first = doc.contents.items[0];
    if (first !== undefined && isScalar(first.key)) first.key.commentBefore = null;
    for (const pair of doc.contents.items) {
      if (isScalar(pair.key) && pair.key.value === 'credentials') pair.key.comment = null;
      if (isMap(pair.value) && isScalar(pair.key) && pair.key.value === 'credentials') {
        pair.value.comment = null;
        pair.value.commentBefore = null;
        const head = pair.value.items[0];
        if (head !== undefined && isScalar(head.key)) head.key.commentBefore = null;
      }
    }
  }
  doc.commentBefore =
    ` governed policy made by \`governed setup\` from policies/${template}.yaml (docs/setup.md).\n` +
    " Every sha256 and key id below is this machine's: the reviewer and attestor programs, the attestor\n" +
    ' configurations, bwrap, the sandbox profile and seccomp blob, and the keys setup made.\n' +
    ' `governed doctor` checks that they still match.';
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** The policy's pinned fields that differ from `pins`, as field paths (empty: every pin matches). */
export function policyPinsMatch(bytes: Buffer, pins: PolicyPins): string[] {
  const p = loadPolicy(parsePinDocument(bytes, 'policy').value).doc;
  const bad: string[] = [];
  for (const [name, reviewer] of Object.entries(p.reviewers)) {
    const want = pins.reviewers[name];
    if (want !== undefined && reviewer.sha256 !== want) bad.push(`reviewers.${name}.sha256`);
  }
  if (!p.sandbox.bwrap_sha256.includes(pins.sandbox.bwrapSha256)) bad.push('sandbox.bwrap_sha256');
  if (!p.sandbox.profile_sha256.includes(pins.sandbox.profileSha256)) bad.push('sandbox.profile_sha256');
  if (!p.sandbox.seccomp_sha256.includes(pins.sandbox.seccompSha256)) bad.push('sandbox.seccomp_sha256');
  if (p.preservation_adapters !== undefined && !p.preservation_adapters.sha256.includes(pins.preservationAdapterSha256)) bad.push('preservation_adapters.sha256');
  if (p.preservation_adapters !== undefined && !p.sandbox.profile_sha256.includes(pins.sandbox.checkProfileSha256)) bad.push('sandbox.profile_sha256');
  for (const c of ATTESTED) {
    const cred = p.credentials[c];
    if (cred === undefined) {
      bad.push(`credentials.${c}`);
      continue;
    }
    if (cred.key_id !== pins.credentials[c].keyId) bad.push(`credentials.${c}.key_id`);
    if (!cred.attestor_sha256.includes(pins.attestorSha256)) bad.push(`credentials.${c}.attestor_sha256`);
    if (!cred.attestor_config_sha256.includes(pins.credentials[c].configSha256)) bad.push(`credentials.${c}.attestor_config_sha256`);
  }
  return bad;
}

/** `init` with DIR's policy and trust root, or kept when the state directory already pins exactly them. */
function ensureInit(a: SetupArgs, layout: SetupLayout, policy: Policy, trust: TrustRoot): SetupAction {
  let pinned: { policy: string; trust: string } | null = null;
  try {
    const store = openStoreReadOnly(a.home);
    try {
      pinned = { policy: readPin(store, 'policy').digest, trust: readPin(store, 'trust').digest };
    } finally {
      closeStore(store);
    }
  } catch (e) {
    if (!(isGovernedError(e) && e.code === 'store_missing')) throw e;
  }
  if (pinned !== null) {
    if (pinned.policy !== policy.digest) fail('setup_store_pins_other', ['policy']);
    if (pinned.trust !== trust.digest) fail('setup_store_pins_other', ['trust']);
    return 'kept';
  }
  initFlow({ home: a.home, policyFile: layout.policy, trustFile: layout.trust, now: a.now });
  return 'created';
}
