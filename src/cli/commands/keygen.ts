import { keygen } from '../../flows/keygen.js';
import type { CommandResult } from '../output.js';
import type { KeygenOutput } from '../../core/command-output-records.js';

export async function keygenCommand(opts: { credential: string; out: string }): Promise<CommandResult> {
  const r = keygen(opts.credential, opts.out);
  return {
    exit: 0,
    json: { ok: true, credential: r.credential, key_id: r.keyId, private_key: r.privateKeyPath, public_key: r.publicKeyPath } satisfies KeygenOutput,
    human: `key id ${r.keyId}\n  private ${r.privateKeyPath} (0600)\n  public  ${r.publicKeyPath}`,
  };
}
