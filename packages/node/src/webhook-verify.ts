// For receivers of Vellum webhooks: checks a delivery's Content-Digest (RFC 9530) and its HTTP
// Message Signature (RFC 9421, Ed25519) against the tenant's JWKS (GET /v1/webhooks/jwks).
import { createHash, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import { parseSignatureField, parseSignatureInput, receivedSignatureBase, SIGNED_COMPONENTS, type SignatureParamValue } from '@vellum/core';

export interface WebhookDeliveryToVerify {
  method: string;
  /** The full URL the delivery was sent to: the webhook's `url` as Vellum shows it. */
  url: string;
  /** The request's headers (any case; Node's `IncomingMessage.headers` will do). */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body, exactly as received. */
  body: Uint8Array | string;
  /** The tenant's JWKS, `{ keys: [...] }` from `GET /v1/webhooks/jwks`. */
  jwks: { keys: ReadonlyArray<Record<string, unknown>> };
  /** How old a signature may be, in seconds (default 300). */
  maxAgeSeconds?: number;
  /** The time to check against (default now). */
  now?: Date;
}

export type WebhookVerification = { ok: true; keyId: string; deliveryId: string; eventType: string; created: Date } | { ok: false; reason: string };

function header(headers: WebhookDeliveryToVerify['headers'], name: string): string | undefined {
  const direct = headers[name];
  const value = direct ?? Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(', ') : value;
}

const param = (params: Array<[string, SignatureParamValue]>, name: string) => params.find(([k]) => k === name)?.[1];

/**
 * Verifies a webhook delivery: the body matches `Content-Digest` (sha-256), and a signature whose
 * `keyid` is in the JWKS, with `alg="ed25519"`, covers `@method`, `@target-uri`, `content-type`,
 * `content-digest` and `webhook-id`, was created within `maxAgeSeconds`, and verifies. Never throws.
 */
export function verifyWebhookDelivery(input: WebhookDeliveryToVerify): WebhookVerification {
  try {
    const body =
      typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
    const digestHeader = header(input.headers, 'content-digest');
    if (!digestHeader) return { ok: false, reason: 'No Content-Digest header' };
    const sha256 = parseSignatureField(digestHeader).get('sha-256');
    if (!sha256) return { ok: false, reason: 'Content-Digest has no sha-256 digest' };
    const actual = createHash('sha256').update(body).digest();
    if (sha256.length !== actual.length || !timingSafeEqual(Buffer.from(sha256), actual))
      return { ok: false, reason: 'The body does not match Content-Digest' };

    const inputHeader = header(input.headers, 'signature-input');
    const signatureHeader = header(input.headers, 'signature');
    if (!inputHeader || !signatureHeader) return { ok: false, reason: 'No Signature-Input or Signature header' };
    const inputs = parseSignatureInput(inputHeader);
    const signatures = parseSignatureField(signatureHeader);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(input.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;

    const now = (input.now ?? new Date()).getTime() / 1000;
    const maxAge = input.maxAgeSeconds ?? 300;
    let reason = 'No signature with a key from the JWKS';
    for (const [label, parsed] of inputs) {
      const keyId = param(parsed.params, 'keyid');
      const jwk = input.jwks.keys.find((k) => k.kid === keyId);
      if (typeof keyId !== 'string' || !jwk) continue;
      if (param(parsed.params, 'alg') !== 'ed25519') {
        reason = 'The signature is not alg="ed25519"';
        continue;
      }
      const missing = SIGNED_COMPONENTS.filter((c) => !parsed.components.includes(c));
      if (missing.length > 0) {
        reason = `The signature does not cover ${missing.join(', ')}`;
        continue;
      }
      const created = param(parsed.params, 'created');
      if (typeof created !== 'number' || now - created > maxAge || created - now > 60) {
        reason = 'The signature is too old, from the future, or has no created time';
        continue;
      }
      const signature = signatures.get(label);
      if (!signature) {
        reason = `No Signature for ${label}`;
        continue;
      }
      const base = receivedSignatureBase({ method: input.method, targetUri: input.url, headers }, parsed);
      const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: String(jwk.x) }, format: 'jwk' });
      if (!verify(null, Buffer.from(base, 'utf8'), key, signature)) {
        reason = 'The signature does not verify';
        continue;
      }
      return { ok: true, keyId, deliveryId: headers['webhook-id'] ?? '', eventType: headers['webhook-event-type'] ?? '', created: new Date(created * 1000) };
    }
    return { ok: false, reason };
  } catch (error) {
    return { ok: false, reason: `Malformed signature headers: ${error instanceof Error ? error.message : String(error)}` };
  }
}
