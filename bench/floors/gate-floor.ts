// The floor of `governed gate` on this machine (bench/gate "floor"): ONLY the I/O and cryptography
// that docs/decision.md#8-delivery-state-and-reason-codes makes every gate run pay, with no governed logic around it — Node's start, the
// SQLite addon and a read-only open, the newest N envelopes of the unit read by index, one hardened
// `git cat-file --batch` walking the subject commit's tree and hashing every blob with SHA-256, and
// two Ed25519 verifications per envelope with node:crypto against the trust file's keys. No
// decision, no schema, no canonical form, no chain, no policy: whatever the real gate costs above
// this line is governed's; the line itself is what any implementation of these rules pays here.
//
// Usage: node gate-floor.mjs <home> <repo> <trust.json> <unit> <subject> <n-envelopes>
import { spawn } from 'node:child_process';
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';

const [home, repo, trustFile, unit, subject, nText] = process.argv.slice(2) as [string, string, string, string, string, string];
const req = createRequire(import.meta.url);
const addon = join(dirname(req.resolve('better-sqlite3')), '..', 'build', 'Release', 'better_sqlite3.node');
const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true, ...(existsSync(addon) ? { nativeBinding: addon } : {}) });
const rows = db.prepare('SELECT envelope FROM receipts WHERE unit = ? ORDER BY log_seq DESC LIMIT ?').all(unit, Number(nText)) as { envelope: Buffer }[];

const trust = JSON.parse(readFileSync(trustFile, 'utf8')) as { keys: { key_id: string; public_key: string }[] };
const keys = new Map<string, KeyObject>(trust.keys.map((k) => [k.key_id, createPublicKey(k.public_key)]));

function pae(type: string, body: Buffer): Buffer {
  const t = Buffer.from(type);
  return Buffer.concat([Buffer.from(`DSSEv1 ${t.length} `), t, Buffer.from(` ${body.length} `), body]);
}

// The subject's content from git objects: one batch process, replace refs off (docs/decision.md#8-delivery-state-and-reason-codes).
async function manifest(): Promise<string> {
  const git = spawn('/usr/bin/git', ['-c', 'core.fsmonitor=false', 'cat-file', '--batch'], {
    cwd: repo,
    env: { PATH: '/usr/bin:/bin', GIT_DIR: join(repo, '.git'), GIT_NO_REPLACE_OBJECTS: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let buf = Buffer.alloc(0);
  const waiters: (() => void)[] = [];
  git.stdout.on('data', (b: Buffer) => {
    buf = Buffer.concat([buf, b]);
    waiters.splice(0).forEach((w) => w());
  });
  const object = async (id: string): Promise<{ type: string; body: Buffer }> => {
    git.stdin.write(`${id}\n`);
    for (;;) {
      const nl = buf.indexOf(10);
      if (nl !== -1) {
        const [, type, size] = buf.subarray(0, nl).toString().split(' ') as [string, string, string];
        const end = nl + 1 + Number(size) + 1;
        if (buf.length >= end) {
          const body = buf.subarray(nl + 1, end - 1);
          buf = buf.subarray(end);
          return { type, body };
        }
      }
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const commit = await object(subject);
  const tree = /^tree ([0-9a-f]+)/.exec(commit.body.toString())?.[1] as string;
  const files: string[] = [];
  const walk = async (id: string, prefix: string): Promise<void> => {
    const t = (await object(id)).body;
    let i = 0;
    while (i < t.length) {
      const sp = t.indexOf(32, i);
      const nul = t.indexOf(0, sp);
      const mode = t.subarray(i, sp).toString();
      const name = t.subarray(sp + 1, nul).toString();
      const oid = t.subarray(nul + 1, nul + 21).toString('hex');
      i = nul + 21;
      if (mode === '40000') await walk(oid, `${prefix}${name}/`);
      else files.push(`${prefix}${name} ${createHash('sha256').update((await object(oid)).body).digest('hex')}`);
    }
  };
  await walk(tree, '');
  git.stdin.end();
  return createHash('sha256').update(files.sort().join('\n')).digest('hex');
}

const pending = manifest();
let verified = 0;
for (const r of rows) {
  const env = JSON.parse(r.envelope.toString('utf8')) as { payload: string; payloadType: string; signatures: { keyid: string; sig: string }[] };
  const message = pae(env.payloadType, Buffer.from(env.payload, 'base64'));
  for (const s of env.signatures) {
    const key = keys.get(s.keyid);
    if (key === undefined || !verify(null, message, key, Buffer.from(s.sig, 'base64'))) process.exit(4);
    verified++;
  }
}
const digest = await pending;
db.close();
process.stdout.write(`${JSON.stringify({ verified, manifest: digest })}\n`);
