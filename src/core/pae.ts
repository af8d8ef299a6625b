// DSSE Pre-Authentication Encoding (docs/formats.md#receipt). Zod-free, so the lean gate path
// and the attestor share the one implementation with src/core/dsse.ts.
/** PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body; LEN in ASCII decimal bytes. */
export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  const head = Buffer.from(`DSSEv1 ${type.length} `, 'utf8');
  const mid = Buffer.from(` ${payload.length} `, 'utf8');
  return Buffer.concat([head, type, mid, payload]);
}
