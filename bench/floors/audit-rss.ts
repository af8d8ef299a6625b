// The memory floor of `governed audit verify` on this machine (bench/audit "peak RSS floor"): ONLY
// what reading a store's whole log and checking its receipts' signatures costs, with no governed
// logic around it — Node's start, the SQLite addon and a read-only open with the audit's page cache
// (src/core/limits.ts AUDIT_SQLITE_CACHE_KIB), every log row read in order one at a time, and for
// each receipt entry its envelope decoded and its two Ed25519 signatures verified over the DSSE PAE
// with node:crypto against the trust file's keys. No replay, no chain, no schema, no tree, no
// record checks: what the audit's peak RSS is above this line is governed's.
//
// Usage: node audit-rss.mjs <home> <trust.json>   (prints the number of receipts verified)
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { AUDIT_SQLITE_CACHE_KIB } from '../../src/core/limits.js';

const [home, trustFile] = process.argv.slice(2) as [string, string];
const req = createRequire(import.meta.url);
const addon = join(dirname(req.resolve('better-sqlite3')), '..', 'build', 'Release', 'better_sqlite3.node');
const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true, ...(existsSync(addon) ? { nativeBinding: addon } : {}) });
db.pragma(`cache_size = -${AUDIT_SQLITE_CACHE_KIB}`);
const trust = JSON.parse(readFileSync(trustFile, 'utf8')) as { keys: { key_id: string; public_key: string }[] };
const keys = new Map<string, KeyObject>(trust.keys.map((k) => [k.key_id, createPublicKey(k.public_key)]));

function pae(type: string, body: Buffer): Buffer {
  const t = Buffer.from(type);
  return Buffer.concat([Buffer.from(`DSSEv1 ${t.length} `), t, Buffer.from(` ${body.length} `), body]);
}

let n = 0;
for (const row of db.prepare('SELECT * FROM log ORDER BY seq').iterate() as IterableIterator<{ type: string; payload: Buffer }>) {
  if (row.type !== 'run_receipt') continue;
  const p = JSON.parse(row.payload.toString('utf8')) as { envelope_b64: string };
  const e = JSON.parse(Buffer.from(p.envelope_b64, 'base64').toString('utf8')) as { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
  const m = pae(e.payloadType, Buffer.from(e.payload, 'base64'));
  for (const s of e.signatures) {
    const k = keys.get(s.keyid);
    if (k === undefined || !verify(null, m, k, Buffer.from(s.sig, 'base64'))) throw new Error('floor: a signature did not verify');
  }
  n++;
}
db.close();
process.stdout.write(`${n}\n`);
