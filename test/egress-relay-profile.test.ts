// The relay profile and its wiring as data (docs/egress.md#the-in-sandbox-relay): the template is
// the egress profile plus the relay's descriptor bind and the relay before the reviewer, nothing
// else — in particular never `--share-net`; its digest is its own and names the loopback-tcp
// filter; the argv builder admits exactly the relay's variables and refuses a policy variable that
// the runner's would replace; the policy refuses the same collision. Pure (no bwrap).
import { describe, expect, it } from 'vitest';
import { buildBwrapArgv, FD_NUMBERS } from '../runner/sandbox/argv.js';
import { EGRESS_PROFILE_ARGV, PROFILE_ARGV, RELAY_INTERPRETER, RELAY_PATH, RELAY_PROFILE_ARGV, profileSockets, staticProfile, staticProfileSha256 } from '../runner/sandbox/profile.js';
import { connectTargetAllowed, EGRESS_SANDBOX_SOCKET, RELAY_ENV_BY_PROVIDER, RELAY_ENV_NAMES, RELAY_PORT, RELAY_URL, RELAY_URL_ENV, relayEnv, TERMINATE_CA_PATH, TERMINATE_ENV_NAMES, terminateEnv, tunnelHostAllowed } from '../src/core/egress-rules.js';
import { isGovernedError } from '../src/core/errors.js';
import { loadPolicy } from '../src/core/policy.js';
import { policyDoc } from './decision-fixtures.js';
import { codeOf } from './helpers/codes.js';
import { testLimits } from './sandbox-helpers.js';

const base = { interpreter: '/usr/bin/node', env: {}, limits: testLimits() };
const PHANTOM = 'sk-ant-api03-gvdPHANTOM';
const egressEnv = { GOVERNED_EGRESS_SOCKET: EGRESS_SANDBOX_SOCKET, GOVERNED_EGRESS_TOKEN: PHANTOM, GOVERNED_MODEL_PROVIDER: 'anthropic', GOVERNED_MODEL: 'm', GOVERNED_EGRESS_PATH: '/v1/messages' };
const relayWiring = { socket: '/tmp/governed-egress-x/egress.sock', env: { ...egressEnv, ...relayEnv('anthropic', PHANTOM) }, relay: true };

describe('the relay profile template', () => {
  it('is the egress profile plus exactly the relay bind and the relay command before the reviewer', () => {
    const strip = (argv: readonly unknown[]): unknown[] => {
      const out = [...argv];
      const bind = out.findIndex((a) => typeof a === 'object' && a !== null && 'fd' in a && (a as { fd: string }).fd === 'relay');
      out.splice(bind - 3, 5);
      const cmd = out.indexOf(RELAY_INTERPRETER);
      expect(out.slice(cmd, cmd + 4)).toEqual([RELAY_INTERPRETER, RELAY_PATH, String(RELAY_PORT), EGRESS_SANDBOX_SOCKET]);
      out.splice(cmd, 4);
      return out;
    };
    expect(strip(RELAY_PROFILE_ARGV)).toEqual([...EGRESS_PROFILE_ARGV]);
    expect(RELAY_PROFILE_ARGV).toContain('--unshare-all');
    expect(RELAY_PROFILE_ARGV).not.toContain('--share-net');
    expect(PROFILE_ARGV).not.toContain('--share-net');
  });

  it('has its own digest, binds the loopback-tcp filter by name, and the other profiles keep the AF_UNIX one', () => {
    const digests = new Set((['reviewer', 'check', 'egress', 'relay'] as const).map((k) => staticProfileSha256(k)));
    expect(digests.size).toBe(4);
    expect(staticProfile('relay').seccomp_sockets).toBe('loopback-tcp');
    expect(staticProfile('egress').seccomp_sockets).toBeUndefined();
    expect(profileSockets('relay')).toBe('loopback-tcp');
    for (const k of ['reviewer', 'check', 'egress'] as const) expect(profileSockets(k)).toBe('unix');
    expect(staticProfile('relay').spawn.extra_fds).toEqual(['seccomp', 'status', 'block', 'bundle', 'reviewer', 'go', 'relay']);
  });

  it('expands with the relay descriptor and the socket; the reviewer still runs from its pinned bytes after the relay', () => {
    const argv = buildBwrapArgv({ ...base, egress: relayWiring });
    const at = argv.indexOf(RELAY_PATH);
    expect(argv.slice(at - 4, at + 1)).toEqual(['--perms', '0555', '--ro-bind-data', String(FD_NUMBERS.relay), RELAY_PATH]);
    const tail = argv.slice(-6);
    expect(tail).toEqual([RELAY_INTERPRETER, RELAY_PATH, '3128', EGRESS_SANDBOX_SOCKET, '/usr/bin/node', '/opt/reviewer/reviewer']);
    expect(argv).toContain(relayWiring.socket);
    for (const [k, v] of Object.entries(relayEnv('anthropic', PHANTOM))) expect(argv.join('\n')).toContain(`--setenv\n${k}\n${v}`);
  });
});

