// Public API of the store (docs/state.md#the-store). Flows import from here.
export type { Store, Db } from './store.js';
export { openStore, openStoreReadOnly, closeStore, openDatabase, DB_FILE, BUNDLES_DIR, BUSY_TIMEOUT_MS } from './open.js';
export { initStore, pinInit, pinDigestOf, readPin, type Pin, type PinKind } from './pins.js';
export { MIGRATIONS, SCHEMA_VERSION, applyMigrations } from './migrations.js';
export {
  mutate,
  verifyChain,
  readLog,
  decodePayload,
  logHead,
  entryHashOf,
  GENESIS_HASH,
  type Tx,
  type LogRow,
  type LogHead,
  type ChainReport,
} from './log.js';
export { REDUCERS, type EntryType, type PayloadOf } from './reducers.js';
export { replayInto, assertReplayMatches, type ReplayResult } from './replay.js';
export { stateDigest, tablesDigest } from './state-digest.js';
export { createUnit, createUnitIn, getUnit, type Unit } from './units.js';
export { registerWriter, registerWriterIn, getWriter, writersWithIdentity, type Writer } from './writers.js';
export {
  acquireLease,
  acquireLeaseIn,
  releaseLease,
  releaseLeaseIn,
  sweepExpired,
  sweepExpiredIn,
  listLeases,
  hasActiveLease,
  MAX_LEASE_TTL_SECONDS,
  type Lease,
  type LeaseState,
} from './leases.js';
export {
  readProcessIdentity,
  isProcessAlive,
  readBootId,
  namespaceOutsideHost,
  ancestry,
  type ProcessIdentity,
} from './process-identity.js';
export { newUnitId, newLeaseId, UNIT_ID_RE, LEASE_ID_RE } from './ids.js';
// Scope versions and review challenges (docs/state.md#commands).
export { bindScopeIn, getScopeVersion, listScopeVersions, type ScopeVersion, type ScopeDiffRecord, type BindScopeArgs } from './scope.js';
export {
  issueChallengeIn,
  sweepExpiredChallengesIn,
  countChallenges,
  findChallenge,
  listChallenges,
  challengeStateAt,
  newChallengeId,
  CHALLENGE_ID_RE,
  type Challenge,
  type ChallengeStatus,
  type IssueChallengeArgs,
} from './challenges.js';
export {
  requestAuthority,
  requestAuthorityIn,
  recordAuthority,
  consumeAuthorityIn,
  getAuthorityRecord,
  listAuthorityRecords,
  readAuthorityEnvelope,
  isAuthorityConsumedFor,
  replacePinIn,
  pinUpdates,
  lastPinUpdateSeq,
  pinInForceAt,
  trustRootInForce,
  trustRootAt,
  type AuthorityRequestArgs,
  type IssuedAuthorityRequest,
  type AuthorityRecordInfo,
  type ConsumeAuthorityArgs,
  type ConsumedAuthority,
  type PinUpdate,
  type ReplacePinArgs,
  type AuthorityOperation,
  type AuthorityUse,
} from './authority.js';
export {
  claimRun,
  claimRunIn,
  abortRun,
  abortRunIn,
  reapStaleClaimsIn,
  commitReceiptIn,
  countRunsForContent,
  getRun,
  getRunByChallenge,
  listReceipts,
  listRuns,
  newRunId,
  newExecutionId,
  RUN_ID_RE,
  EXECUTION_ID_RE,
  type Run,
  type RunStatus,
  type ClaimArgs,
  type ReceiptRecord,
  type StoredReceipt,
} from './runs.js';
// Runs domain, review-run's reads (docs/runner.md; src/store/runs.ts).
export { activeLeaseAt, unitWriters, claimedRunners, challengeIssueEntry, challengeRunState, getReceipt, type RunWriter } from './runs.js';
