import { describe, expect, it } from 'vitest';
import type { KeyAttestationRequirement } from '../configurations/model.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { JwtProofVerifier } from '../oauth/jwt-proofs.ts';
import { checkKeyAttestation, type KeyAttestationTrust, keyAttestationRules, verifyKeyAttestation } from './key-attestation.ts';

// The port is faked: a "JWT" here is its header and payload as JSON, trusted when it names a root
// the requirement lists. Signatures and chains are the adapter's, tested in @vellum/crypto and
// against wallet libraries in tools/interop.
const encode = (header: Record<string, unknown>, payload: Record<string, unknown>) => JSON.stringify({ header, payload });
const verifier: JwtProofVerifier = {
  async verifySelfSigned() {
    throw new Error('not used');
  },
  async verifyWithKey() {
    throw new Error('not used');
  },
  async verifyWithX5c(jwt, roots) {
    const { header, payload } = JSON.parse(jwt) as { header: Record<string, unknown>; payload: Record<string, unknown> };
    return roots.includes(header.root as string) ? { ok: true, header, payload } : { ok: false, reason: 'The chain does not lead to a trusted root' };
  },
  thumbprint(jwk) {
    const j = jwk as Record<string, unknown> | undefined;
    return typeof j?.x === 'string' ? `thumb-${j.x}` : undefined;
  },
};

const NOW = new Date('2026-11-26T12:00:00Z');
const now = NOW.getTime() / 1000;
const holderKey: PublicJwk = { kty: 'EC', crv: 'P-256', x: 'holder', y: 'y' };
const otherKey: PublicJwk = { kty: 'EC', crv: 'P-256', x: 'other', y: 'y' };
const requirement: KeyAttestationRequirement = {
  keyStorage: ['iso_18045_high', 'iso_18045_moderate'],
  userAuthentication: ['iso_18045_high'],
  rootCertificates: ['root-a'],
};

function attestation(over: { header?: Record<string, unknown>; payload?: Record<string, unknown> } = {}) {
  return encode(
    { typ: 'key-attestation+jwt', alg: 'ES256', root: 'root-a', ...over.header },
    {
      iat: now - 10,
      exp: now + 600,
      attested_keys: [otherKey, holderKey],
      key_storage: ['iso_18045_moderate'],
      user_authentication: ['iso_18045_high'],
      ...over.payload,
    },
  );
}
const check = (keyAttestation: unknown, req = requirement) =>
  checkKeyAttestation(verifier, keyAttestationRules(verifier, req, undefined, { tenantId: 't' }) as NonNullable<ReturnType<typeof keyAttestationRules>>, {
    proofHeader: { typ: 'openid4vci-proof+jwt', key_attestation: keyAttestation },
    holderKey,
    proofNonce: 'c-nonce',
    now: NOW,
  });

