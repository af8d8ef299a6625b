// Contract text → contract (docs/contract.md#the-request-contract), kept apart from ./schema.ts because the strict YAML parser
// loads the yaml package: the cold gate reads stored contracts through ./stored.ts without it.
import { parseStructured } from '../strict-parse.js';
import { parseContract, type Contract } from './schema.js';

/** Strict text → contract: duplicate keys, YAML aliases and non-canonical values refused first. */
export function parseContractText(textValue: string, fileName: string): Contract {
  return parseContract(parseStructured(textValue, fileName));
}
