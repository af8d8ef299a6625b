// The checks of `governed doctor` (docs/setup.md "doctor"): ONE array, each check a named function
// over a shared, lazily read context that returns the problems it found (empty: passed). A check
// never throws for what it inspects: what it cannot read is a problem with a code, or — when an
// earlier check already names the cause (a missing file) — the check is skipped, so one broken
// thing is named once. Another mode adds its checks by appending to DOCTOR_CHECKS.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, type Stats } from 'node:fs';
import { isGovernedError, type ErrorCode } from '../../core/errors.js';
import { publicKeyFromPem } from '../../core/ed25519.js';
import { ATTESTOR_CONFIG_FORMAT } from '../../core/attestor-protocol.js';
import { checkFormat } from '../../core/format/interpret.js';
import type { Policy } from '../../core/policy.js';
import { isoSecondsOf, type TrustRoot } from '../../core/trust-root.js';
import { keyStatusAt } from '../../core/key-status.js';
import { sha256Hex } from '../../core/canonical.js';
import { closeStore, openStoreReadOnly, readPin } from '../../store/index.js';
import { PIN_DOCUMENT_MAX_BYTES as MAX_PIN_FILE_BYTES } from '../../core/limits.js';
import { parsePinDocument } from '../../core/pin-document.js';
import { readInputFile } from '../read-input.js';
import { reviewerFile, type RunLocations } from '../run/locations.js';
import { attestorProgramSha256, preservationAdapterSha256, reviewerSha256, shippedAttestorPath, shippedPreservationAdapterPath, type SandboxDigests } from '../setup/machine.js';
import { ATTESTED, layoutName, SETUP_CREDENTIALS, type SetupLayout } from '../setup/layout.js';
import { runnerdLayoutFindings, type RunnerdTarget } from '../runnerd/layout-findings.js';

/** One problem: a stable code (docs/errors.md) and identifiers — file names relative to DIR, field paths. */
export interface DoctorProblem {
  readonly code: ErrorCode;
  readonly ids: readonly string[];
}

export interface DoctorContext {
  readonly layout: SetupLayout;
  readonly home: string;
  readonly locations: RunLocations;
  readonly now: number;
  /** The policy of DIR, or the problem that stops reading it (read once, shared by every check). */
  policy(): Policy | DoctorProblem;
  trust(): TrustRoot | DoctorProblem;
  sandbox(): Promise<SandboxDigests | DoctorProblem>;
  /** The runnerd layout to judge (separated mode), or null. */
  readonly runnerd: RunnerdTarget | null;
}

export interface DoctorCheck {
  readonly id: string;
  /** `separated`: a check of separated mode, run only when doctor is given a runnerd layout (--runnerd); else co-located, run with --dir. */
  readonly mode?: 'separated';
  /** What the check proves when it passes (printed by --help and the docs). */
  readonly proves: string;
  run(ctx: DoctorContext): Promise<readonly DoctorProblem[]> | readonly DoctorProblem[];
}

const isProblem = (x: unknown): x is DoctorProblem => typeof x === 'object' && x !== null && 'code' in x && 'ids' in x;
const problem = (code: ErrorCode, ...ids: string[]): DoctorProblem => ({ code, ids });
/** A coded failure as a problem (its ids replaced by `ids` when given: never a value). */
function problemOf(e: unknown, ids?: readonly string[]): DoctorProblem {
  if (isGovernedError(e)) return { code: e.code, ids: ids ?? e.ids };
  throw e;
}

const setupFiles = (l: SetupLayout): string[] => [
  ...SETUP_CREDENTIALS.flatMap((c) => [l.privateKey(c), l.publicKey(c)]),
  ...ATTESTED.map((c) => l.attestorConfig(c)),
  l.trust,
  l.policy,
];

