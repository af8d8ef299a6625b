// Every size and count limit of governed in one table (docs/architecture.md "Limits"): what each
// bounds and why. A limit that two places must agree on is one constant here, so they cannot drift
// (e.g. a policy that `policy update` accepted and `gate` then refused). Pure values, no imports:
// the CLI, the runner and the pinned programs all read this file. Each value is a plain
// numeric literal (esbuild keeps any arithmetic, even `4 * 1024`, as a possible side effect) so it can drop the unused ones from a pinned bundle,
// whose sha256 then changes only with the limits it uses.

// --- Documents a caller names on the command line ---------------------------------------------

/** A policy or trust-root file, read by init, policy/trust update, authority request, review-challenge
 * and gate alike (one limit, so a document accepted by one is never refused by another). */
export const PIN_DOCUMENT_MAX_BYTES = 1_048_576; // 1 MiB
/** A request contract file (unit create, scope bind, authority request --contract): a human document. */
export const CONTRACT_FILE_MAX_BYTES = 4_194_304; // 4 MiB
/** A preservation contract file (preservation set, verify --contract). */
export const PRESERVATION_CONTRACT_MAX_BYTES = 4_194_304; // 4 MiB
/** Any other caller-named input file without a limit of its own: bounds hostile input. */
export const INPUT_FILE_MAX_BYTES = 16_777_216; // 16 MiB
/** A receipt envelope handed to `verify`: a few KiB in practice. */
export const RECEIPT_FILE_MAX_BYTES = 1_048_576; // 1 MiB
/** An authority record envelope: a small JSON file, refused before parsing beyond this. */
export const AUTHORITY_RECORD_MAX_BYTES = 1_048_576; // 1 MiB
/** An authority presentation (`authority sign`): the payload (≤ 2 MiB base64) and its rendering. */
export const AUTHORITY_PRESENTATION_MAX_BYTES = 4_194_304; // 4 MiB
/** The payload of a presentation, base64 characters. */
export const AUTHORITY_PAYLOAD_MAX_CHARS = 2_097_152; // 2 MiB
/** The human rendering of a presentation, characters. */
export const AUTHORITY_RENDERING_MAX_CHARS = 1_048_576; // 1 MiB
/** An Ed25519 PKCS#8 PEM private-key file: ~120 bytes; anything far larger is not one. */
export const PRIVATE_KEY_FILE_MAX_BYTES = 4_096; // 4 KiB
/** One typed confirmation answer read from the terminal. */
export const TERMINAL_ANSWER_MAX_BYTES = 256;
/** A signed checkpoint file handed to `audit verify --checkpoint`. */
export const CHECKPOINT_FILE_MAX_BYTES = 1_048_576; // 1 MiB
/** The carry file of an auditor's state directory (`audit verify --state`): the ids of every
 * challenge issued, claimed and answered so far (~150 bytes a receipt: ~15 MiB at 100,000). */
export const AUDIT_STATE_CARRY_MAX_BYTES = 1_073_741_824; // 1 GiB
/** A VSA envelope the gate just wrote, re-read for the deploy record: anything larger is not it. */
export const VSA_FILE_MAX_BYTES = 4_194_304; // 4 MiB
/** review-pass's config file (review-pass.yaml). */
export const REVIEW_PASS_CONFIG_MAX_BYTES = 1_048_576; // 1 MiB
/** A preservation incident correction file (`preservation correct`). */
export const PRESERVATION_CORRECTION_MAX_BYTES = 1_048_576; // 1 MiB
/** A preservation probe adapter program (read whole: it runs only if its sha256 is allowlisted). */
export const PROBE_ADAPTER_MAX_BYTES = 8_388_608; // 8 MiB
/** A C2SP signed note (a checkpoint, an auditor's state note): a few hundred bytes, a line per
 * witness; the parser, the stored checkpoints and every caller-named note file share it. */
