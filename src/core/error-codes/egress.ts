// Error codes owned by the egress domain (docs/egress.md): the broker that lets a sandboxed model
// reviewer reach exactly one endpoint, and the run that uses it. Add entries here only.
//
// Exit-code choices (docs/commands.md#exit-codes): a reviewer that tried to leave its lane, a cap
// that fired, a broker that died or a truncated response all happen after the claim, so the run is
// recorded as ABORTED and the code exits 9 like every review failure; a missing or unsafe
// credential and a broker program that is not allowlisted are found before the claim where
// possible and are configuration errors (2), the same codes after the claim are ABORTED.
import { def, type ErrorDef } from './def.js';

export const EGRESS_ERRORS = {
  egress_credential_unavailable: def(2, 'The egress credential named by the policy is missing: the environment variable is unset or empty, or the file is not a regular file of mode 0600 owned by the runner. Nothing is recorded when found before the claim.'),
  egress_ca_invalid: def(2, "The egress entry's pinned CA file is missing or its sha256 differs from the policy's."),
  egress_broker_not_allowlisted: def(2, "The egress broker program is missing or its sha256 is not on the reviewer's egress.broker_sha256 allowlist."),
  egress_relay_not_allowlisted: def(2, "The in-sandbox relay program is missing or its sha256 is not on the reviewer's egress.relay.sha256 allowlist (checked again on the bytes streamed into the sandbox)."),
  egress_openssl_unavailable: def(2, "A TLS-terminating egress entry (relay.terminate) needs /usr/bin/openssl to make the run's CA, and it is missing or does not run. Found before the claim: nothing is recorded and the challenge stays unclaimed."),
  egress_broker_failed: def(9, 'The egress broker did not start, crashed, or reported something that is not its record format; the run was recorded as ABORTED.'),
  egress_target_refused: def(9, 'The reviewer asked the broker for another host, port or address (an absolute-form target; CONNECT to anything but the policy host:port in TLS-terminating mode, or any CONNECT without it); refused and recorded, the run ABORTED.'),
  egress_request_malformed: def(9, "A request to the broker (on its socket or inside a terminated CONNECT tunnel) was not well-formed HTTP/1.1 (a smuggling shape such as both Content-Length and Transfer-Encoding, a bad request line, an oversized head); refused, the connection closed, the run ABORTED."),
  egress_http2_refused: def(9, 'The reviewer spoke HTTP/2 to the broker: the HTTP/2 connection preface (prior knowledge) on its socket or inside a terminated tunnel, or a TLS client in a terminated tunnel that offered h2 by ALPN and not http/1.1. The broker speaks only HTTP/1.1; refused and recorded, the run ABORTED.'),
  egress_upgrade_refused: def(9, 'The reviewer asked for a protocol upgrade (WebSocket); refused, the run ABORTED.'),
  egress_host_mismatch: def(9, 'The Host header of a request named neither the gateway nor the policy endpoint, or, inside a terminated CONNECT tunnel, the TLS server name (SNI) or the Host header was not exactly the policy host; refused, the run ABORTED.'),
  egress_route_refused: def(9, "A request's method and path are not an exact route of the egress entry (or carried a query string); refused, the run ABORTED."),
  egress_phantom_invalid: def(9, "A request lacked the run's phantom token or carried another credential in its place; refused with 401, the run ABORTED."),
  egress_body_refused: def(9, 'A request body is not JSON, names another model, or uses a field outside the provider allowlist (server tools, MCP connectors, non-text content); refused, the run ABORTED.'),
  egress_cap_exceeded: def(9, 'An egress cap fired (request count, request size, total bytes, concurrent connections, per-request timeout or the deadline); the run was recorded as ABORTED.'),
  egress_address_refused: def(9, 'The endpoint name resolved only to addresses the entry may not dial (private, link-local, or loopback without allow_loopback; non-loopback for plain-loopback); nothing was sent, the run ABORTED.'),
  egress_upstream_failed: def(9, 'The endpoint could not be reached or its TLS certificate did not verify for the policy host; the run was recorded as ABORTED.'),
  egress_response_truncated: def(9, 'A response from the endpoint exceeded its cap and was cut off; the run was recorded as ABORTED.'),
} as const satisfies Record<string, ErrorDef>;

export const EGRESS_REASONS = {} as const satisfies Record<string, string>;
