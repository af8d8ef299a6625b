// Demo section: the pinned model reviewer against a LOCAL model server (docs/egress.md,
// docs/reviewers.md "The model reviewer"). A loopback server speaking the Anthropic Messages and
// OpenAI Chat Completions shapes stands in for the provider; the reviewer reaches it only through
// the egress broker, which holds the API key (an environment variable of review-run). The receipt
// carries the transcript head; `governed verify` re-derives it.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { contractYaml, governedSetup, makeRepo, sha256File, writeChange } from './world.mjs';

// The local model server: DIRTY (one finding on the first view ID it was offered) on the Anthropic
// route, CLEAN on the OpenAI route. It prints its port, then one line per request it saw.
const SERVER = `
const http = require('http');
const s = http.createServer((req, res) => {
  const chunks = []; req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString());
    const prompt = body.messages.map((m) => m.content).join('\\n');
    const ids = (prompt.split('\\n').find((l) => l.startsWith('refs: 1 to 4 IDs, each one of: ')) || '').slice(31).split(', ');
    const key = req.headers['x-api-key'] || req.headers.authorization;
    process.stdout.write('model server: ' + req.method + ' ' + req.url + ' model=' + body.model + ' key=' + (key === 'Bearer sk-demo-REAL' || key === 'sk-demo-REAL' ? 'the real key' : 'NOT the real key') + ' prompt=' + prompt.length + ' chars\\n');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/v1/messages') {
      const text = 'Review:\\n' + JSON.stringify({ verdict: 'DIRTY', findings: [{ code: 'test_gap', class: 'correctness', severity: 'MEDIUM', refs: [ids.find((i) => i.startsWith('DIR-')) || ids[0]], description: 'free text is dropped' }] });
      res.end(JSON.stringify({ type: 'message', role: 'assistant', content: [{ type: 'text', text }] }));
    } else {
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: '{"verdict":"CLEAN","findings":[]}' } }] }));
    }
  });
});
s.listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'));
`;

