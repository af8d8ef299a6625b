// The writer-side client of human authority in separated mode (docs/runnerd.md "Human authority
// through the daemon"): `authority request | record`, `unit dismiss | dismiss-veto`, `policy update`
// and `trust update` with --runner. Each sends its options and the bytes of the files it names (the
// new policy or trust root, the contract, the signed record: the writer's own files, read here) and
// prints the daemon's answer as co-located mode prints its own. `authority sign` has no --runner:
// it runs where the authority key lives, never on the daemon.
import type { AuthorityRequestOutput } from '../../core/command-output-records.js';
import { AUTHORITY_RECORD_MAX_BYTES, CONTRACT_FILE_MAX_BYTES, PIN_DOCUMENT_MAX_BYTES } from '../../core/limits.js';
import type { DismissalOperation } from '../../core/authority/dismissal.js';
import { fail } from '../../core/errors.js';
import { assertOutputFree, writeNewFile } from '../../flows/authority/output-file.js';
import { readInputFile } from '../../flows/read-input.js';
import type { AuthorityRequestCliOptions } from '../commands/authority-request.js';
import type { CommandResult } from '../output.js';
import { refuseLocalOnly, remoteResult } from './client.js';

const b64Of = (path: string | undefined, max: number): string | undefined => (path === undefined ? undefined : readInputFile(path, max).toString('base64'));
/** A file sent as content must not be empty (the protocol's base64 has at least one group). */
const nonEmpty = (b64: string | undefined, what: string): string | undefined => (b64 === '' ? fail('input_unreadable', [what]) : b64);

export async function remoteAuthorityRequest(socket: string, o: AuthorityRequestCliOptions & { json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly({ home: o.home }, ['home']);
  // As co-located mode: an --out that exists is refused before anything is issued.
  assertOutputFree(o.out);
  const document = nonEmpty(b64Of(o.document, PIN_DOCUMENT_MAX_BYTES), 'document');
  const contract = nonEmpty(b64Of(o.contract, CONTRACT_FILE_MAX_BYTES), 'contract');
  const r = await remoteResult(
    socket,
    {
      v: 1,
      op: 'authority-request',
      operation: o.operation,
      ...(o.unit === undefined ? {} : { unit: o.unit }),
      ...(o.ids === undefined ? {} : { ids: o.ids }),
      ...(o.stateBefore === undefined ? {} : { state_before: o.stateBefore }),
      ...(o.stateAfter === undefined ? {} : { state_after: o.stateAfter }),
      ...(o.ttl === undefined ? {} : { ttl: o.ttl }),
      ...(document === undefined ? {} : { document_b64: document }),
      ...(contract === undefined ? {} : { contract_b64: contract }),
    },
    o,
  );
  const presentation = r.presentation ?? fail('runnerd_answer_invalid');
  // Written after the daemon committed the request, as co-located mode does: a failed write leaves
  // an unused request that expires.
  writeNewFile(o.out, presentation);
  const json = { ...(r.json as AuthorityRequestOutput), out: o.out };
  const { authorityRequestHuman } = await import('../commands/authority-request.js');
  return { exit: r.exit, json, human: authorityRequestHuman(json) };
}

export async function remoteAuthorityRecord(socket: string, o: { record: string; home?: string; json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  const record = nonEmpty(b64Of(o.record, AUTHORITY_RECORD_MAX_BYTES), 'record') as string;
  const r = await remoteResult(socket, { v: 1, op: 'authority-record', record_b64: record }, o);
  return { exit: r.exit, json: r.json, human: r.human };
}

export async function remoteUnitDismiss(
  socket: string,
  operation: DismissalOperation,
  o: { unit: string; authority?: string; ids?: string; dryRun?: boolean; home?: string; json?: boolean },
): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  const r = await remoteResult(
    socket,
    {
      v: 1,
      op: 'unit-dismiss',
      operation,
      unit: o.unit,
      ...(o.authority === undefined ? {} : { authority: o.authority }),
      ...(o.ids === undefined ? {} : { ids: o.ids }),
      dry_run: o.dryRun === true,
    },
    o,
  );
  return { exit: r.exit, json: r.json, human: r.human };
}

export async function remotePinUpdate(socket: string, kind: 'policy' | 'trust', o: { file: string; authority: string; home?: string; json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  const document = nonEmpty(b64Of(o.file, PIN_DOCUMENT_MAX_BYTES), kind) as string;
  const r = await remoteResult(socket, { v: 1, op: 'pin-update', kind, document_b64: document, authority: o.authority }, o);
  return { exit: r.exit, json: r.json, human: r.human };
}
