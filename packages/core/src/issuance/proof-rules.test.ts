import { describe, expect, it } from 'vitest';
import { checkProofClaims, PROOF_TYP } from './proof-rules.ts';

const good = () => ({
  header: { typ: PROOF_TYP, alg: 'ES256', jwk: { kty: 'EC' } } as Record<string, unknown>,
  payload: { aud: 'https://i.example', iat: 1000, nonce: 'n1' } as Record<string, unknown>,
});
const expectations = { audience: 'https://i.example', now: 1000 };

describe('key proof claims (OpenID4VCI 1.0 §8.2.1.1)', () => {
  it('accepts a good proof and returns its nonce', () => {
    expect(checkProofClaims(good(), expectations)).toEqual({ nonce: 'n1' });
    const didKey = good();
    didKey.header = { typ: PROOF_TYP, alg: 'EdDSA', kid: 'did:key:z6Mk#z6Mk' };
    didKey.payload.aud = ['x', 'https://i.example'];
    expect(checkProofClaims(didKey, expectations)).toEqual({ nonce: 'n1' });
  });

  it.each([
    ['a wrong typ', (p: ReturnType<typeof good>) => (p.header.typ = 'JWT'), 'invalid_proof'],
    ['an unaccepted alg', (p: ReturnType<typeof good>) => (p.header.alg = 'HS256'), 'invalid_proof'],
    ['no key', (p: ReturnType<typeof good>) => delete p.header.jwk, 'invalid_proof'],
    ['two keys', (p: ReturnType<typeof good>) => (p.header.kid = 'did:key:z'), 'invalid_proof'],
    ['x5c', (p: ReturnType<typeof good>) => (p.header.x5c = ['MII']), 'invalid_proof'],
    ['another audience', (p: ReturnType<typeof good>) => (p.payload.aud = 'https://other.example'), 'invalid_proof'],
    ['no iat', (p: ReturnType<typeof good>) => delete p.payload.iat, 'invalid_proof'],
    ['an old iat', (p: ReturnType<typeof good>) => (p.payload.iat = 699), 'invalid_proof'],
    ['a future iat', (p: ReturnType<typeof good>) => (p.payload.iat = 1061), 'invalid_proof'],
    // OpenID4VCI 1.0 §8.3.1.2: a key proof without a c_nonce is invalid_proof.
    ['no nonce', (p: ReturnType<typeof good>) => delete p.payload.nonce, 'invalid_proof'],
  ])('refuses %s', (_name, spoil, oauthError) => {
    const proof = good();
    spoil(proof);
    expect(() => checkProofClaims(proof, expectations)).toThrow(expect.objectContaining({ code: 'BadRequest', oauthError }));
  });

  it('limits algorithms per configuration', () => {
    const proof = good();
    proof.header.alg = 'EdDSA';
    expect(() => checkProofClaims(proof, { ...expectations, algorithms: ['ES256'] })).toThrow(/ES256/);
  });
});
