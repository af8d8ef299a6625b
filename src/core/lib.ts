// The library entry of the package (`import … from 'governed'`; package.json "exports"): the pure
// verifiers of governed's signed records, for another Node program to check them without the CLI.
// Pure: the caller reads the bytes, parses its trust root with `loadTrustRoot`, and passes the time
// (`at`, ISO seconds, UTC). Every refusal throws a GovernedError with a stable `code` and `exit`
// (docs/errors.md). What each proves: docs/formats.md, docs/gate.md#3-the-signed-decision---attest-file, docs/authority.md.
export { loadTrustRoot, isoSecondsOf, type TrustRoot } from './trust-root.js';
export { verifyReceiptBytes, type VerifiedReceipt } from './verify-receipt.js';
export { verifyVsaBytes, verifyCheckpointBytes, type VerifiedVsa, type VerifiedCheckpoint } from './verify-decision.js';
export { verifyAuthorityRecordBytes } from './authority/verify.js';
export { GovernedError, isGovernedError, ERROR_CODES, type ErrorCode } from './errors.js';
export { VSA_EXTENSION_KEY, VSA_PREDICATE_TYPE } from './vsa.js';