describe('key attestations in key proofs (OpenID4VCI 1.0 App. D)', () => {
  it('accepts an attestation from a trusted root that attests the proof key at an accepted level', async () => {
    await expect(check(attestation())).resolves.toBeUndefined();
    // The drafts' spelling of the type, which wallets built on them still send.
    await expect(check(attestation({ header: { typ: 'keyattestation+jwt' } }))).resolves.toBeUndefined();
    await expect(check(attestation({ payload: { nonce: 'c-nonce' } }))).resolves.toBeUndefined();
    // No levels required: any attested key from a trusted root will do.
    await expect(
      check(attestation({ payload: { key_storage: undefined, user_authentication: undefined } }), { rootCertificates: ['root-a'] }),
    ).resolves.toBeUndefined();
  });

  it.each([
    ['no key_attestation header', undefined, /requires a key attestation/],
    ['a key_attestation that is not a string', { jwt: 'x' }, /must be a compact JWT/],
    ['an untrusted root', attestation({ header: { root: 'root-b' } }), /not valid: The chain does not lead to a trusted root/],
    ['another typ', attestation({ header: { typ: 'JWT' } }), /typ key-attestation\+jwt/],
    ['no iat', attestation({ payload: { iat: undefined } }), /iat/],
    ['an iat in the future', attestation({ payload: { iat: now + 120 } }), /iat/],
    ['no exp', attestation({ payload: { exp: undefined } }), /expired/],
    ['an exp in the past', attestation({ payload: { exp: now - 1 } }), /expired/],
    ['a nonce that is not the proof’s', attestation({ payload: { nonce: 'other' } }), /nonce/],
    ['no attested_keys', attestation({ payload: { attested_keys: [] } }), /attested_keys/],
    ['attested_keys without the proof key', attestation({ payload: { attested_keys: [otherKey] } }), /not signed with one of the key attestation/],
    [
      'a key_storage level not accepted',
      attestation({ payload: { key_storage: ['iso_18045_basic'] } }),
      /key_storage must include one of iso_18045_high, iso_18045_moderate/,
    ],
    ['no key_storage', attestation({ payload: { key_storage: undefined } }), /key_storage/],
    [
      'a user_authentication level not accepted',
      attestation({ payload: { user_authentication: ['iso_18045_moderate'] } }),
      /user_authentication must include one of iso_18045_high/,
    ],
  ])('refuses %s as invalid_proof', async (_name, keyAttestation, message) => {
    const refused = check(keyAttestation);
    await expect(refused).rejects.toMatchObject({ code: 'BadRequest', oauthError: 'invalid_proof' });
    await expect(refused).rejects.toThrow(message);
  });
});

describe('one verification of a key attestation, its trust step passed in (OpenID4VCI 1.0 App. D, F.3; issue 30)', () => {
  /** A trust step other than the configured roots: what a tenant's trusted wallet providers will plug in. */
  const seen: Array<{ algorithms: readonly string[]; at: Date }> = [];
  const trust: KeyAttestationTrust = async (jwt, options) => {
    seen.push(options);
    const { header, payload } = JSON.parse(jwt) as { header: Record<string, unknown>; payload: Record<string, unknown> };
    return header.root === 'provider-x' ? { ok: true, header, payload } : { ok: false, reason: 'The wallet provider is not trusted' };
  };
  const verify = (jwt: string, use: 'jwt-proof' | 'attestation-proof') =>
    verifyKeyAttestation(jwt, { rules: { trust, levels: [requirement] }, use, proofNonce: 'c-nonce', now: NOW });

  it('as the proof itself: needs a nonce (returned), takes no exp, and returns every attested key; the trust step sees the algorithms and the time', async () => {
    const jwt = attestation({ header: { root: 'provider-x' }, payload: { exp: undefined, nonce: 'n-1' } });
    await expect(verify(jwt, 'attestation-proof')).resolves.toEqual({ attestedKeys: [otherKey, holderKey], nonce: 'n-1' });
    expect(seen.at(-1)).toEqual({ algorithms: ['ES256', 'EdDSA'], at: NOW });
    // In a jwt proof the same attestation needs an exp.
    await expect(verify(jwt, 'jwt-proof')).rejects.toThrow(/expired/);
  });

  it.each([
    ['no nonce', attestation({ header: { root: 'provider-x' }, payload: { exp: undefined } }), /carries no nonce/],
    ['an exp in the past', attestation({ header: { root: 'provider-x' }, payload: { exp: now - 1, nonce: 'n-1' } }), /expired/],
    ['a provider the trust step refuses', attestation({ payload: { nonce: 'n-1' } }), /not trusted/],
  ])('as the proof itself, refuses %s as invalid_proof', async (_name, jwt, message) => {
    const refused = verify(jwt, 'attestation-proof');
    await expect(refused).rejects.toMatchObject({ code: 'BadRequest', oauthError: 'invalid_proof' });
    await expect(refused).rejects.toThrow(message);
  });
});