describe('relay wiring refusals (sandbox_argument_invalid)', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['relay variables without relay: true', { socket: relayWiring.socket, env: relayWiring.env }],
    ['relay: true without the relay variables', { ...relayWiring, env: egressEnv }],
    ["the other provider's relay variables", { ...relayWiring, env: { ...egressEnv, ...relayEnv('openai', PHANTOM) } }],
    ['relay that is not a boolean', { ...relayWiring, relay: 'yes' }],
    ['an unknown provider', { ...relayWiring, env: { ...relayWiring.env, GOVERNED_MODEL_PROVIDER: 'gemini' } }],
  ];
  for (const [name, egress] of cases) {
    it(name, () => {
      expect(codeOf(() => buildBwrapArgv({ ...base, egress: egress as never }))).toBe('sandbox_argument_invalid');
    });
  }

  it('a policy variable the runner would replace (ANTHROPIC_BASE_URL) is refused, not silently overridden', () => {
    expect(codeOf(() => buildBwrapArgv({ ...base, env: { ANTHROPIC_BASE_URL: 'http://attacker.test' }, egress: relayWiring }))).toBe('sandbox_argument_invalid');
    // Control: a variable of another name passes.
    expect(codeOf(() => buildBwrapArgv({ ...base, env: { REVIEW_LANG: 'en' }, egress: relayWiring }))).toBeUndefined();
  });
});

describe('relay variables: one definition', () => {
  it('RELAY_ENV_NAMES lists exactly what relayEnv can set; the URL is the literal loopback address and port', () => {
    const all = new Set([RELAY_URL_ENV, ...Object.values(RELAY_ENV_BY_PROVIDER).flatMap((p) => [p.baseUrl, p.key])]);
    expect(new Set(RELAY_ENV_NAMES)).toEqual(all);
    expect(RELAY_URL).toBe(`http://127.0.0.1:${RELAY_PORT}`);
    expect(relayEnv('openai', 'k')).toEqual({ GOVERNED_EGRESS_URL: RELAY_URL, OPENAI_BASE_URL: `${RELAY_URL}/v1`, OPENAI_API_KEY: 'k' });
    expect(relayEnv('anthropic', 'k')).toEqual({ GOVERNED_EGRESS_URL: RELAY_URL, ANTHROPIC_BASE_URL: RELAY_URL, ANTHROPIC_API_KEY: 'k' });
  });
});

