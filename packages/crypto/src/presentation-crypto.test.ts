// direct_post.jwt (OpenID4VP 1.0 §8.3): a session's ephemeral key decrypts what a wallet encrypted to
// its public JWK with ECDH-ES and A128GCM or A256GCM, and nothing else.
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPresentationCrypto } from './presentation-crypto.ts';

const crypto = createPresentationCrypto();
const ENC = ['A128GCM', 'A256GCM'] as const;

async function encryptTo(publicJwk: Record<string, unknown>, payload: unknown, header: Record<string, unknown> = {}) {
  const key = await importJWK(publicJwk as JWK, 'ECDH-ES');
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: publicJwk.kid as string, ...header })
    .encrypt(key);
}

describe('createPresentationCrypto', () => {
  it('makes a fresh P-256 key each time, public JWK with kid (its thumbprint), use enc and alg ECDH-ES, and no private member', async () => {
    const a = await crypto.generateKey();
    const b = await crypto.generateKey();
    expect(a.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES', kid: expect.any(String) });
    expect(a.publicJwk).not.toHaveProperty('d');
    expect(a.publicJwk.kid).not.toBe(b.publicJwk.kid);
    expect(JSON.parse(a.privateJwk)).toHaveProperty('d');
  });

  it('decrypts a JWE to the key with A128GCM and A256GCM', async () => {
    const { publicJwk, privateJwk } = await crypto.generateKey();
    for (const enc of ENC) {
      const jwe = await encryptTo(publicJwk, { state: 's', vp_token: { pid: ['x'] } }, { enc });
      expect(await crypto.decrypt(jwe, privateJwk, ENC)).toEqual({ payload: { state: 's', vp_token: { pid: ['x'] } } });
    }
  });

  it('refuses another key, an enc not offered, a payload that is not an object, and garbage, with a reason; never throws', async () => {
    const mine = await crypto.generateKey();
    const other = await crypto.generateKey();
    expect(await crypto.decrypt(await encryptTo(other.publicJwk, {}), mine.privateJwk, ENC)).toEqual({ reason: 'It does not decrypt with this session’s key' });
    expect(await crypto.decrypt(await encryptTo(mine.publicJwk, {}, { enc: 'A256GCM' }), mine.privateJwk, ['A128GCM'])).toEqual({
      reason: 'enc must be one of A128GCM',
    });
    expect(await crypto.decrypt(await encryptTo(mine.publicJwk, [1]), mine.privateJwk, ENC)).toEqual({ reason: 'The payload is not a JSON object' });
    expect(await crypto.decrypt('a.b.c.d.e', mine.privateJwk, ENC)).toEqual({ reason: 'Not a compact JWE' });
    expect(await crypto.decrypt('nope', mine.privateJwk, ENC)).toEqual({ reason: 'Not a compact JWE' });
  });

  it('sha256 hashes raw bytes', () => {
    expect(Buffer.from(crypto.sha256(new Uint8Array())).toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
