// The governed demo (`npm run demo`): real keys, real receipts, real refusals, readable output.
// It grows with every capability: keys and offline verification (openssl as a second verifier),
// then one unit of work from nothing to RELEASE_ELIGIBLE through the real sandbox and reviewer
// (scripts/demo/governed-story.mjs), then the review protocols with real tools, then the project's
// own tests as a check reviewer that keeps a unit REVIEW_ONLY until a failing test is fixed.
import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { governedStory } from './demo/governed-story.mjs';
import { demoReviewPass } from './demo-review-pass.mjs';
import { demoModelReviewer } from './demo/model-reviewer.mjs';
import { checkStory } from './demo/check-story.mjs';
import { preservationStory } from './demo/preservation-story.mjs';
import { separatedStory } from './demo/separated-story.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'governed.mjs');
const work = mkdtempSync(join(tmpdir(), 'governed-demo-'));
const fixture = join(root, 'test', 'fixtures', 'receipt');
let failures = 0;

const step = (title) => process.stdout.write(`\n\u2501\u2501 ${title}\n`);
const say = (text) => process.stdout.write(`   ${text}\n`);
function governed(args, expectExit) {
  process.stdout.write(`   $ governed ${args.map((a) => a.replace(work, '$DEMO')).join(' ')}\n`);
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' } });
  for (const line of `${r.stdout}${r.stderr}`.trimEnd().split('\n')) if (line) process.stdout.write(`     ${line.replaceAll(work, '$DEMO')}\n`);
  const ok = r.status === expectExit;
  if (!ok) failures++;
  say(`${ok ? '\u2713' : '\u2717 UNEXPECTED'} exit ${r.status} (expected ${expectExit})`);
  return r;
}

try {
  step('1. Make Ed25519 keys (PKCS#8 0600 + SPKI); the key id is sha256 of the DER SPKI');
  governed(['keygen', '--credential', 'reviewer', '--out', join(work, 'keys')], 0);
  governed(['keygen', '--credential', 'runner', '--out', join(work, 'keys')], 0);
  say('keygen never overwrites a key:');
  governed(['keygen', '--credential', 'runner', '--out', join(work, 'keys')], 2);

  step('2. Verify a FIXTURE receipt offline');
  say('test/fixtures/receipt/receipt.json was made ONCE by the real attestor program with THROWAWAY');
  say('test keys (deleted since; its field values are synthetic). Real receipts only come from');
  say('`governed review-run`, which a later version of this demo runs.');
  const receipt = join(work, 'receipt.json');
  copyFileSync(join(fixture, 'receipt.json'), receipt);
  governed(['verify', receipt, '--trust', join(fixture, 'trust.json')], 0);

  step('3. A second, independent verifier: openssl over the DSSE PAE bytes');
  const env = JSON.parse(readFileSync(receipt, 'utf8'));
  const payload = Buffer.from(env.payload, 'base64');
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(env.payloadType)} ${env.payloadType} ${payload.length} `), payload]);
  writeFileSync(join(work, 'pae.bin'), pae);
  const trust = JSON.parse(readFileSync(join(fixture, 'trust.json'), 'utf8'));
  for (const s of env.signatures) {
    const k = trust.keys.find((x) => x.key_id === s.keyid);
    writeFileSync(join(work, 'key.pub'), k.public_key);
    writeFileSync(join(work, 'sig.bin'), Buffer.from(s.sig, 'base64'));
    const r = spawnSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', join(work, 'key.pub'), '-rawin', '-in', join(work, 'pae.bin'), '-sigfile', join(work, 'sig.bin')], { encoding: 'utf8' });
    say(`openssl pkeyutl -verify (${k.roles.join(',')} key ${s.keyid.slice(0, 12)}…): ${r.stdout.trim() || r.stderr.trim()}`);
    if (r.status !== 0) failures++;
  }

  step('4. Flip ONE byte of the signed payload: refused (exit 4, verification failure)');
  const flipped = Buffer.from(payload);
  const at = flipped.indexOf(Buffer.from('"CLEAN"')) + 1;
  flipped[at] ^= 0x01; // "CLEAN" -> "BLEAN"
  const tampered = join(work, 'tampered.json');
  writeFileSync(tampered, JSON.stringify({ ...env, payload: flipped.toString('base64') }));
  say(`byte ${at} of the payload changed (0x${payload[at].toString(16)} -> 0x${flipped[at].toString(16)})`);
  governed(['verify', tampered, '--trust', join(fixture, 'trust.json')], 4);

  step('5. The same receipt under a trust root of OUR new keys: untrusted (exit 6)');
  const ours = {
    version: 1,
    expires: '2031-01-01T00:00:00Z',
    keys: ['reviewer', 'runner'].map((role) => {
      const pem = readFileSync(join(work, 'keys', `${role}.pub`), 'utf8');
      const id = createHash('sha256').update(createPublicKey(pem).export({ format: 'der', type: 'spki' })).digest('hex');
      return { key_id: id, public_key: pem, roles: [role], not_before: '2026-01-01T00:00:00Z', not_after: '2031-01-01T00:00:00Z' };
    }),
  };
  writeFileSync(join(work, 'our-trust.json'), JSON.stringify(ours, null, 2));
  governed(['verify', receipt, '--trust', join(work, 'our-trust.json'), '--json'], 6);

  failures += governedStory({ root, cli, work: join(work, 'story') });

  // Steps 16–18: review protocols over a sample repository with two real tools (tsc, ESLint).
  failures += demoReviewPass({ cli, firstStep: 16 });

  // Steps 19–21: the project's own tests as a gating check reviewer (docs/reviewers.md#check-reviewers).
  failures += checkStory({ root, cli, work: join(work, 'checks'), firstStep: 19 });
  // Steps 22–26: preservation on a real Node product: probed, reviewed, RELEASE_ELIGIBLE at the gate; a silent removal kept REVIEW_ONLY.
  failures += preservationStory({ root, cli, work: join(work, 'preservation'), firstStep: 22 });
  // Steps 27–30: the pinned model reviewer against a local model server, through the egress broker.
  failures += await demoModelReviewer({ root, cli, work: join(work, 'model'), firstStep: 27 });
  // Step 31: separated mode — the demo unit under policies/strict.yaml through governed runnerd (root only).
  failures += await separatedStory({ root, cli, work: join(work, 'separated'), firstStep: 31 });

  process.stdout.write(`\n${failures === 0 ? 'demo complete: every step behaved as expected' : `demo FAILED: ${failures} unexpected result(s)`}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = failures === 0 ? 0 : 1;
