// `governed audit export` writes each receipt also in the standard containers (docs/formats.md
// "Standard containers", docs/audit.md#governed-audit-export---out-dir---unit-u): the in-toto JSON
// Lines bundle holds exactly the receipt envelope, and each Sigstore bundle v0.3 is accepted by
// @sigstore/verify (an independent verifier) with the exported public key given out of band — and
// refused when one byte of its signature changes.
import { createPublicKey } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
import { bundleFromJSON } from '@sigstore/bundle';
import { tempDir } from './helpers/receipts.js';
import { eligibleStory, type Story } from './gate-world.js';
import { gov } from './state-helpers.js';

let story: Story;
let out: string;

beforeAll(() => {
  story = eligibleStory();
  out = join(tempDir('governed-export-containers-'), 'audit');
  const r = gov(story.w, ['audit', 'export', '--out', out, '--json']);
  expect(r.code, r.stderr).toBe(0);
}, 240_000);

interface Bundle {
  verificationMaterial: { publicKey: { hint: string } };
  dsseEnvelope: { signatures: { sig: string; keyid: string }[] };
}

function sigstoreVerify(bundle: Bundle): { ok: boolean; error?: string } {
  const keyId = bundle.verificationMaterial.publicKey.hint;
  const der = createPublicKey(readFileSync(join(out, 'keys', `${keyId}.pub`), 'utf8')).export({ format: 'der', type: 'spki' });
  const trustedRoot = { mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1', tlogs: [], certificateAuthorities: [], ctlogs: [], timestampAuthorities: [] };
  const material = toTrustMaterial(trustedRoot as never, { [keyId]: { rawBytes: der, keyDetails: 'PKIX_ED25519', validFor: { start: new Date('2020-01-01T00:00:00Z') } } as never });
  try {
    new Verifier(material, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(toSignedEntity(bundleFromJSON(bundle)));
    return { ok: true };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

describe('audit export: standard containers beside each receipt', () => {
  it('one in-toto line (the exact envelope) and one Sigstore bundle per signature, each listed in the manifest', () => {
    const receipts = readdirSync(join(out, 'receipts')).sort();
    expect(receipts.length).toBe(story.receipts.length);
    const listed = new Set((JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { files: { path: string }[] }).files.map((f) => f.path));
    for (const name of receipts) {
      const hex = name.replace(/\.json$/, '');
      const envelope = JSON.parse(readFileSync(join(out, 'receipts', name), 'utf8')) as { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
      const line = readFileSync(join(out, 'intoto', `${hex}.intoto.jsonl`), 'utf8');
      expect(line.endsWith('\n') && line.indexOf('\n') === line.length - 1).toBe(true);
      expect(JSON.parse(line)).toEqual({ payloadType: envelope.payloadType, payload: envelope.payload, signatures: envelope.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })) });
      expect(listed.has(`intoto/${hex}.intoto.jsonl`)).toBe(true);
      expect(envelope.signatures.length).toBe(2); // reviewer and runner
      envelope.signatures.forEach((s, i) => {
        const path = `sigstore/${hex}.${i}.sigstore.json`;
        expect(listed.has(path)).toBe(true);
        const bundle = JSON.parse(readFileSync(join(out, path), 'utf8')) as Bundle;
        expect(bundle.verificationMaterial.publicKey.hint).toBe(s.keyid);
        expect(sigstoreVerify(bundle), `${path}`).toEqual({ ok: true });
      });
    }
    expect(readdirSync(join(out, 'sigstore')).length).toBe(2 * receipts.length);
  });

  it('@sigstore/verify refuses an exported bundle with one signature byte changed', () => {
    const name = readdirSync(join(out, 'sigstore')).sort()[0] as string;
    const bundle = JSON.parse(readFileSync(join(out, 'sigstore', name), 'utf8')) as Bundle;
    expect(sigstoreVerify(bundle).ok).toBe(true); // positive control
    const sig = Buffer.from(bundle.dsseEnvelope.signatures[0]!.sig, 'base64');
    sig[0] = (sig[0] as number) ^ 1;
    bundle.dsseEnvelope.signatures[0]!.sig = sig.toString('base64');
    expect(sigstoreVerify(bundle).ok).toBe(false);
  });
});