export async function demoModelReviewer({ root, cli, work, firstStep, out = process.stdout }) {
  let failures = 0;
  let n = firstStep;
  const step = (title) => out.write(`\n\u2501\u2501 ${n++}. ${title}\n`);
  const say = (text) => out.write(`   ${text}\n`);
  const home = join(work, 'state');
  mkdirSync(work, { recursive: true });
  const repo = makeRepo(work);
  const scrub = (s) => s.replaceAll(work, '$DEMO').replaceAll(root, '.');
  const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const serverLines = [];
  const port = await new Promise((resolve) => {
    let buf = '';
    server.stdout.on('data', (d) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (/^\d+$/.test(line)) resolve(Number(line));
        else serverLines.push(line);
      }
    });
  });
  const governed = (args, expectExit, env = {}) =>
    new Promise((resolve) => {
      out.write(`   $ ${Object.keys(env).map((k) => `${k}=… `).join('')}governed ${scrub(args.join(' '))}\n`);
      const child = spawn(process.execPath, [cli, ...args, '--home', home], { cwd: repo, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', ...env } });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.stderr.on('data', (d) => (text += d));
      child.on('close', (code) => {
        for (const line of text.trimEnd().split('\n').filter(Boolean).slice(0, 6)) out.write(`     ${scrub(line.length > 240 ? `${line.slice(0, 240)}…` : line)}\n`);
        for (const line of serverLines.splice(0)) out.write(`     [${line}]\n`);
        const ok = code === expectExit;
        if (!ok) failures++;
        say(`${ok ? '\u2713' : '\u2717 UNEXPECTED'} exit ${code} (expected ${expectExit})`);
        resolve({ code, text });
      });
    });
  try {
    step('The model reviewer: a local model server, the egress broker, and two reviewer entries');
    // `governed setup --no-init` (docs/setup.md) makes the keys, trust root, attestor configs and a
    // policy pinned to this machine; the story replaces its reviewers, stages and sandbox digests.
    const setup = governedSetup({ cli, work, init: false });
    const attestorsDir = setup.attestors;
    const profile = JSON.parse(spawnSync(process.execPath, [cli, 'sandbox', 'profile', '--json'], { encoding: 'utf8' }).stdout);
    const policy = parse(readFileSync(setup.policy, 'utf8'));
    const egress = (provider) => ({
      provider,
      model: provider === 'anthropic' ? 'claude-demo' : 'local-demo',
      host: 'localhost',
      port,
      transport: 'plain-loopback',
      routes: [{ method: 'POST', path: provider === 'anthropic' ? '/v1/messages' : '/v1/chat/completions' }],
      credential: { env: 'DEMO_MODEL_KEY' },
      broker_sha256: [sha256File(join(root, 'runner', 'egress', 'broker.mjs'))],
      caps: { requests: 4, request_bytes: '4MiB', response_bytes: '1MiB', total_up: '16MiB', total_down: '4MiB', request_timeout: '60s', connections: 2 },
    });
    const model = sha256File(join(root, 'runner', 'reviewers', 'model.mjs'));
    // The local entry runs behind the in-sandbox relay (docs/egress.md#the-in-sandbox-relay) in
    // TLS-terminating mode (docs/egress.md#tls-terminating-mode): the same reviewer opens a CONNECT
    // tunnel to 127.0.0.1:3128 inside its own network namespace and speaks TLS to the broker, which
    // ends it with a per-run CA only that sandbox trusts.
    const relay = { sha256: [sha256File(join(root, 'runner', 'egress', 'relay.mjs'))], terminate: true };
    policy.reviewers = {
      claude: { sha256: model, interpreter: '/usr/bin/node', env: {}, egress: egress('anthropic') },
      local: { sha256: model, interpreter: '/usr/bin/node', env: {}, egress: { ...egress('openai'), relay } },
    };
    policy.stages = { development: { required: true, streak: 2, slots: { claude: 'claude', local: 'local' } } };
    policy.exclude = [];
    policy.sandbox.bwrap_sha256 = [profile.bwrap.sha256];
    policy.sandbox.profile_sha256 = [profile.policy.profile_sha256[0], profile.egress_profile_digest.slice(7), profile.relay_profile_digest.slice(7)];
    policy.sandbox.seccomp_sha256 = [...profile.policy.seccomp_sha256, profile.relay_seccomp_digest.slice(7)];
    writeFileSync(join(work, 'policy.json'), JSON.stringify(policy, null, 2));
    say(`reviewers claude (anthropic, claude-demo) and local (openai, local-demo): the SAME pinned model.mjs,`);
    say(`each reaching only 127.0.0.1:${port} over plain-loopback HTTP; the key is review-run's DEMO_MODEL_KEY.`);
    say('local runs behind the in-sandbox relay (egress.relay): TCP to 127.0.0.1:3128 in its own network namespace,');
    say('in TLS-terminating mode (relay.terminate): HTTPS_PROXY, a CONNECT tunnel, TLS ended by the broker with a per-run CA.');
    say('sandbox.profile_sha256 lists the plain, egress and relay profiles; seccomp_sha256 both filters (`governed sandbox profile`).');
    writeFileSync(join(work, 'contract.yaml'), contractYaml('active'));
    await governed(['init', '--policy', join(work, 'policy.json'), '--trust', setup.trust], 0);
    const unitOut = await governed(['unit', 'create', '--contract', join(work, 'contract.yaml'), '--baseline', 'HEAD', '--json'], 0);
    const unit = JSON.parse(unitOut.text.trim().split('\n').pop()).unit;
    await governed(['writer', 'register', '--unit', unit, '--writer-session', 'demo-writer'], 0);
    writeChange(repo);

    const challenge = async (slot) => JSON.parse((await governed(['review-challenge', '--unit', unit, '--writer-session', 'demo-writer', '--stage', 'development', '--slot', slot, '--json'], 0)).text.trim().split('\n').pop()).challenge_id;

    // The reviewer program is model.mjs under the names claude and local (review-run runs <name>.mjs).
    const reviewers = join(work, 'reviewers');
    mkdirSync(reviewers, { recursive: true });
    copyFileSync(join(root, 'runner', 'reviewers', 'model.mjs'), join(reviewers, 'claude.mjs'));
    copyFileSync(join(root, 'runner', 'reviewers', 'model.mjs'), join(reviewers, 'local.mjs'));

    step('A review-run without the API key: refused before the claim (nothing recorded)');
    const c1 = await challenge('claude');
    await governed(['review-run', '--challenge', c1, '--attestors', attestorsDir, '--reviewers-dir', reviewers, '--json'], 2);

    step('With the key: the model answers DIRTY with free text; the receipt keeps only closed codes and view IDs');
    const dirty = await governed(['review-run', '--challenge', c1, '--attestors', attestorsDir, '--reviewers-dir', reviewers, '--json'], 9, { DEMO_MODEL_KEY: 'sk-demo-REAL' });
    const receipt = JSON.parse(dirty.text.trim().split('\n').pop()).receipt_id;
    const file = join(work, 'receipt.json');
    await governed(['receipt', 'show', '--receipt', receipt, '--out', file, '--json'], 0);
    const predicate = JSON.parse(Buffer.from(JSON.parse(readFileSync(file, 'utf8')).payload, 'base64').toString()).predicate;
    say(`findings: ${JSON.stringify(predicate.findings)}`);
    const t = predicate.egress.transcript;
    say(`egress: ${predicate.egress.provider}/${predicate.egress.model} at ${predicate.egress.host}:${predicate.egress.port}, broker ${predicate.egress.broker_sha256.slice(0, 12)}…`);
    say(`transcript: ${t.requests} request(s), ${t.refused} refused, ${t.bytes_up} bytes up, ${t.bytes_down} down, head ${t.head.slice(0, 19)}…`);
    await governed(['verify', file, '--json'], 0);

    step('The OpenAI-compatible entry (a local server such as vLLM, llama.cpp or Ollama), behind the relay through a CONNECT tunnel: CLEAN');
    const clean = await governed(['review-run', '--challenge', await challenge('local'), '--attestors', attestorsDir, '--reviewers-dir', reviewers, '--json'], 0, { DEMO_MODEL_KEY: 'sk-demo-REAL' });
    const cleanFile = join(work, 'receipt-relay.json');
    await governed(['receipt', 'show', '--receipt', JSON.parse(clean.text.trim().split('\n').pop()).receipt_id, '--out', cleanFile, '--json'], 0);
    const relayed = JSON.parse(Buffer.from(JSON.parse(readFileSync(cleanFile, 'utf8')).payload, 'base64').toString()).predicate;
    say(`receipt: relay ${relayed.egress.relay_sha256.slice(0, 12)}…, profile ${relayed.sandbox.profile_digest.slice(0, 19)}…, seccomp ${relayed.sandbox.seccomp_digest.slice(0, 19)}…`);
    say(`run CA ${relayed.egress.terminate_ca_sha256.slice(0, 12)}… (this run only); tunnelled requests: ${relayed.egress.transcript.records.filter((r) => r.tunnel === true).length} of ${relayed.egress.transcript.requests}`);
    await governed(['verify', cleanFile, '--json'], 0);
  } finally {
    server.kill();
  }
  return failures;
}
