import { createHash, createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { DomainError, type KeyAlgorithm, type PublicJwk, type SdJwtSignInput } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { holderKey, memoryKeyManager } from '../../test/fixtures.ts';
import { createSdJwtSigner } from './signer.ts';

// Everything below reads and checks the credential with @sd-jwt/sd-jwt-vc and node:crypto; the
// signer's own hasher and encoders are never used to verify.

const NOW = Math.floor(Date.parse('2026-03-01T12:00:00Z') / 1000);

async function setup(algorithm: KeyAlgorithm) {
  const { keys, tenant } = await memoryKeyManager();
  const key = await keys.create(tenant.id, algorithm);
  return { keys, tenant, key, signer: createSdJwtSigner({ keys }) };
}

/** An SD-JWT VC verifier from @sd-jwt/sd-jwt-vc whose signature check is node:crypto against `publicJwk`. */
function verifierFor(publicJwk: PublicJwk) {
  const key = createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' });
  return new SDJwtVcInstance({
    hasher: (data, alg) => {
      expect(alg).toBe('sha-256');
      return createHash('sha256')
        .update(typeof data === 'string' ? data : new Uint8Array(data))
        .digest();
    },
    verifier: (data, signature) => {
      const bytes = Buffer.from(signature, 'base64url');
      return publicJwk.crv === 'Ed25519'
        ? verify(null, Buffer.from(data), key, bytes)
        : verify('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }, bytes);
    },
  });
}

const decodeJson = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;

function split(compact: string) {
  const [jwt, ...rest] = compact.split('~');
  const [header, payload, signature] = (jwt as string).split('.') as [string, string, string];
  return { jwt: jwt as string, header, payload, signature, disclosures: rest.slice(0, -1), keyBinding: rest.at(-1) };
}

const DID = 'did:key:zDnaeTestIssuer';
const claims = {
  given_name: 'Zoë',
  family_name: 'Müller',
  birthdate: '1990-05-15',
  age_over_18: true,
  address: { locality: 'Köln', country: 'DE' },
  member_since: 2019,
};

function inputOf(keyId: string, tenantId: string, alg: 'ES256' | 'EdDSA', cnf: PublicJwk, over: Partial<SdJwtSignInput> = {}): SdJwtSignInput {
  return {
    tenantId,
    keyId,
    alg,
    kid: `${DID}#zDnaeTestIssuer`,
    payload: { iss: DID, iat: NOW, nbf: NOW, exp: NOW + 86_400, vct: 'https://credentials.example.com/identity', cnf: { jwk: cnf }, ...claims },
    disclosable: ['given_name', 'family_name', 'birthdate', 'address'],
    ...over,
  };
}

describe('createSdJwtSigner (draft-ietf-oauth-sd-jwt-vc §3, RFC 9901 §4)', () => {
  for (const [algorithm, alg] of [
    ['P-256', 'ES256'],
    ['Ed25519', 'EdDSA'],
  ] as const) {
    it(`issues an SD-JWT VC signed with a KeyManager ${algorithm} key that @sd-jwt/sd-jwt-vc verifies (${alg})`, async () => {
      const { signer, key, tenant } = await setup(algorithm);
      const cnf = holderKey();
      const input = inputOf(key.id, tenant.id, alg, cnf);
      const compact = await signer.issue(input);

      const verified = await verifierFor(key.publicJwk).verify(compact, { currentDate: NOW, requiredClaimKeys: Object.keys(claims) });
      expect(verified.header).toEqual({ typ: 'dc+sd-jwt', alg, kid: input.kid });
      const payload = verified.payload as Record<string, unknown>;
      expect(payload.vct).toBe('https://credentials.example.com/identity');
      expect(payload.iss).toBe(DID);
      expect(payload.cnf).toEqual({ jwk: cnf });
      expect([payload.iat, payload.nbf, payload.exp]).toEqual([NOW, NOW, NOW + 86_400]);
      for (const [name, value] of Object.entries(claims)) expect(payload[name]).toEqual(value);

      // RFC 7515 compact JWS: the signature is the 64 raw bytes (r‖s for ES256, as RFC 7518 §3.4 says).
      expect(Buffer.from(split(compact).signature, 'base64url')).toHaveLength(64);
    });
  }

  it('puts the disclosable claims in Disclosures and only their digests in _sd; the others stay plain in the signed payload (RFC 9901 §4.2)', async () => {
    const { signer, key, tenant } = await setup('P-256');
    const compact = await signer.issue(inputOf(key.id, tenant.id, 'ES256', holderKey()));
    const parts = split(compact);
    expect(compact.endsWith('~')).toBe(true);
    expect(parts.keyBinding).toBe('');

    const raw = decodeJson(parts.payload) as Record<string, unknown>;
    expect(raw._sd_alg).toBe('sha-256');
    expect(raw.age_over_18).toBe(true);
    expect(raw.member_since).toBe(2019);
    for (const hidden of ['given_name', 'family_name', 'birthdate', 'address']) expect(raw).not.toHaveProperty(hidden);

    const disclosed = parts.disclosures.map((d) => ({ d, value: decodeJson(d) as [string, string, unknown] }));
    expect(disclosed.map(({ value }) => value[1]).sort()).toEqual(['address', 'birthdate', 'family_name', 'given_name']);
    for (const { value } of disclosed) {
      expect(value).toHaveLength(3);
      // RFC 9901 §9.3: 128 bits of salt, here 16 random bytes.
      expect(Buffer.from(value[0], 'base64url')).toHaveLength(16);
      expect(value[2]).toEqual(claims[value[1] as keyof typeof claims]);
    }
    // Each digest is SHA-256 over the Disclosure exactly as sent (RFC 9901 §4.2.3), computed here independently.
    const digests = disclosed.map(({ d }) => createHash('sha256').update(d).digest('base64url'));
    expect([...(raw._sd as string[])].sort()).toEqual(digests.sort());
    // RFC 9901 §4.2.4.1: the order of _sd must not give away the order of the claims; ours is sorted.
    expect(raw._sd).toEqual([...(raw._sd as string[])].sort());

    const library = verifierFor(key.publicJwk);
    expect((await library.presentableKeys(compact)).sort()).toEqual(['address', 'birthdate', 'family_name', 'given_name']);
  });

  it('draws fresh salts: the same payload issued again shares no salt and no digest, past the signer’s random pool too', async () => {
    const { signer, key, tenant } = await setup('P-256');
    const input = inputOf(key.id, tenant.id, 'ES256', holderKey());
    // 70 credentials of 4 Disclosures: 280 salts, more than one 4 KB draw of 256 salts.
    const issued = await Promise.all(Array.from({ length: 70 }, () => signer.issue(input)));
    const salts = issued.flatMap((c) => split(c).disclosures.map((d) => (decodeJson(d) as string[])[0] as string));
    expect(salts).toHaveLength(280);
    expect(new Set(salts).size).toBe(280);
    for (const s of salts) expect(Buffer.from(s, 'base64url')).toHaveLength(16);
    const digests = issued.flatMap((c) => (decodeJson(split(c).payload) as { _sd: string[] })._sd);
    expect(new Set(digests).size).toBe(280);
  });

  it('with nothing disclosable writes no _sd and no Disclosure (draft-ietf-oauth-sd-jwt-vc §3.2.2.4)', async () => {
    const { signer, key, tenant } = await setup('Ed25519');
    const compact = await signer.issue(inputOf(key.id, tenant.id, 'EdDSA', holderKey(), { disclosable: [] }));
    const parts = split(compact);
    expect(parts.disclosures).toEqual([]);
    expect(compact).toBe(`${parts.jwt}~`);
    expect(decodeJson(parts.payload)).not.toHaveProperty('_sd');
    const verified = await verifierFor(key.publicJwk).verify(compact, { currentDate: NOW });
    expect((verified.payload as Record<string, unknown>).given_name).toBe('Zoë');
  });

  it('refuses to disclose the claims an SD-JWT VC keeps signed (draft-ietf-oauth-sd-jwt-vc §3.2.2.2) and names missing from the payload', async () => {
    const { signer, key, tenant } = await setup('P-256');
    for (const name of ['iss', 'nbf', 'exp', 'cnf', 'vct', 'status']) {
      await expect(signer.issue(inputOf(key.id, tenant.id, 'ES256', holderKey(), { disclosable: [name] }))).rejects.toThrow(
        /may not be selectively disclosable/,
      );
    }
    await expect(signer.issue(inputOf(key.id, tenant.id, 'ES256', holderKey(), { disclosable: ['nickname'] }))).rejects.toThrow(/not in the payload/);
  });

  it('a destroyed key does not sign: the KeyManager’s NotFound comes through', async () => {
    const { signer, key, tenant, keys } = await setup('P-256');
    await keys.destroy(tenant.id, key.id);
    const failure = await signer.issue(inputOf(key.id, tenant.id, 'ES256', holderKey())).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DomainError);
    expect((failure as DomainError).code).toBe('NotFound');
  });

  describe('tampering (RFC 9901 §7.1): a one-byte change anywhere fails verification', () => {
    async function issued() {
      const { signer, key, tenant } = await setup('P-256');
      const compact = await signer.issue(inputOf(key.id, tenant.id, 'ES256', holderKey()));
      const library = verifierFor(key.publicJwk);
      // The untouched credential verifies, so each failure below is the tamper's doing.
      await library.verify(compact, { currentDate: NOW, requiredClaimKeys: Object.keys(claims) });
      return { compact, library, parts: split(compact) };
    }

    /** Changes one byte of the decoded part, keeping it valid JSON, and encodes it again. */
    function oneByte(part: string, from: string, to: string): string {
      const bytes = Buffer.from(part, 'base64url');
      const at = bytes.indexOf(from);
      expect(at).toBeGreaterThanOrEqual(0);
      bytes[at] = to.charCodeAt(0);
      return bytes.toString('base64url');
    }

    it('in the signed payload', async () => {
      const { library, parts } = await issued();
      // member_since 2019 → 8019: still valid JSON, a different claim.
      const payload = oneByte(parts.payload, '2019', '8');
      expect((decodeJson(payload) as Record<string, unknown>).member_since).toBe(8019);
      const forged = [`${parts.header}.${payload}.${parts.signature}`, ...parts.disclosures, ''].join('~');
      await expect(library.verify(forged, { currentDate: NOW })).rejects.toThrow(/Invalid JWT Signature/);
    });

    it('in the signature', async () => {
      const { library, parts } = await issued();
      const signature = Buffer.from(parts.signature, 'base64url');
      signature[10] = (signature[10] as number) ^ 0x01;
      const forged = [`${parts.header}.${parts.payload}.${signature.toString('base64url')}`, ...parts.disclosures, ''].join('~');
      await expect(library.verify(forged, { currentDate: NOW })).rejects.toThrow(/Invalid JWT Signature/);
    });

    it('in a Disclosure: its digest is no longer in _sd, so the claim it carried is not accepted', async () => {
      const { library, parts } = await issued();
      const index = parts.disclosures.findIndex((d) => (decodeJson(d) as unknown[])[1] === 'family_name');
      const tampered = oneByte(parts.disclosures[index] as string, 'Müller', 'N');
      expect((decodeJson(tampered) as unknown[])[2]).toBe('Nüller');
      const disclosures = parts.disclosures.map((d, i) => (i === index ? tampered : d));
      const forged = [parts.jwt, ...disclosures, ''].join('~');
      // @sd-jwt/sd-jwt-vc drops a Disclosure no digest refers to instead of throwing, so the verifier
      // asks for the claims it relies on, as RFC 9901 §7.1 step 5 expects it to reject the credential.
      await expect(library.verify(forged, { currentDate: NOW, requiredClaimKeys: Object.keys(claims) })).rejects.toThrow(
        /Missing required claim keys: family_name/,
      );
      const lenient = await library.verify(forged, { currentDate: NOW });
      expect(lenient.payload).not.toHaveProperty('family_name');
    });
  });

  it('the verifier used above is a real check: another key’s signature is refused', async () => {
    const { signer, key, tenant } = await setup('P-256');
    const other = await setup('P-256');
    const compact = await signer.issue(inputOf(key.id, tenant.id, 'ES256', holderKey()));
    await expect(verifierFor(other.key.publicJwk).verify(compact, { currentDate: NOW })).rejects.toThrow(/Invalid JWT Signature/);
  });
});
