import { createHash, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject, sign, verify } from 'node:crypto';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createSdJwtFormat, type PublicJwk, type SdJwtConfiguration, type Tenant } from '@vellum/core';
import { addDidKey, resolveDidKey } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { memoryKeyManager, SD_JWT_SUBJECT, sdJwtConfiguration } from '../../test/fixtures.ts';
import { createSdJwtSigner } from './signer.ts';

// The core's dc+sd-jwt handler with the real signer and KeyManager over the memory store. The
// credential is read back only with @sd-jwt/sd-jwt-vc and node:crypto, and the issuer key is found
// the way a verifier would: from the DID in the header's kid, decoded here (W3C CCG did:key).

const NOW = new Date('2026-05-01T12:00:00.250Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);

/** The P-256 public key a did:key names, by a resolver written apart from the core's. */
function resolveP256DidKey(did: string): PublicJwk {
  const jwk = resolveDidKey(did);
  expect(jwk.crv).toBe('P-256');
  return jwk;
}

const sha256 = (data: string | ArrayBuffer) =>
  createHash('sha256')
    .update(typeof data === 'string' ? data : new Uint8Array(data))
    .digest();
const es256Verify = (publicJwk: PublicJwk, data: string, signature: string) =>
  verify(
    'sha256',
    Buffer.from(data),
    { key: createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );

/** @sd-jwt/sd-jwt-vc, told to trust `issuerJwk` for the Issuer-signed JWT and the `cnf.jwk` for Key Binding. */
function library(issuerJwk: PublicJwk, holder?: KeyObject) {
  return new SDJwtVcInstance({
    hasher: sha256,
    verifier: (data, signature) => es256Verify(issuerJwk, data, signature),
    kbVerifier: (data, signature, payload) => es256Verify((payload.cnf as { jwk: PublicJwk }).jwk, data, signature),
    ...(holder
      ? { kbSignAlg: 'ES256', kbSigner: (data: string) => sign('sha256', Buffer.from(data), { key: holder, dsaEncoding: 'ieee-p1363' }).toString('base64url') }
      : {}),
  });
}

const decodeJson = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

async function setup() {
  const { store, keys, tenant } = await memoryKeyManager();
  // A did:key as the DID service makes one (docs/decisions.md "DIDs"), over a KeyManager P-256 key.
  const record = await addDidKey(store, keys, tenant.id, 'P-256', NOW.toISOString());
  const handler = createSdJwtFormat({ store, signer: createSdJwtSigner({ keys }) });
  const holder = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = holder.publicKey.export({ format: 'jwk' });
  const holderKey: PublicJwk = { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
  return { store, keys, tenant, record, handler, holder, holderKey };
}

const CLAIMS = ['given_name', 'family_name', 'birthdate', 'nationalities', 'address', 'age_over_18', 'issuing_country'];

async function issue(s: Awaited<ReturnType<typeof setup>>, tenant: Tenant, configuration: SdJwtConfiguration) {
  return s.handler.issue({
    tenant,
    configuration,
    subject: SD_JWT_SUBJECT,
    holderKey: s.holderKey,
    credentialIssuer: 'https://acme.eu01.vellum.example',
    now: NOW,
    form: 'current',
  });
}

/** The issuer key as a verifier finds it: `iss` is a did:key, and the header's kid is a key of that DID. */
function issuerKeyOf(compact: string): PublicJwk {
  const [header, payload] = compact.split('~')[0]!.split('.') as [string, string];
  const { kid } = decodeJson(header) as { kid: string };
  const { iss } = decodeJson(payload) as { iss: string };
  expect(kid.startsWith(`${iss}#`)).toBe(true);
  return resolveP256DidKey(iss);
}

describe('dc+sd-jwt issuance: createSdJwtFormat with the real signer, verified by @sd-jwt/sd-jwt-vc', () => {
  it('issues an SD-JWT VC whose Issuer is the tenant’s DID, bound to the holder key, every claim disclosable by default', async () => {
    const s = await setup();
    const issued = await issue(s, s.tenant, sdJwtConfiguration(s.tenant.id));
    const compact = issued.credential as string;

    const issuerJwk = issuerKeyOf(compact);
    expect(issuerJwk).toEqual(s.record.keys[0]!.publicJwk);
    const verified = await library(issuerJwk).verify(compact, { currentDate: NOW_S, requiredClaimKeys: CLAIMS });
    expect(verified.header).toEqual({ typ: 'dc+sd-jwt', alg: 'ES256', kid: s.record.keys[0]!.didDocumentKeyId });
    const payload = verified.payload as Record<string, unknown>;
    expect(payload).toMatchObject({
      iss: s.record.did,
      vct: 'https://credentials.example.com/pid',
      cnf: { jwk: s.holderKey },
      iat: NOW_S,
      nbf: NOW_S,
      exp: NOW_S + 30 * 86_400,
      given_name: 'Erika',
      family_name: 'Mustermann',
      birthdate: '1964-08-12',
      nationalities: ['DE'],
      address: SD_JWT_SUBJECT.claims.address,
      age_over_18: true,
      issuing_country: 'DE',
    });
    expect(issued.validFrom).toBe(new Date(NOW_S * 1000).toISOString());
    expect(issued.validUntil).toBe(new Date((NOW_S + 30 * 86_400) * 1000).toISOString());

    // All seven claims are Disclosures; the signed payload shows none of them.
    const [jwt, ...rest] = compact.split('~');
    expect(rest.at(-1)).toBe('');
    expect(rest.slice(0, -1)).toHaveLength(7);
    const raw = decodeJson(jwt!.split('.')[1]!);
    for (const name of CLAIMS) expect(raw).not.toHaveProperty(name);
    expect(raw._sd as string[]).toHaveLength(7);
    expect(raw._sd_alg).toBe('sha-256');
    expect((await library(issuerJwk).presentableKeys(compact)).sort()).toEqual([...CLAIMS].sort());
  });

  it('keeps the claims selectivelyDisclosable does not name plain in the signed payload', async () => {
    const s = await setup();
    const issued = await issue(s, s.tenant, sdJwtConfiguration(s.tenant.id, { selectivelyDisclosable: ['birthdate', 'address'] }));
    const compact = issued.credential as string;
    const raw = decodeJson(compact.split('~')[0]!.split('.')[1]!);
    expect(raw).toMatchObject({ given_name: 'Erika', family_name: 'Mustermann', nationalities: ['DE'], age_over_18: true, issuing_country: 'DE' });
    expect(raw).not.toHaveProperty('birthdate');
    expect(raw).not.toHaveProperty('address');
    expect((await library(issuerKeyOf(compact)).presentableKeys(compact)).sort()).toEqual(['address', 'birthdate']);
  });

  it('lets the holder present a subset with a Key Binding JWT signed by the cnf key (RFC 9901 §4.3), which the library accepts', async () => {
    const s = await setup();
    const compact = (await issue(s, s.tenant, sdJwtConfiguration(s.tenant.id))).credential as string;
    const issuerJwk = issuerKeyOf(compact);
    const wallet = library(issuerJwk, s.holder.privateKey);
    const presentation = await wallet.present(
      compact,
      { age_over_18: true, issuing_country: true },
      { kb: { payload: { iat: NOW_S, aud: 'https://verifier.example', nonce: 'n-0S6_WzA2Mj' } } },
    );

    const verified = await library(issuerJwk).verify(presentation, { currentDate: NOW_S, keyBindingNonce: 'n-0S6_WzA2Mj' });
    const payload = verified.payload as Record<string, unknown>;
    expect(payload.age_over_18).toBe(true);
    expect(payload.issuing_country).toBe('DE');
    for (const hidden of ['given_name', 'family_name', 'birthdate', 'address', 'nationalities']) expect(payload).not.toHaveProperty(hidden);
    expect(verified.kb?.payload.aud).toBe('https://verifier.example');

    // A Key Binding JWT from any other key is refused: the credential is bound to the holder's.
    const stranger = library(issuerJwk, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    const stolen = await stranger.present(compact, { age_over_18: true }, { kb: { payload: { iat: NOW_S, aud: 'https://verifier.example', nonce: 'n-1' } } });
    await expect(library(issuerJwk).verify(stolen, { currentDate: NOW_S, keyBindingNonce: 'n-1' })).rejects.toThrow(/Invalid JWT Signature/);
  });

  it('is refused by the library once expired (exp, RFC 7519 §4.1.4)', async () => {
    const s = await setup();
    const compact = (await issue(s, s.tenant, sdJwtConfiguration(s.tenant.id, { expiresIn: { hours: 1 } }))).credential as string;
    const lib = library(issuerKeyOf(compact));
    await lib.verify(compact, { currentDate: NOW_S + 3599 });
    await expect(lib.verify(compact, { currentDate: NOW_S + 3601 })).rejects.toThrow(/expired/);
  });

  describe('a one-byte tamper fails verification (RFC 9901 §7.1)', () => {
    async function issued() {
      const s = await setup();
      const compact = (await issue(s, s.tenant, sdJwtConfiguration(s.tenant.id, { selectivelyDisclosable: ['birthdate', 'address'] }))).credential as string;
      const lib = library(issuerKeyOf(compact));
      await lib.verify(compact, { currentDate: NOW_S, requiredClaimKeys: CLAIMS });
      const [jwt, ...rest] = compact.split('~');
      const [header, payload, signature] = jwt!.split('.') as [string, string, string];
      return { lib, header, payload, signature, disclosures: rest.slice(0, -1) };
    }
    const flip = (part: string, at: (bytes: Buffer) => number, to: string) => {
      const bytes = Buffer.from(part, 'base64url');
      const i = at(bytes);
      expect(i).toBeGreaterThanOrEqual(0);
      bytes[i] = to.charCodeAt(0);
      return bytes.toString('base64url');
    };

    it('in the signed payload (a plain claim)', async () => {
      const { lib, header, payload, signature, disclosures } = await issued();
      const forged = flip(payload, (b) => b.indexOf('Erika'), 'U');
      expect(decodeJson(forged).given_name).toBe('Urika');
      await expect(lib.verify([`${header}.${forged}.${signature}`, ...disclosures, ''].join('~'), { currentDate: NOW_S })).rejects.toThrow(
        /Invalid JWT Signature/,
      );
    });

    it('in the signature', async () => {
      const { lib, header, payload, signature, disclosures } = await issued();
      const bytes = Buffer.from(signature, 'base64url');
      bytes[40] = bytes[40]! ^ 0x80;
      const forged = bytes.toString('base64url');
      await expect(lib.verify([`${header}.${payload}.${forged}`, ...disclosures, ''].join('~'), { currentDate: NOW_S })).rejects.toThrow(
        /Invalid JWT Signature/,
      );
    });

    it('in a Disclosure: the changed value is not accepted', async () => {
      const { lib, header, payload, signature, disclosures } = await issued();
      const index = disclosures.findIndex((d) => (JSON.parse(Buffer.from(d, 'base64url').toString()) as unknown[])[1] === 'birthdate');
      const forged = flip(disclosures[index]!, (b) => b.indexOf('1964'), '2');
      expect((JSON.parse(Buffer.from(forged, 'base64url').toString()) as unknown[])[2]).toBe('2964-08-12');
      const presented = [`${header}.${payload}.${signature}`, ...disclosures.map((d, i) => (i === index ? forged : d)), ''].join('~');
      // The library drops a Disclosure whose digest the payload does not list rather than throwing,
      // so the verifier asks for the claims it needs (RFC 9901 §7.1 has it reject the whole SD-JWT).
      await expect(lib.verify(presented, { currentDate: NOW_S, requiredClaimKeys: CLAIMS })).rejects.toThrow(/Missing required claim keys: birthdate/);
      expect((await lib.verify(presented, { currentDate: NOW_S })).payload).not.toHaveProperty('birthdate');
    });
  });
});