export const SIGNED_NOTE_MAX_BYTES = 65_536; // 64 KiB
/** Signature lines read from one signed note (the log's plus witnesses'). */
export const SIGNED_NOTE_MAX_SIGNATURES = 64;

// --- Durations --------------------------------------------------------------------------------

/** A mutation lease's default time to live (`lease acquire --ttl`): long enough for one editing
 * session, short enough that a crashed writer's lease lapses. */
export const LEASE_DEFAULT_TTL = '30m';
/** The longest lease (7 days), on the live path and on replay. */
export const LEASE_MAX_TTL_SECONDS = 604_800; // 7 days
/** The longest an authority request may stay open (7 days): long enough for a human elsewhere,
 * short enough to go stale. */
export const AUTHORITY_MAX_TTL_SECONDS = 604_800; // 7 days

// --- Parsing --------------------------------------------------------------------------------

/** Nesting depth of strict JSON: deep enough for every governed document, shallow enough that a
 * hostile document cannot exhaust the stack. */
export const JSON_MAX_DEPTH = 64;
/** A text field (statement, title) of a request or preservation contract, characters. */
export const CONTRACT_MAX_TEXT = 65_536;
/** A repository-relative path, characters (PATH_MAX): in a request or preservation contract, a
 * bundle, a reviewer's finding or read list, a review protocol's answer, the store's scope. */
export const REPO_PATH_MAX_CHARS = 4_096;
/** Sources one request contract lists (the contract and the store's scope entry agree on it). */
export const CONTRACT_MAX_SOURCES = 256;
/** A relation id `FROM>TO` a contract entry disposes of, characters: two ids and the `>`. */
export const CONTRACT_RELATION_ID_MAX_CHARS = 130;
/** An identifier or digest field, characters, before its own grammar judges it (an authority
 * record, a state digest, an execution or group id, a surface named on the socket). */
export const ID_FIELD_MAX_CHARS = 128;
/** Paths one preservation surface lists. */
export const PRESERVATION_SURFACE_MAX_PATHS = 1_024;
/** Vendor sources one preservation contract lists. */
export const PRESERVATION_MAX_VENDORS = 1_024;
/** A vendor source's repository identity (e.g. its canonical URL), characters: the contract, the
 * bundle and the store's vendor attestation agree on it. */
export const VENDOR_REPOSITORY_MAX_CHARS = 1_024;
/** A probe entry of a preservation surface (`bin:NAME`, `export:SUBPATH`), characters. */
export const PROBE_ENTRY_MAX_CHARS = 256;
/** Entries of any one contract list (sources, atoms, directives, paths …); also the preservation
 * contract's surfaces and the atoms `contract init` may cut one source into. */
export const CONTRACT_MAX_LIST = 4_096;
/** Placeholder paths one `contract_fill_in_left` refusal names (the first ones, in document order). */
export const CONTRACT_PLACEHOLDER_IDS_REPORTED = 16;
/** Surfaces one probe inventory or probe result may list. */
export const PROBE_MAX_INVENTORY = 4_096;
/** Capabilities one probed surface may list. */
export const PROBE_MAX_CAPABILITIES = 1_024;

// --- Review output, receipts, attestations -----------------------------------------------------

/** Findings in one reviewer output (governed.review-output/v1), shared with the coverage reviewer. */
export const REVIEW_MAX_FINDINGS = 32;
/** Contract references of one finding. */
export const REVIEW_MAX_REFS = 4;
/** Writers one receipt predicate names. */
export const RECEIPT_MAX_WRITERS = 64;
/** Ids one authority record covers. */
export const AUTHORITY_MAX_COVERED_IDS = 4096;
/** What one VSA may carry (the zod and the lean checks share it): enough for every slot_blocked and
 * veto_standing reason a real decision gives (70 blocks, a 32×4-ref veto). */
