import { generateKeyPairSync, sign } from 'node:crypto';
import { contentDigest, signatureBase, signatureHeaders } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { verifyWebhookDelivery } from './webhook-verify.ts';

const URL_ = 'https://hooks.example.com/vellum';
const NOW = new Date('2026-05-01T12:00:00.000Z');

/** A delivery signed the way Vellum signs (RFC 9421 over the components docs/decisions.md "Webhooks" lists, Ed25519). */
async function signedDelivery(over: { created?: number; kid?: string; alg?: string } = {}) {
  const pair = generateKeyPairSync('ed25519');
  const jwk = pair.publicKey.export({ format: 'jwk' });
  const kid = over.kid ?? 'key-1';
  const body = JSON.stringify({ deliveryId: 'd-1', event: { type: 'OpenIdCredentialIssued' } });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-digest': await contentDigest(new TextEncoder().encode(body)),
    'webhook-id': 'd-1',
    'webhook-event-type': 'OpenIdCredentialIssued',
  };
  const params = { keyId: kid, created: over.created ?? NOW.getTime() / 1000 };
  const base = signatureBase({ method: 'POST', targetUri: URL_, headers }, params);
  const signed = signatureHeaders(sign(null, Buffer.from(base), pair.privateKey).toString('base64'), params);
  if (over.alg) signed['signature-input'] = signed['signature-input'].replace('alg="ed25519"', `alg="${over.alg}"`);
  return { body, headers: { ...headers, ...signed }, jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid, alg: 'EdDSA', use: 'sig' }] } };
}

describe('verifyWebhookDelivery (for receivers; RFC 9421, RFC 9530)', () => {
  it('accepts a delivery as Vellum signs it, with header names in any case', async () => {
    const d = await signedDelivery();
    const upper = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toUpperCase(), v]));
    for (const headers of [d.headers, upper]) {
      expect(verifyWebhookDelivery({ method: 'POST', url: URL_, headers, body: d.body, jwks: d.jwks, now: NOW })).toEqual({
        ok: true,
        keyId: 'key-1',
        deliveryId: 'd-1',
        eventType: 'OpenIdCredentialIssued',
        created: NOW,
      });
    }
    expect(verifyWebhookDelivery({ method: 'POST', url: URL_, headers: d.headers, body: new TextEncoder().encode(d.body), jwks: d.jwks, now: NOW }).ok).toBe(
      true,
    );
  });

  it.each([
    ['a changed body', (d: Awaited<ReturnType<typeof signedDelivery>>) => ({ body: d.body.replace('d-1', 'd-2') }), 'The body does not match Content-Digest'],
    [
      'a changed Webhook-Id',
      (d: Awaited<ReturnType<typeof signedDelivery>>) => ({ headers: { ...d.headers, 'webhook-id': 'd-2' } }),
      'The signature does not verify',
    ],
    ['another URL', () => ({ url: 'https://hooks.example.com/other' }), 'The signature does not verify'],
    ['a key not in the JWKS', () => ({ jwks: { keys: [] } }), 'No signature with a key from the JWKS'],
    [
      'no signature',
      (d: Awaited<ReturnType<typeof signedDelivery>>) => ({ headers: { ...d.headers, signature: undefined } }),
      'No Signature-Input or Signature header',
    ],
    ['no digest', (d: Awaited<ReturnType<typeof signedDelivery>>) => ({ headers: { ...d.headers, 'content-digest': undefined } }), 'No Content-Digest header'],
    ['an old signature', () => ({ now: new Date(NOW.getTime() + 301_000) }), 'The signature is too old, from the future, or has no created time'],
  ])('refuses %s', async (_name, change, reason) => {
    const d = await signedDelivery();
    const input = { method: 'POST', url: URL_, headers: d.headers as Record<string, string | undefined>, body: d.body, jwks: d.jwks, now: NOW, ...change(d) };
    expect(verifyWebhookDelivery(input)).toEqual({ ok: false, reason });
  });

  it('refuses another algorithm and malformed headers without throwing', async () => {
    const d = await signedDelivery({ alg: 'hmac-sha256' });
    expect(verifyWebhookDelivery({ method: 'POST', url: URL_, headers: d.headers, body: d.body, jwks: d.jwks, now: NOW })).toEqual({
      ok: false,
      reason: 'The signature is not alg="ed25519"',
    });
    const bad = verifyWebhookDelivery({
      method: 'POST',
      url: URL_,
      headers: { ...d.headers, 'signature-input': 'sig1=(' },
      body: d.body,
      jwks: d.jwks,
      now: NOW,
    });
    expect(bad).toMatchObject({ ok: false, reason: expect.stringMatching(/^Malformed signature headers/) });
  });
});