describe('policy: an entry behind the relay may not set the variables the runner sets', () => {
  const entry = (relay: boolean): Record<string, unknown> => ({
    provider: 'anthropic',
    model: 'claude-test',
    host: 'api.anthropic.com',
    port: 443,
    transport: 'tls',
    routes: [{ method: 'POST', path: '/v1/messages' }],
    credential: { env: 'ANTHROPIC_KEY_FOR_GOVERNED' },
    broker_sha256: ['a'.repeat(64)],
    caps: { requests: 4, request_bytes: '4MiB', response_bytes: '1MiB', total_up: '16MiB', total_down: '4MiB', request_timeout: '60s', connections: 2 },
    ...(relay ? { relay: { sha256: ['b'.repeat(64)] } } : {}),
  });
  const doc = (relay: boolean, env: Record<string, string>): unknown => {
    const d = structuredClone(policyDoc()) as unknown as { reviewers: Record<string, Record<string, unknown>> };
    d.reviewers.coverage = { ...(d.reviewers.coverage as Record<string, unknown>), env, egress: entry(relay) };
    return d;
  };
  const CANARY = 'http://canary-relay-value.test';

  it('each relay variable in reviewers.<r>.env → policy_invalid naming the field, never the value', () => {
    for (const name of RELAY_ENV_NAMES) {
      let caught: unknown;
      try {
        loadPolicy(doc(true, { [name]: CANARY }));
      } catch (e) {
        caught = e;
      }
      expect(isGovernedError(caught) ? { code: caught.code, ids: caught.ids } : caught, name).toEqual({ code: 'policy_invalid', ids: ['reviewers.coverage.env'] });
      expect(String((caught as Error).message)).not.toContain(CANARY);
    }
  });

  it('controls: the same entry without those variables loads, and so do ANTHROPIC_BASE_URL/OPENAI_API_KEY without relay (the socket profile does not set them)', () => {
    expect(codeOf(() => loadPolicy(doc(true, { REVIEW_LANG: 'en' })))).toBeUndefined();
    expect(codeOf(() => loadPolicy(doc(false, { ANTHROPIC_BASE_URL: CANARY })))).toBeUndefined();
    // GOVERNED_EGRESS_URL is the runner's in every case.
    expect(codeOf(() => loadPolicy(doc(false, { GOVERNED_EGRESS_URL: CANARY })))).toBe('policy_invalid');
  });

  it('TLS-terminating mode: TERMINATE_ENV_NAMES lists exactly what terminateEnv sets; each of them in reviewers.<r>.env of a relay entry → policy_invalid; relay.terminate is a boolean', () => {
    const env = terminateEnv('-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n', 'api.example.test', 443);
    expect(new Set(Object.keys(env))).toEqual(new Set(TERMINATE_ENV_NAMES));
    expect(env.HTTPS_PROXY).toBe(RELAY_URL);
    expect(env.GOVERNED_EGRESS_TARGET).toBe('api.example.test:443');
    for (const k of ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'CURL_CA_BUNDLE']) expect(env[k]).toBe(TERMINATE_CA_PATH);
    for (const name of TERMINATE_ENV_NAMES) {
      let caught: unknown;
      try {
        loadPolicy(doc(true, { [name]: CANARY }));
      } catch (e) {
        caught = e;
      }
      expect(isGovernedError(caught) ? { code: caught.code, ids: caught.ids } : caught, name).toEqual({ code: 'policy_invalid', ids: ['reviewers.coverage.env'] });
      expect(String((caught as Error).message)).not.toContain(CANARY);
    }
    const withTerminate = structuredClone(doc(true, {})) as { reviewers: { coverage: { egress: { relay: Record<string, unknown> } } } };
    withTerminate.reviewers.coverage.egress.relay = { sha256: ['b'.repeat(64)], terminate: true };
    expect(codeOf(() => loadPolicy(withTerminate))).toBeUndefined();
    withTerminate.reviewers.coverage.egress.relay = { sha256: ['b'.repeat(64)], terminate: 'yes' };
    expect(codeOf(() => loadPolicy(withTerminate))).toBe('policy_invalid');
  });

  it('the CONNECT target and the Host inside a tunnel must be exactly the policy endpoint', () => {
    expect(connectTargetAllowed('api.example.test:443', 'api.example.test', 443)).toBe(true);
    for (const t of ['api.example.test:8443', 'API.example.test:443', 'api.example.test', '93.184.216.34:443', 'other.test:443', 'api.example.test:443/x', undefined]) {
      expect(connectTargetAllowed(t, 'api.example.test', 443), String(t)).toBe(false);
    }
    expect(tunnelHostAllowed('api.example.test', 'api.example.test', 443)).toBe(true);
    expect(tunnelHostAllowed('api.example.test:443', 'api.example.test', 443)).toBe(true);
    expect(tunnelHostAllowed('localhost:9443', 'localhost', 9443)).toBe(true);
    for (const h of ['localhost', '127.0.0.1:9443', 'egress', 'localhost:9444', undefined]) expect(tunnelHostAllowed(h, 'localhost', 9443), String(h)).toBe(false);
  });

  it('relay.sha256 is a non-empty list of sha256 hex (the schema)', () => {
    const bad = structuredClone(doc(true, {})) as { reviewers: { coverage: { egress: { relay: unknown } } } };
    for (const relay of [{ sha256: [] }, { sha256: ['nothex'] }, { sha256: ['b'.repeat(64)], extra: 1 }, true]) {
      bad.reviewers.coverage.egress.relay = relay;
      expect(codeOf(() => loadPolicy(bad)), JSON.stringify(relay)).toBe('policy_invalid');
    }
  });
});