export const VSA_BOUNDS = { maxReasons: 4096, maxIdsPerReason: 4096, maxInputAttestations: 4096 } as const;
/** The whole VSA statement, bytes: under the attestor protocol's 4 MiB frame with room for the
 * envelope around it. */
export const VSA_MAX_PAYLOAD_BYTES = 3_141_632; // 3 MiB − 4 KiB

// --- Fields of signed and exchanged formats ---------------------------------------------------

/** The reason a policy waives preservation, characters: the policy and the signed decision (VSA)
 * carry the same text, so they share the bound. */
export const PRESERVATION_WAIVER_MAX_CHARS = 500;
/** A relative path the policy names (a product root, an exclude, an adapter's dependency root), characters. */
export const POLICY_PATH_MAX_CHARS = 1_024;
/** Excludes one policy lists. */
export const POLICY_MAX_EXCLUDES = 256;
/** A trust root key's public key text, characters. */
export const TRUST_PUBLIC_KEY_MAX_CHARS = 1_024;
/** A trust root key's revocation reason, characters. */
export const TRUST_REASON_MAX_CHARS = 200;
/** Keys one trust root lists. */
export const TRUST_MAX_KEYS = 256;
/** A DSSE payloadType an attestor is asked to sign, characters. */
export const DSSE_PAYLOAD_TYPE_MAX_CHARS = 200;
/** An in-toto subject's name, characters. */
export const INTOTO_SUBJECT_NAME_MAX_CHARS = 256;
/** Hashes one transparency-log inclusion or consistency proof may carry (a proof in a tree of
 * 2^64 leaves needs at most 128). */
export const TLOG_PROOF_MAX_HASHES = 128;
/** An id field of an audit state note, characters. */
export const AUDIT_STATE_ID_MAX_CHARS = 256;
/** A list of ids in one daemon request (comma-separated, as the command line takes them), characters. */
export const RUNNERD_IDS_MAX_CHARS = 262_144;
/** A coded error's message in a daemon answer, characters. */
export const CODED_ERROR_MESSAGE_MAX_CHARS = 2_000;
/** One id a coded error names (the daemon's and the sandbox host's answers), characters. */
export const CODED_ERROR_ID_MAX_CHARS = 300;
/** An absolute path of a program the runner starts (bwrap, an interpreter), characters (PATH_MAX). */
export const PROGRAM_PATH_MAX_CHARS = 4_096;
/** bwrap's `--version` answer, bytes read at most (more and the child is killed). */
export const BWRAP_VERSION_MAX_BYTES = 4_096;
/** bwrap's version as the sandbox host reports it, characters. */
export const BWRAP_VERSION_MAX_CHARS = 200;

// --- The kernel's own bounds (Linux, 64-bit): not governed's choices, spelled once -------------------

/** The largest pid the kernel can hand out (PID_MAX_LIMIT). */
export const KERNEL_PID_MAX = 4_194_304;
/** The largest valid uid or gid ((uid_t)-1 means "none"). */
export const KERNEL_UID_MAX = 4_294_967_294;
/** A uid or gid field as stat reports it, (uid_t)-1 included. */
export const KERNEL_ID_FIELD_MAX = 4_294_967_295;

// --- The runner and its sandbox ------------------------------------------------------------------

/** A reviewer program (pinned by sha256; read whole to hash it). */
export const REVIEWER_MAX_BYTES = 67_108_864; // 64 MiB
/** The bwrap binary, read whole to hash it. */
export const BWRAP_MAX_BYTES = 67_108_864; // 64 MiB
/** A bundle handed to the sandboxed reviewer: the sandbox's own ceiling (the policy's max_bundle
 * is lower). */
export const SANDBOX_BUNDLE_MAX_BYTES = 1_073_741_824; // 1 GiB
/** bwrap's --json-status-fd output: a few small JSON lines. */
export const SANDBOX_STATUS_MAX_BYTES = 65_536; // 64 KiB
/** /dev/shm in both sandboxes (review-run's static profile and review-pass's repository sandbox):
 * nothing a reviewer needs lives there. Part of the profile, so its digest covers it. */
