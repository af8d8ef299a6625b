// `governed authority request` (docs/commands.md#what-each-command-guarantees, docs/authority.md#human-authority-records): on the pipeline machine, issue a one-time nonce
// (logged) and write the presentation — the exact canonical statement to sign plus its rendering —
// for the human who holds the authority key.
import { fail } from '../../core/errors.js';
import { parseDurationSeconds } from '../../core/duration.js';
import { parseContractText } from '../../core/contract/text.js';
import {
  authorityScopeDigest,
  DEFAULT_TTL_SECONDS,
  isAuthorityOperation,
  OPERATION_RULES,
  pinKindOf,
  PRESENTATION_KIND,
  renderAuthorityStatement,
  type Presentation,
} from '../../core/authority/index.js';
import { closeStore, openStore, requestAuthority, type IssuedAuthorityRequest } from '../../store/index.js';
import { readInputFile } from '../read-input.js';
import { CONTRACT_FILE_MAX_BYTES, PIN_DOCUMENT_MAX_BYTES } from '../../core/limits.js';
import { assertOutputFree, writeNewFile } from './output-file.js';
import { validatePinDocument } from './pin-document.js';
import { utf8OrNull } from '../../core/utf8.js';

export interface AuthorityRequestOptions {
  readonly home: string;
  readonly operation: string;
  /** Comma-separated IDs (none for policy/trust updates). */
  readonly ids?: string;
  readonly unit?: string;
  readonly stateBefore?: string;
  readonly stateAfter?: string;
  /** For policy_update / trust_update: the new document; its digest becomes state_after. */
  readonly document?: string;
  /** For scope operations: the contract to be bound; authorityScopeDigest(contract) becomes state_after. */
  readonly contract?: string;
  readonly ttl?: string;
  readonly out: string;
  readonly now: number;
}

export interface AuthorityRequestResult extends IssuedAuthorityRequest {
  readonly presentation: Presentation;
}

function parseIds(text: string | undefined): string[] {
  if (text === undefined || text === '') return [];
  const ids = text.split(',');
  if (ids.some((id) => id.length === 0)) fail('authority_request_invalid', ['ids']);
  return ids;
}

function stateAfterOf(opts: AuthorityRequestOptions): string | null {
  const given = opts.stateAfter ?? null;
  let derived: string | null = null;
  if (opts.document !== undefined && opts.contract !== undefined) fail('authority_request_invalid', ['document']);
  if (opts.document !== undefined) {
    const kind = isAuthorityOperation(opts.operation) ? pinKindOf(opts.operation) : null;
    if (kind === null) fail('authority_request_invalid', ['document']);
    derived = validatePinDocument(kind, readInputFile(opts.document, PIN_DOCUMENT_MAX_BYTES), opts.now);
  }
  if (opts.contract !== undefined) {
    if (!isAuthorityOperation(opts.operation) || OPERATION_RULES[opts.operation].class !== 'scope') {
      fail('authority_request_invalid', ['contract']);
    }
    const bytes = readInputFile(opts.contract, CONTRACT_FILE_MAX_BYTES);
    const text = utf8OrNull(bytes);
    if (text === null) fail('input_unreadable', ['contract']);
    derived = authorityScopeDigest(parseContractText(text, opts.contract));
  }
  if (derived !== null && given !== null && derived !== given) fail('authority_request_invalid', ['state_after']);
  return derived ?? given;
}

export function authorityRequestFlow(opts: AuthorityRequestOptions): AuthorityRequestResult {
  assertOutputFree(opts.out);
  const ttlSeconds = opts.ttl === undefined ? DEFAULT_TTL_SECONDS : ttlOf(opts.ttl);
  const stateAfter = stateAfterOf(opts);
  const store = openStore(opts.home);
  let issued: IssuedAuthorityRequest;
  try {
    issued = requestAuthority(store, {
      operation: opts.operation,
      ids: parseIds(opts.ids),
      unit: opts.unit ?? null,
      stateBefore: opts.stateBefore ?? null,
      stateAfter,
      ttlSeconds,
      now: opts.now,
    });
  } finally {
    closeStore(store);
  }
  const presentation: Presentation = {
    kind: PRESENTATION_KIND,
    version: 1,
    request_id: issued.requestId,
    record_id: issued.recordId,
    payloadType: 'application/vnd.in-toto+json',
    payload: issued.payload.toString('base64'),
    rendering: renderAuthorityStatement(issued.statement, issued.recordId, issued.payloadDigest),
  };
  // Written after the request committed: a failed write leaves an unused request that expires.
  writeNewFile(opts.out, Buffer.from(`${JSON.stringify(presentation, null, 2)}\n`, 'utf8'));
  return { ...issued, presentation };
}

function ttlOf(text: string): number {
  try {
    return parseDurationSeconds(text, 'ttl');
  } catch {
    fail('authority_request_invalid', ['ttl']);
  }
}
