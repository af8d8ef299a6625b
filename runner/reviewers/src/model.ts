// The `model` reviewer (docs/reviewers.md "The model reviewer"): a pinned, self-contained program
// the runner starts inside the sandbox like every reviewer, with the egress variables of its policy
// entry added (docs/egress.md). It reads the bundle at $GOVERNED_BUNDLE (checked exactly as the
// coverage reviewer checks it), builds the prompt of its stage and role from the view it was given,
// asks the policy's model through the egress broker, and prints one review output (docs/formats.md, reviewer output) made
// only of closed codes and IDs of the view. The same program serves every slot; the policy picks
// the provider and model per reviewer entry, so a stage can mix models by configuration alone.
//
// Exit status:
//   0   a review output was printed (CLEAN or DIRTY)
//   64  GOVERNED_BUNDLE or an egress variable is not set
//   66  the bundle cannot be read
//   65  the bundle is malformed
//   69  the model could not be asked (broker refused, connection failed, non-200, timeout, oversized)
//   76  the answer is unusable (no JSON object, no valid verdict, DIRTY with no valid finding, …)
//   70  internal error
// On every non-zero exit stdout is empty and stderr carries one fixed line: never the answer, a
// path, a key or a value from the bundle.
import { readFileSync } from 'node:fs';
import { COVERAGE_KINDS, readBundle, type Bundle } from './coverage/bundle.js';
import { canonicalJson } from './coverage/canonical.js';
import { Malformed } from './coverage/shape.js';
import { OUTPUT_SCHEMA_ID } from './coverage/review.js';
import { extractJson, mapAnswer, Unusable } from './model/answer.js';
import { callModel, CallFailed, type Endpoint } from './model/call.js';
import { buildPrompt, SYSTEM_PROMPT } from './model/prompt.js';

function endpoint(): Endpoint | null {
  const e = process.env;
  const provider = e.GOVERNED_MODEL_PROVIDER;
  if (!e.GOVERNED_EGRESS_SOCKET || !e.GOVERNED_EGRESS_TOKEN || !e.GOVERNED_MODEL || !e.GOVERNED_EGRESS_PATH) return null;
  if (provider !== 'anthropic' && provider !== 'openai') return null;
  // Behind the relay the runner sets GOVERNED_EGRESS_URL (always http://127.0.0.1:<port>).
  const relay = e.GOVERNED_EGRESS_URL === undefined ? null : /^http:\/\/127\.0\.0\.1:([0-9]{1,5})$/.exec(e.GOVERNED_EGRESS_URL);
  if (relay === null && e.GOVERNED_EGRESS_URL !== undefined) return null;
  const relayPort = relay === null ? null : Number(relay[1]);
  // TLS-terminating mode (docs/egress.md#tls-terminating-mode): HTTPS through the relay as a proxy,
  // to the CONNECT target the runner names, trusting the run CA (NODE_EXTRA_CA_CERTS).
  const target = e.GOVERNED_EGRESS_TARGET === undefined ? null : /^([a-z0-9.-]{1,253}):([0-9]{1,5})$/.exec(e.GOVERNED_EGRESS_TARGET);
  if (target === null && e.GOVERNED_EGRESS_TARGET !== undefined) return null;
  if (target !== null && (relayPort === null || e.HTTPS_PROXY !== e.GOVERNED_EGRESS_URL)) return null;
  const tunnel = target === null ? null : { host: target[1] as string, port: Number(target[2]) };
  return { socket: e.GOVERNED_EGRESS_SOCKET, relayPort, tunnel, token: e.GOVERNED_EGRESS_TOKEN, provider, model: e.GOVERNED_MODEL, path: e.GOVERNED_EGRESS_PATH };
}

async function main(): Promise<number> {
  const path = process.env.GOVERNED_BUNDLE;
  const ep = endpoint();
  if (path === undefined || path === '' || ep === null) {
    process.stderr.write('model: environment incomplete\n');
    return 64;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    process.stderr.write('model: bundle unreadable\n');
    return 66;
  }
  let bundle: Bundle;
  try {
    bundle = readBundle(bytes);
  } catch (e) {
    process.stderr.write(e instanceof Malformed ? 'model: bundle malformed\n' : 'model: internal error\n');
    return e instanceof Malformed ? 65 : 70;
  }
  let text: string;
  try {
    text = await callModel(ep, SYSTEM_PROMPT, buildPrompt(bundle));
  } catch (e) {
    process.stderr.write(e instanceof CallFailed ? `model: call failed (${e.reason})\n` : 'model: internal error\n');
    return e instanceof CallFailed ? 69 : 70;
  }
  const visible = new Set(COVERAGE_KINDS.flatMap((k) => bundle.coverage[k]));
  let mapped;
  try {
    mapped = mapAnswer(extractJson(text), visible);
  } catch (e) {
    process.stderr.write(e instanceof Unusable ? `model: answer unusable (${e.reason})\n` : 'model: internal error\n');
    return e instanceof Unusable ? 76 : 70;
  }
  process.stdout.write(canonicalJson({ coverage: bundle.coverage, findings: mapped.findings, schema: OUTPUT_SCHEMA_ID, verdict: mapped.verdict }));
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 70;
  },
);