export const SANDBOX_DEV_SHM_BYTES = 16_777_216; // 16 MiB
/** /tmp of review-pass's repository sandbox: bounded scratch space. */
export const REPO_SANDBOX_TMP_BYTES = 268_435_456; // 256 MiB
/** One reviewer environment value, bytes. */
export const REVIEWER_ENV_VALUE_MAX = 4096;
/** Policy variables per reviewer: the sandbox's own bound, so a policy that loads never fails at
 * every run instead. */
export const REVIEWER_ENV_MAX_VARS = 64;

/** An attestor program (pinned by sha256; read whole to hash it). */
export const ATTESTOR_PROGRAM_MAX_BYTES = 8_388_608; // 8 MiB
/** An attestor's config file (pinned by sha256). */
export const ATTESTOR_CONFIG_MAX_BYTES = 65_536; // 64 KiB
/** One request to an attestor (its stdin, or one line to a warm attestor): a VSA payload in base64
 * with room for the frame. */
export const ATTESTOR_REQUEST_MAX_BYTES = 16_777_216; // 16 MiB
/** An attestor's answer (one-shot stdout, or one reply line of a warm attestor): a signature frame. */
export const ATTESTOR_REPLY_MAX_BYTES = 4_096; // 4 KiB
/** A witness's state file (`audit cosign --state`, docs/audit.md#witnesses). */
export const WITNESS_STATE_MAX_BYTES = 65_536; // 64 KiB
/** One request to the tlog-checkpoint attestor (a checkpoint body, base64, in JSON). */
export const TLOG_ATTESTOR_REQUEST_MAX_BYTES = 65_536; // 64 KiB
/** The egress broker program (pinned by sha256; read whole to hash it). */
export const EGRESS_BROKER_MAX_BYTES = 8_388_608; // 8 MiB
/** A model API credential file. */
export const EGRESS_CREDENTIAL_MAX_BYTES = 16_384; // 16 KiB
/** One line the broker writes to its host (ready, outcome records). */
export const EGRESS_BROKER_LINE_MAX_BYTES = 65_536; // 64 KiB
/** Connections the in-sandbox relay accepts at once (the broker's own `connections` cap is the one
 * that is enforced and recorded). */
export const EGRESS_RELAY_MAX_CONNECTIONS = 64;
/** A model's answer the model reviewer reads from the broker. */
export const MODEL_ANSWER_MAX_BYTES = 4_194_304; // 4 MiB
/** The answer length the model reviewer asks a model for, tokens. */
export const MODEL_MAX_TOKENS = 4_096;
/** An import specifier the coverage reviewer resolves, characters. */
export const COVERAGE_SPECIFIER_MAX = 4_096;
/** How far a process's ancestry is walked (a pid chain is far shorter; the bound makes it finite). */
export const PROCESS_ANCESTRY_MAX = 4_096;

// --- Separated mode: the daemon's socket -----------------------------------------------------------

/** The largest request line (bytes, newline excluded): a bundle of a 16 MiB repository, base64. */
export const RUNNERD_MAX_REQUEST_BYTES = 25_165_824; // 24 MiB
/** The largest response line a client reads (receipt envelopes, status objects). */
export const RUNNERD_MAX_RESPONSE_BYTES = 8_388_608; // 8 MiB
/** Connections open at once; more are closed at accept (each idle one times out anyway). */
export const RUNNERD_MAX_CONNECTIONS = 2_048;

// --- git and the workspace ---------------------------------------------------------------------

/** A revision argument (a commit id or ref name) passed to git. */
export const GIT_REV_MAX = 256;
/** A `git cat-file --batch` object header line. */
export const GIT_HEADER_MAX = 256;
/** The output of one git command (runGit), and so the `ls-tree -r` records and commit/tree objects
 * a cat-file session reads. */