export const DOCTOR_CHECKS: DoctorCheck[] = [
  {
    id: 'files',
    proves: 'every key, attestor configuration, the trust root and the policy of the setup directory is there',
    run: ({ layout }) => setupFiles(layout).filter((p) => !existsSync(p)).map((p) => problem('setup_file_missing', layoutName(layout, p))),
  },
  {
    id: 'key_modes',
    proves: 'keys/ is 0700 and every private key is a regular 0600 file owned by the user running doctor',
    run: ({ layout }) => {
      const out: DoctorProblem[] = [];
      const uid = process.geteuid?.() ?? -1;
      const dir = statOf(layout.keysDir);
      if (dir !== null && ((dir.mode & 0o077) !== 0 || dir.uid !== uid)) out.push(problem('private_key_exposed', 'keys'));
      for (const c of SETUP_CREDENTIALS) {
        const st = statOf(layout.privateKey(c));
        if (st === null) continue; // named by `files`
        if (!st.isFile() || (st.mode & 0o777) !== 0o600 || st.uid !== uid) out.push(problem('private_key_exposed', layoutName(layout, layout.privateKey(c))));
      }
      return out;
    },
  },
  {
    id: 'trust_root',
    proves: 'the trust root is valid, not expired, and each key of it is valid now',
    run: ({ trust, now, layout }) => {
      const t = trust();
      if (isProblem(t)) return t.code === 'setup_file_missing' ? [] : [t];
      const at = isoSecondsOf(new Date(now * 1000));
      if (!(at < t.expires)) return [problem('trust_root_expired', layoutName(layout, layout.trust))];
      const out: DoctorProblem[] = [];
      for (const [keyId, key] of t.keys) {
        const status = keyStatusAt(key, at, false);
        if (status === 'revoked') out.push(problem('key_revoked', keyId));
        else if (status === 'outside_validity') out.push(problem('key_outside_validity', keyId));
      }
      return out;
    },
  },
  {
    id: 'keys_agree',
    proves: "for each credential, the key file, the trust root (in that role), the attestor configuration and the policy name one key",
    run: ({ layout, trust, policy }) => {
      const t = trust();
      const p = policy();
      const out: DoctorProblem[] = [];
      for (const c of SETUP_CREDENTIALS) {
        let keyId: string;
        try {
          keyId = publicKeyFromPem(readInputFile(layout.publicKey(c), 64 * 1024).toString('utf8')).keyId;
        } catch {
          continue; // named by `files`
        }
        if (!isProblem(t) && t.keys.get(keyId)?.roles.has(c) !== true) out.push(problem('setup_key_mismatch', c, 'trust.json'));
        if (c === 'authority') continue;
        // A policy without the probe credential cannot sign probes (docs/preservation.md#probes): named here.
        if (!isProblem(p) && p.doc.credentials[c]?.key_id !== keyId) out.push(problem('setup_key_mismatch', c, `policy.yaml:credentials.${c}.key_id`));
        try {
          const parsed = checkFormat(ATTESTOR_CONFIG_FORMAT, JSON.parse(readInputFile(layout.attestorConfig(c), 64 * 1024).toString('utf8')));
          if (!parsed.success) throw new Error('attestor config');
          const cfg = parsed.data;
          if (cfg.key_id !== keyId || cfg.key_ref !== layout.privateKey(c) || cfg.credential !== c) out.push(problem('setup_key_mismatch', c, layoutName(layout, layout.attestorConfig(c))));
        } catch {
          if (existsSync(layout.attestorConfig(c))) out.push(problem('attestor_config_invalid', layoutName(layout, layout.attestorConfig(c))));
        }
      }
      return out;
    },
  },
  {
    id: 'pinned_programs',
    proves: 'the reviewer programs, the attestor program, each attestor configuration (the probe one included) and the shipped preservation adapter still have the sha256 the policy pins',
    run: ({ layout, policy, locations }) => {
      const p = policy();
      if (isProblem(p)) return p.code === 'setup_file_missing' ? [] : [p];
      const out: DoctorProblem[] = [];
      for (const [name, r] of Object.entries(p.doc.reviewers)) {
        if (!existsSync(reviewerFile(locations, name))) {
          out.push(problem('reviewer_file_unavailable', `reviewers.${name}`));
          continue;
        }
        if (reviewerSha256(locations, name) !== r.sha256) out.push(problem('setup_digest_changed', `reviewers.${name}.sha256`));
      }
      let attestor: string | null = null;
      try {
        attestor = attestorProgramSha256(shippedAttestorPath());
      } catch (e) {
        out.push(problemOf(e, ['attestor program']));
      }
      for (const c of ATTESTED) {
        const cred = p.doc.credentials[c];
        if (cred === undefined) continue; // named by `keys_agree`
        if (attestor !== null && !cred.attestor_sha256.includes(attestor)) out.push(problem('setup_digest_changed', `credentials.${c}.attestor_sha256`));
        const path = layout.attestorConfig(c);
        if (!existsSync(path)) continue; // named by `files`
        const sha = sha256Hex(readInputFile(path, 64 * 1024));
        if (!cred.attestor_config_sha256.includes(sha)) out.push(problem('setup_digest_changed', `credentials.${c}.attestor_config_sha256`));
      }
      // The shipped preservation adapter, where the policy allowlists adapters (docs/preservation.md#adapter-protocol).
      if (p.doc.preservation_adapters !== undefined) {
        try {
          if (!p.doc.preservation_adapters.sha256.includes(preservationAdapterSha256(shippedPreservationAdapterPath()))) out.push(problem('setup_digest_changed', 'preservation_adapters.sha256'));
        } catch (e) {
          out.push(problemOf(e, ['preservation adapter']));
        }
      }
      return out;
    },
  },
  {
    id: 'sandbox',
    proves: 'bwrap is usable (checked like `governed sandbox profile`) and it, the static profile (and the check profile where the policy allowlists preservation adapters) and the seccomp blob have the digests the policy pins',
    run: async ({ sandbox, policy }) => {
      const s = await sandbox();
      if (isProblem(s)) return [s];
      const p = policy();
      if (isProblem(p)) return [];
      const out: DoctorProblem[] = [];
      if (!p.doc.sandbox.bwrap_sha256.includes(s.bwrapSha256)) out.push(problem('setup_digest_changed', 'sandbox.bwrap_sha256'));
      if (!p.doc.sandbox.profile_sha256.includes(s.profileSha256)) out.push(problem('setup_digest_changed', 'sandbox.profile_sha256'));
      // Probes run in the check profile: a policy with preservation adapters must allow it.
      else if (p.doc.preservation_adapters !== undefined && !p.doc.sandbox.profile_sha256.includes(s.checkProfileSha256)) out.push(problem('setup_digest_changed', 'sandbox.profile_sha256'));
      if (!p.doc.sandbox.seccomp_sha256.includes(s.seccompSha256)) out.push(problem('setup_digest_changed', 'sandbox.seccomp_sha256'));
      return out;
    },
  },
  {
    id: 'user_namespaces',
    proves: 'bwrap can create the user, PID, network and mount namespaces the reviewer sandbox runs in',
    run: async ({ sandbox, locations }) => {
      if (isProblem(await sandbox())) return []; // named by `sandbox`
      const r = spawnSync(
        locations.bwrapPath,
        ['--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--proc', '/proc', '--', '/usr/bin/true'],
        { stdio: 'ignore', env: {}, timeout: 10_000 },
      );
      return r.status === 0 ? [] : [problem('setup_userns_unusable', 'user_namespaces')];
    },
  },
  {
    id: 'store',
    proves: 'the state directory is initialised and pins exactly the policy and trust root of the setup directory',
    run: ({ home, policy, trust }) => {
      const p = policy();
      const t = trust();
      let pins: { policy: string; trust: string };
      try {
        const store = openStoreReadOnly(home);
        try {
          pins = { policy: readPin(store, 'policy').digest, trust: readPin(store, 'trust').digest };
        } finally {
          closeStore(store);
        }
      } catch (e) {
        return [problemOf(e)];
      }
      const out: DoctorProblem[] = [];
      if (!isProblem(p) && pins.policy !== p.digest) out.push(problem('setup_store_pins_other', 'policy'));
      if (!isProblem(t) && pins.trust !== t.digest) out.push(problem('setup_store_pins_other', 'trust'));
      return out;
    },
  },
  {
    id: 'runnerd_layout',
    mode: 'separated',
    proves:
      'separated mode (docs/runnerd.md#layout): the daemon, attestor and writers accounts exist, and every directory, key, attestor file ' +
      'and the socket (when the daemon runs) has its owner, group, type and mode — the same rules `governed runnerd doctor` and the daemon apply',
    run: ({ runnerd }) => {
      if (runnerd === null) return [];
      const r = runnerdLayoutFindings(runnerd);
      if (r.missingUsers.length > 0) return [problem('runnerd_user_missing', ...r.missingUsers)];
      return r.findings.map((f) => problem('runnerd_state_unsafe', `${f.path}:${f.problem}`));
    },
  },
];

function statOf(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Read and validate one pinned document of DIR; every failure a problem (its name, never its content). */
export function readDocument<T>(layout: SetupLayout, path: string, what: 'policy' | 'trust', load: (v: unknown) => T): T | DoctorProblem {
  const name = layoutName(layout, path);
  if (!existsSync(path)) return problem('setup_file_missing', name);
  try {
    return load(parsePinDocument(readInputFile(path, MAX_PIN_FILE_BYTES), what).value);
  } catch (e) {
    if (isGovernedError(e)) return problem(e.code, name);
    throw e;
  }
}
