// `governed contract init --source PATH...` (docs/contract-init.md): read each request file of the
// repository and write the contract skeleton of src/core/contract/skeleton.ts. Writes only --out
// (exclusive create, never overwritten); without --out the skeleton goes to stdout.
import { resolve } from 'node:path';
import { fail, isGovernedError } from '../core/errors.js';
import { isNormalizedRelativePath } from '../core/contract/paths.js';
import { assertUtf8 } from '../core/contract/spans.js';
import { contractSkeleton, findPlaceholders, skeletonYaml, type AtomMode } from '../core/contract/skeleton.js';
import { CONTRACT_FILE_MAX_BYTES as MAX_CONTRACT_BYTES } from '../core/limits.js';
import { readInputFile } from './read-input.js';
import { writeOnce } from './write-once.js';

export interface ContractInitArgs {
  readonly repo: string;
  readonly sources: readonly string[];
  readonly mode: AtomMode;
  readonly title?: string | undefined;
  readonly out?: string | undefined;
}

export interface ContractInitResult {
  readonly yaml: string;
  readonly out: string | null;
  readonly sources: number;
  readonly atoms: number;
  readonly directives: number;
  /** Field paths of every placeholder left to fill. */
  readonly placeholders: readonly string[];
}

export function contractInitFlow(a: ContractInitArgs): ContractInitResult {
  const read = a.sources.map((path, i) => {
    if (!isNormalizedRelativePath(path)) fail('contract_init_source_invalid', [`--source[${i}]`]);
    let bytes: Buffer;
    try {
      bytes = readInputFile(resolve(a.repo, path), MAX_CONTRACT_BYTES);
    } catch (e) {
      if (isGovernedError(e)) fail('contract_init_source_invalid', [`--source[${i}]`]);
      throw e;
    }
    assertUtf8(`SRC-${i + 1}`, bytes);
    return { path, text: bytes.toString('utf8') };
  });
  const contract = contractSkeleton(read, a.mode, a.title);
  const yaml = skeletonYaml(contract, a.mode);
  if (a.out !== undefined) writeOnce(resolve(a.out), yaml, { exists: 'contract_init_output_exists', unwritable: 'contract_init_output_unwritable' });
  const sources = contract.sources as { atoms: unknown[] }[];
  return {
    yaml,
    out: a.out === undefined ? null : resolve(a.out),
    sources: sources.length,
    atoms: sources.reduce((n, s) => n + s.atoms.length, 0),
    directives: (contract.directives as unknown[]).length,
    placeholders: findPlaceholders(contract),
  };
}