export const GIT_OUTPUT_MAX_BYTES = 536_870_912; // 512 MiB
/** Blob bytes read from a commit by a caller without a budget of its own: no bundle can carry more
 * (one JSON string, V8 strings stop at 2^29 characters, base64 turns 3 bytes into 4). */
export const COMMIT_READ_MAX_BYTES = 402_653_184; // 384 MiB

// --- review-pass --------------------------------------------------------------------------------

/** One repository file review-pass reads into a prompt. */
export const REVIEW_PASS_FILE_MAX_BYTES = 4_194_304; // 4 MiB
/** Files of the default scope listed in a prompt (a prompt is not the place for a whole monorepo). */
export const REVIEW_PASS_SCOPE_MAX_FILES = 5000;
/** Text read for one review-pass round: reviewer-named files must not exhaust memory. */
export const REVIEW_PASS_ROUND_MAX_BYTES = 67_108_864; // 64 MiB
/** Reviewer text the engine accepts per run, characters (adjudicate-round.ts RunOutputSchema). */
export const REVIEW_PASS_RUN_MAX_TEXT = 1_048_576; // 1 MiB
/** Reviewer JSON output parsed per run, characters. */
export const REVIEW_PASS_REVIEWER_JSON_MAX = 4_194_304; // 4 MiB
/** Findings of one review-pass tool report (the JSON reviewer output schema's bound); the most
 * severe are kept. */
export const REVIEW_PASS_MAX_FINDINGS = 1000;
/** One tool finding's message, characters. */
export const REVIEW_PASS_FINDING_MAX_TEXT = 2000;
/** Findings of one reviewer answer in a review protocol (simple, two-pass, weave): keeps one
 * reviewer from flooding the report. */
export const REVIEW_PROTOCOL_MAX_FINDINGS = 500;
/** One text field of a review protocol's answers (simple, two-pass, weave), characters. */
export const REVIEW_PROTOCOL_MAX_TEXT = 20_000;
/** Paths one review protocol answer lists (reviewed, unreadable, scope). */
export const REVIEW_PROTOCOL_MAX_PATHS = 10_000;
/** Other items one review protocol answer or stage profile lists (steps, verdicts, pairs, checks,
 * requirement ids). */
export const REVIEW_PROTOCOL_MAX_ITEMS = 1_000;
/** Checks of one two-pass reviewer output. */
export const TWO_PASS_MAX_CHECKS = 2000;
/** Issues one weave synthesis lists. */
export const WEAVE_MAX_ISSUES = 2_000;
/** A review-pass finding's symbol, characters. */
export const REVIEW_PASS_SYMBOL_MAX_CHARS = 512;
/** A review-pass finding's description, characters. */
export const REVIEW_PASS_DESCRIPTION_MAX_CHARS = 8_192;
/** One argument of a review-pass tool's command, characters. */
export const REVIEW_PASS_ARG_MAX_CHARS = 4_096;
/** Resolutions one review-pass state carries. */
export const REVIEW_STATE_MAX_RESOLUTIONS = 10_000;
/** Probes a review-pass state counts. */
export const REVIEW_STATE_MAX_PROBES = 1_000_000;

// --- egress broker (docs/egress.md) ---------------------------------------------------------------
/** Requests one model reviewer may make per run (policy `egress.caps.requests` ≤ this); also the
 * bound of the transcript records a receipt carries. */
export const EGRESS_MAX_REQUESTS = 64;
/** Concurrent connections to the broker (policy `egress.caps.connections` ≤ this). */
export const EGRESS_MAX_CONNECTIONS = 16;
/** Routes of one egress entry. */
export const EGRESS_MAX_ROUTES = 4;

// --- Sealed snapshots and check reviewers (docs/sandbox.md#sealed-snapshots, docs/reviewers.md#check-reviewers)

