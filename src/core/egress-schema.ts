// The egress formats (docs/egress.md): a reviewer's `egress` policy entry, and the `egress` section
// of the review-receipt predicate (the transcript head, records, totals and the digests of what
// enforced it). One zod/mini definition each; the rules zod cannot say are in ./egress-rules.ts.
import * as z from 'zod/mini';
import { REFINEMENTS } from './format/refinements.js';
import { SIZE_RE, DURATION_RE } from './duration.js';
import { EGRESS_OUTCOMES, EGRESS_PROVIDERS, RECORD_METHODS } from './egress-rules.js';
import { count, digestString, hex64, int, list, str } from './schema-primitives.js';
import { EGRESS_MAX_CONNECTIONS, EGRESS_MAX_REQUESTS, EGRESS_MAX_ROUTES } from './limits.js';
import { SANDBOX_ENV_NAME_RE } from './sandbox-bounds.js';

/** A DNS name with at least one letter in its last label (never an IP literal), lowercase. */
/** The DNS-name grammar of {@link egressHost}; the run CA checks it again before openssl reads it. */
export const EGRESS_HOST_RE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
export const egressHost = str({ re: EGRESS_HOST_RE });
const routePath = str({ re: /^\/[A-Za-z0-9._~\-/]{0,255}$/ }).check(
  z.refine(REFINEMENTS.noDotSegment, { message: 'path' }),
  z.meta({ description: "an absolute path without '.' or '..' segments, no query string" }),
);
const envName = str({ re: SANDBOX_ENV_NAME_RE });
const absPath = str({ re: /^\/[A-Za-z0-9._/+-]{1,1023}$/ }).check(z.refine(REFINEMENTS.noDotDotSegment, { message: 'path' }));

export const egressCapsSchema = z.strictObject({
  /** Requests per run (also bounds the transcript in the receipt). */
  requests: int(1, EGRESS_MAX_REQUESTS),
  request_bytes: str({ re: SIZE_RE }),
  response_bytes: str({ re: SIZE_RE }),
  total_up: str({ re: SIZE_RE }),
  total_down: str({ re: SIZE_RE }),
  request_timeout: str({ re: DURATION_RE }),
  connections: int(1, EGRESS_MAX_CONNECTIONS),
});

/** A model name as the policy allows it and the egress receipt records it. */
const modelName = str({ re: /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/ });

export const egressPolicySchema = z.strictObject({
  provider: z.enum(EGRESS_PROVIDERS),
  model: modelName,
  host: egressHost,
  port: int(1, 65535),
  /** `tls`: HTTPS with the system trust store (or `ca_file`); `plain-loopback`: HTTP to a loopback address only. */
  transport: z.enum(['tls', 'plain-loopback']),
  /** A pinned CA certificate (PEM) for a self-hosted TLS gateway: path and sha256 of its bytes. */
  ca: z.optional(z.strictObject({ file: absPath, sha256: hex64 })),
  /** TLS to an endpoint whose name resolves to loopback (a local gateway); refused otherwise. */
  allow_loopback: z.optional(z.boolean()),
  routes: list(z.strictObject({ method: z.literal('POST'), path: routePath }), 1, EGRESS_MAX_ROUTES),
  credential: z.union([z.strictObject({ env: envName }), z.strictObject({ file: absPath })]),
  /** The pinned broker program (runner/egress/broker.mjs) the runner may start. */
  broker_sha256: list(hex64, 1, 16),
  caps: egressCapsSchema,
  /** The reviewer speaks TCP only (a hosted CLI): run it behind the pinned in-sandbox relay
   * (runner/egress/relay.mjs) under the relay profile (docs/egress.md#the-in-sandbox-relay). */
  relay: z.optional(
    z.strictObject({
      sha256: list(hex64, 1, 16),
      /** TLS-terminating mode (docs/egress.md#tls-terminating-mode): for clients that honour only
       * HTTPS_PROXY. A per-run CA that only this sandbox trusts; the broker ends the client's TLS for
       * CONNECT to exactly host:port and re-originates it to the endpoint. Absent: CONNECT refused. */
      terminate: z.optional(z.boolean()),
    }),
  ),
});
export type EgressPolicy = z.infer<typeof egressPolicySchema>;

export const egressRecordSchema = z.strictObject({
  seq: count,
  prev: digestString,
  at_ms: count,
  outcome: z.enum(EGRESS_OUTCOMES),
  method: z.enum(RECORD_METHODS),
  route: z.nullable(int(0, EGRESS_MAX_ROUTES - 1)),
  request: z.strictObject({ sha256: z.nullable(hex64), bytes: count }),
  response: z.strictObject({ status: z.nullable(int(100, 599)), sha256: z.nullable(hex64), bytes: count }),
  upstream_cert_sha256: z.nullable(hex64),
  /** The request came through a terminated CONNECT tunnel (docs/egress.md#tls-terminating-mode). */
  tunnel: z.optional(z.literal(true)),
});

/** One record as the broker prints it (runner/egress/host.ts): the transcript record before the
 * runner numbers and chains it (`seq`, `prev`). */
export const egressBrokerRecordSchema = z.omit(egressRecordSchema, { seq: true, prev: true });

/** The receipt's `egress` section (present only for a reviewer with an egress entry). */
export const egressReceiptSchema = z.strictObject({
  /** digestOf(the reviewer's egress policy entry). */
  policy_digest: digestString,
  provider: z.enum(EGRESS_PROVIDERS),
  model: modelName,
  host: egressHost,
  port: int(1, 65535),
  transport: z.enum(['tls', 'plain-loopback']),
  broker_sha256: hex64,
  /** The relay's sha256, when the reviewer ran behind the in-sandbox relay. */
  relay_sha256: z.optional(hex64),
  /** TLS-terminating mode only: sha256 of the run CA certificate's DER (the one certificate the
   * sandbox trusted; its key was deleted once it had signed the leaf for the policy host). */
  terminate_ca_sha256: z.optional(hex64),
  transcript: z.strictObject({
    head: digestString,
    records: list(egressRecordSchema, 0, EGRESS_MAX_REQUESTS),
    requests: count,
    refused: count,
    bytes_up: count,
    bytes_down: count,
  }),
});
export type EgressReceipt = z.infer<typeof egressReceiptSchema>;