/** One file of a sealed snapshot or dependency root, held in memory while it is hashed and copied. */
export const SEALED_FILE_MAX_BYTES = 536_870_912; // 512 MiB
/** What a check command may print on stdout before its run is unparsable (never kept, only parsed). */
export const CHECK_COMMAND_MAX_STDOUT = 67_108_864; // 64 MiB
/** The check command's share of the sandbox timeout, in thousandths: the adapter reports a timeout before the sandbox is killed. */
export const CHECK_BUDGET_PER_MILLE = 900;
/** Arguments of one check command (the policy's `check.command`). */
export const CHECK_COMMAND_MAX_ARGS = 64;
/** One argument of a check command, characters (the policy's `check.command` and the bundle's
 * `check.command`, docs/reviewers.md#check-reviewers). */
export const CHECK_COMMAND_ARG_MAX_CHARS = 4_096;
/** A check reviewer's dependency root, characters: one relative path under /snapshot (the policy's
 * `check.dependency_root`, the bundle's `check.dependency_root.path`, the sandbox's bind). */
export const CHECK_DEPENDENCY_ROOT_MAX_CHARS = 256;

// --- Separated mode (docs/runnerd.md) -------------------------------------------------------------

/** The store copy `gate --runner` receives (the serialized database, uncompressed): the daemon refuses a larger store, the client refuses to inflate past it. */
export const RUNNERD_STORE_COPY_MAX_BYTES = 268_435_456; // 256 MiB
/** The largest reply carrying a store copy (gzip, base64, in one JSON line). */
export const RUNNERD_STORE_COPY_MAX_RESPONSE_BYTES = 402_653_184; // 384 MiB
/** Request bytes all connections together may hold before their newline (four largest requests): a connection whose data would pass it is refused at once with runnerd_busy. */
export const RUNNERD_MAX_BUFFERED_BYTES = 100_663_296; // 96 MiB
/** Connections one client uid may hold open at once; one more is refused with runnerd_busy. */
export const RUNNERD_MAX_CONNECTIONS_PER_UID = 32;
/** Growth factor of V8's young generation in the daemon and its sandbox host
 * (docs/performance.md#the-daemons-memory-over-many-runs): 1 stops the semi-spaces growing past the
 * size they have when it is set (V8's default, 2, doubles them up to 16 MiB each, and a daemon
 * serving back to back keeps that). */
export const RUNNERD_SEMI_SPACE_GROWTH_FACTOR = 1;
/** glibc malloc arenas of the daemon (under its unit) and of its sandbox host
 * (docs/performance.md#the-daemons-memory-over-many-runs): the main arena and one for every other
 * thread, instead of up to eight per core, each keeping its own free memory resident. */
export const RUNNERD_MALLOC_ARENA_MAX = 2;
/** glibc's mmap threshold for the daemon (under its unit) and its sandbox host, bytes
 * (docs/performance.md#the-daemons-memory-over-many-runs): glibc's default, fixed, so that a freed
 * large block no longer raises it (and the trim threshold with it) and blocks this large or larger
 * are given back when freed. */
export const RUNNERD_MALLOC_MMAP_THRESHOLD_BYTES = 131_072; // 128 KiB

// --- The audit's memory (docs/audit.md#cost-and-memory) -------------------------------------------

/** SQLite page cache of each connection `audit verify` opens (the store read, the replay, the
 * replay's temp schema holding the challenge ids), KiB: the pass reads and writes each page about
 * once, so a bigger cache only holds memory (better-sqlite3's default is 16,000 KiB a connection). */
export const AUDIT_SQLITE_CACHE_KIB = 2_048; // 2 MiB
/** Young generation of each receipt worker thread of `audit verify`, MiB: a worker keeps nothing
 * between batches, so a small young generation costs scavenges, not memory (V8's default grows to
 * tens of MiB per thread). */
export const AUDIT_WORKER_YOUNG_GEN_MB = 4;
