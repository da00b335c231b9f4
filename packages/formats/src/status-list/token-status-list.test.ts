import { createPublicKey, verify as verifySignature } from 'node:crypto';
import { Jwt } from '@sd-jwt/core';
import { getListFromStatusListJWT, StatusList } from '@sd-jwt/jwt-status-list';
import { DomainError, type PublicJwk, type TokenStatusListInput } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { memoryKeyManager } from '../../test/fixtures.ts';
import { expectEveryChangeRefused, inflateList } from '../../test/status-list.ts';
import { loadCoseTs } from '../cwt/independent-cose.ts';
import { createTokenStatusListSigner } from './token-status-list.ts';

// Tokens are written with cbor-x, node:zlib and hand-made JSON, and read back only with other
// code: the OpenWallet Foundation's @sd-jwt/jwt-status-list (with pako inside) and @sd-jwt/core's
// JWT parsing for the JWT form, node:crypto for its ES256 signature; @ldclabs/cose-ts (cborg,
// @noble/curves) and pako for the CWT form.
const cose = await loadCoseTs();

async function setup() {
  const { keys, tenant } = await memoryKeyManager();
  const key = await keys.create(tenant.id, 'P-256');
  const otherKey = await keys.create(tenant.id, 'P-256');
  const edKey = await keys.create(tenant.id, 'Ed25519');
  return { keys, tenantId: tenant.id, key, otherKey, edKey, signer: createTokenStatusListSigner({ keys }) };
}

const ctx = await setup();
const ISSUER = 'did:web:issuer.example';
const KID = 'did:web:issuer.example#key-1';
const URI = 'https://issuer.example/v2/credentials/compact/status-lists/6b0d1c2e-5f3a-4a8e-9d51-0c6f7e2a9b13/token';
const ISSUED = new Date('2026-03-01T12:00:00.750Z');
const EXPIRES = new Date('2026-03-02T12:00:00.250Z');
const IAT = Date.UTC(2026, 2, 1, 12) / 1000;
const EXP = Date.UTC(2026, 2, 2, 12) / 1000;
/** A time inside the token's validity, so no check depends on the clock. */
const DURING = IAT + 3600;

/** Packs one bit per entry as draft 14 §4.1 step 3 lays them out: entry i at bit i mod 8 of byte i div 8. */
function pack(size: number, invalid: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(Math.ceil(size / 8));
  for (const i of invalid) bytes[i >> 3] = (bytes[i >> 3] as number) | (1 << (i & 7));
  return bytes;
}

function input(over: Partial<TokenStatusListInput> = {}): TokenStatusListInput {
  return {
    tenantId: ctx.tenantId,
    form: 'jwt',
    keyId: ctx.key.id,
    kid: KID,
    issuer: ISSUER,
    uri: URI,
    issuedAt: ISSUED,
    expiresAt: EXPIRES,
    ttlSeconds: 43_200,
    statuses: pack(16, []),
    ...over,
  };
}

const jwtOf = async (over: Partial<TokenStatusListInput> = {}) => {
  const token = await ctx.signer.sign(input({ form: 'jwt', ...over }));
  expect(typeof token).toBe('string');
  return token as string;
};

const cwtOf = async (over: Partial<TokenStatusListInput> = {}) => {
  const token = await ctx.signer.sign(input({ form: 'cwt', ...over }));
  expect(token).toBeInstanceOf(Uint8Array);
  return token as Uint8Array;
};

/**
 * A relying party's check of the JWT form (draft 14 §8.3 step 3; RFC 7519 §7.2): @sd-jwt/core
 * splits and parses the compact JWS and checks iat and exp at a fixed time; node:crypto verifies
 * the ES256 signature (r‖s, RFC 7518 §3.4) over the signing input as received against the key.
 */
async function verifyJwt(token: string, jwk: PublicJwk = ctx.key.publicJwk) {
  const publicKey = createPublicKey({ key: { ...jwk }, format: 'jwk' });
  const jwt = Jwt.fromEncode<Record<string, unknown>, Record<string, unknown>>(token);
  const { header, payload } = await jwt.verify(
    (data, signature) =>
      verifySignature('sha256', Buffer.from(data, 'ascii'), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')),
    { currentDate: DURING },
  );
  return { header: header as Record<string, unknown>, payload: payload as Record<string, unknown> };
}

/** cose-ts's verifying key for a P-256 public JWK (uncompressed SEC 1 point). */
const coseKey = (jwk: PublicJwk) =>
  cose.ECDSAKey.fromPublic(Buffer.concat([Uint8Array.of(0x04), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]));

/** A relying party's check of the CWT form: cose-ts verifies the COSE_Sign1 and cborg reads the parts. */
function verifyCwt(token: Uint8Array, jwk: PublicJwk = ctx.key.publicJwk) {
  const message = cose.Sign1Message.fromBytes(coseKey(jwk), token);
  const [protectedBytes, unprotected] = cose.decodeCBOR(token) as [Uint8Array, Map<number, unknown>, Uint8Array, Uint8Array];
  return {
    message,
    protectedHeader: cose.decodeCBOR(protectedBytes) as Map<number, unknown>,
    unprotected,
    claims: cose.decodeCBOR(message.payload) as Map<number, unknown>,
  };
}

/** A verifier's read of entry `i` of a 1-bit list (draft 14 §4.1, §8.3). */
const bitAt = (list: Uint8Array, i: number) => ((list[i >> 3] as number) >> (i & 7)) & 1;

/** The compact JWS with `find` in its payload JSON replaced by `replace` (as long), the signature kept. */
function tamperPayload(token: string, find: string, replace: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const json = Buffer.from(payload, 'base64url').toString('utf8');
  expect(json.includes(find)).toBe(true);
  expect(replace.length).toBe(find.length);
  return `${header}.${Buffer.from(json.replace(find, replace), 'utf8').toString('base64url')}.${signature}`;
}

describe('createTokenStatusListSigner, JWT form (IETF Token Status List draft 14 §5.1)', () => {
  it('signs a compact JWS whose ES256 signature verifies against the issuer key, with typ statuslist+jwt and the DID URL as kid', async () => {
    const token = await jwtOf();
    expect(token.split('.')).toHaveLength(3);
    const { header } = await verifyJwt(token);
    expect(header).toEqual({ alg: 'ES256', typ: 'statuslist+jwt', kid: KID });
    // RFC 7518 §3.4: the signature is r‖s, 64 bytes.
    expect(Buffer.from(token.split('.')[2] as string, 'base64url')).toHaveLength(64);
  });

  it('writes iss, sub, iat, exp, ttl and status_list { bits: 1, lst } as JSON numbers in whole seconds', async () => {
    const { payload } = await verifyJwt(await jwtOf());
    expect(Object.keys(payload)).toEqual(['iss', 'sub', 'iat', 'exp', 'ttl', 'status_list']);
    expect(payload).toMatchObject({ iss: ISSUER, sub: URI, iat: IAT, exp: EXP, ttl: 43_200 });
    const statusList = payload.status_list as Record<string, unknown>;
    expect(Object.keys(statusList)).toEqual(['bits', 'lst']);
    expect(statusList.bits).toBe(1);
    // §4.2: lst is base64url without padding.
    expect(statusList.lst).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('carries a list of 500,000 entries that @sd-jwt/jwt-status-list reads back invalid at 3 and 499,999, valid at 4', async () => {
    const invalid = [3, 12_345, 499_999];
    const token = await jwtOf({ statuses: pack(500_000, invalid) });
    await verifyJwt(token);
    const list = getListFromStatusListJWT(token);
    expect(list.getBitsPerStatus()).toBe(1);
    expect(list.statusList).toHaveLength(500_000);
    expect(list.getStatus(3)).toBe(1);
    expect(list.getStatus(4)).toBe(0);
    expect(list.getStatus(499_999)).toBe(1);
    for (const i of [0, 2, 12_344, 12_346, 499_998]) expect(list.getStatus(i), `index ${i}`).toBe(0);
    expect(list.statusList.filter((status) => status === 1)).toHaveLength(invalid.length);
  });

  it('writes draft 14 §5.1’s example lst for its example list (0xB9 0xA3), which the library decompresses entry by entry', async () => {
    // draft-ietf-oauth-status-list-14 examples/status_list_jwt.md: lst "eNrbuRgAAhcBXQ" is zlib
    // level 9 of 0xB9 0xA3, which node:zlib reproduces.
    const { payload } = await verifyJwt(await jwtOf({ statuses: Uint8Array.of(0xb9, 0xa3) }));
    const { lst } = payload.status_list as { lst: string };
    expect(lst).toBe('eNrbuRgAAhcBXQ');
    const list = StatusList.decompressStatusList(lst, 1);
    expect(Array.from({ length: 16 }, (_, i) => list.getStatus(i))).toEqual([1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]);
  });

  it('fails verification after one byte of the header, payload, list or signature changes', async () => {
    const token = await jwtOf({ statuses: pack(64, [7]) });
    await expect(verifyJwt(token)).resolves.toBeDefined();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const headerJson = Buffer.from(header, 'base64url').toString('utf8');
    const { lst } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')).status_list as { lst: string };
    const flipped = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const signatureBytes = Buffer.from(signature, 'base64url');
    signatureBytes[63] = (signatureBytes[63] as number) ^ 0x01;
    const tampered: Array<[string, string]> = [
      ['the typ in the header', `${Buffer.from(headerJson.replace('statuslist+jwt', 'statuslist+jwu'), 'utf8').toString('base64url')}.${payload}.${signature}`],
      ['the sub claim', tamperPayload(token, 'status-lists', 'status-listz')],
      ['the iss claim', tamperPayload(token, '"did:web:', '"did:wec:')],
      ['a character of lst', tamperPayload(token, lst, flipped(lst, 6))],
      ['the signature', `${header}.${payload}.${signatureBytes.toString('base64url')}`],
    ];
    for (const [what, bad] of tampered) await expect(verifyJwt(bad), what).rejects.toThrow(/Invalid JWT Signature/);
  });

  it('does not verify against another P-256 key', async () => {
    await expect(verifyJwt(await jwtOf(), ctx.otherKey.publicJwk)).rejects.toThrow(/Invalid JWT Signature/);
  });
});

describe('createTokenStatusListSigner, CWT form (IETF Token Status List draft 14 §5.2)', () => {
  it('signs an untagged COSE_Sign1 that cose-ts verifies against the issuer key, protecting alg, typ and kid', async () => {
    const token = await cwtOf();
    // RFC 9052 §2: an untagged COSE_Sign1 is an array of four; draft 14's example starts with 0x84.
    expect(token[0]).toBe(0x84);
    const { message, protectedHeader, unprotected } = verifyCwt(token);
    expect([...protectedHeader.keys()]).toEqual([1, 16, 4]);
    expect(protectedHeader.get(1)).toBe(-7);
    expect(protectedHeader.get(16)).toBe('application/statuslist+cwt');
    expect(protectedHeader.get(4)).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(protectedHeader.get(4) as Uint8Array).toString('utf8')).toBe(KID);
    expect(message.protected?.getText(16)).toBe('application/statuslist+cwt');
    expect(Buffer.from(message.protected?.getBytes(4) ?? []).toString('utf8')).toBe(KID);
    // No x5chain, nothing unprotected: the key is the DID's, found by kid.
    expect(unprotected.size).toBe(0);
  });

  it('writes iss (1), sub (2), iat (6), exp (4), ttl (65534) and status_list (65533) { "bits": 1, "lst": bytes }', async () => {
    const { claims, message } = verifyCwt(await cwtOf());
    expect([...claims.keys()]).toEqual([1, 2, 6, 4, 65534, 65533]);
    expect(claims.get(1)).toBe(ISSUER);
    expect(claims.get(2)).toBe(URI);
    expect(claims.get(6)).toBe(IAT);
    expect(claims.get(4)).toBe(EXP);
    expect(claims.get(65534)).toBe(43_200);
    const statusList = claims.get(65533) as Map<string, unknown>;
    expect([...statusList.keys()]).toEqual(['bits', 'lst']);
    expect(statusList.get('bits')).toBe(1);
    expect(statusList.get('lst')).toBeInstanceOf(Uint8Array);
    // cose-ts's own CWT reading and validation agree on the registered claims.
    const read = cose.Claims.fromBytes(message.payload);
    expect([read.iss, read.sub, read.iat, read.exp]).toEqual([ISSUER, URI, IAT, EXP]);
    expect(() => new cose.Validator({ expectedIssuer: ISSUER, fixedNow: new Date(DURING * 1000) }).validate(read)).not.toThrow();
    expect(() => new cose.Validator({ fixedNow: new Date((EXP + 60) * 1000) }).validate(read)).toThrow(/expired/);
  });

  it('carries a list of 500,000 entries that pako inflates to invalid at 3 and 499,999, valid at 4', async () => {
    const invalid = [3, 12_345, 499_999];
    const statuses = pack(500_000, invalid);
    const { claims } = verifyCwt(await cwtOf({ statuses }));
    const list = inflateList((claims.get(65533) as Map<string, Uint8Array>).get('lst') as Uint8Array);
    expect(list).toHaveLength(62_500);
    expect(bitAt(list, 3)).toBe(1);
    expect(bitAt(list, 4)).toBe(0);
    expect(bitAt(list, 499_999)).toBe(1);
    let set = 0;
    for (let i = 0; i < 500_000; i++) set += bitAt(list, i);
    expect(set).toBe(invalid.length);
  });

  it('compresses the same list to the same lst as the JWT form, and as draft 14 §5.2’s example does', async () => {
    const statuses = Uint8Array.of(0xb9, 0xa3);
    const lst = (verifyCwt(await cwtOf({ statuses })).claims.get(65533) as Map<string, Uint8Array>).get('lst') as Uint8Array;
    // draft-ietf-oauth-status-list-14 examples/status_list_cwt_diag.md: lst h'78dadbb918000217015d'.
    expect(Buffer.from(lst).toString('hex')).toBe('78dadbb918000217015d');
    const { payload } = await verifyJwt(await jwtOf({ statuses }));
    expect(Buffer.from(lst).toString('base64url')).toBe((payload.status_list as { lst: string }).lst);
  });

  it('fails verification after one byte of the protected header, claims, list or signature changes', async () => {
    const token = await cwtOf({ statuses: pack(64, [7]) });
    expect(() => verifyCwt(token)).not.toThrow();
    const [protectedBytes, , payload] = cose.decodeCBOR(token) as [Uint8Array, unknown, Uint8Array];
    const bytes = Buffer.from(token);
    const at = (part: Uint8Array, offset: number) => bytes.indexOf(Buffer.from(part)) + offset;
    const lst = (cose.decodeCBOR(payload) as Map<number, Map<string, Uint8Array>>).get(65533)?.get('lst') as Uint8Array;
    expectEveryChangeRefused(
      token,
      [
        ['the kid in the protected header', at(protectedBytes, protectedBytes.length - 1)],
        ['the typ in the protected header', at(protectedBytes, Buffer.from(protectedBytes).indexOf('statuslist'))],
        ['the iss claim', at(payload, Buffer.from(payload).indexOf('did:web'))],
        ['the sub claim', at(payload, Buffer.from(payload).indexOf('status-lists'))],
        ['a byte of lst', bytes.indexOf(Buffer.from(lst)) + 4],
        ['the signature', token.length - 1],
      ],
      verifyCwt,
    );
  });

  it('does not verify against another P-256 key', async () => {
    const token = await cwtOf();
    expect(() => verifyCwt(token, ctx.otherKey.publicJwk)).toThrow(/signature mismatch/);
  });
});

describe('createTokenStatusListSigner, refusals', () => {
  it.each([
    ['an unknown form', { form: 'cbor' as never }, 'form'],
    ['an empty kid', { kid: '' }, 'kid'],
    ['an empty issuer', { issuer: '' }, 'issuer'],
    ['an empty uri', { uri: '' }, 'uri'],
    ['a ttl of zero', { ttlSeconds: 0 }, 'ttlSeconds'],
    ['a ttl that is not whole', { ttlSeconds: 1.5 }, 'ttlSeconds'],
    ['an expiry not after issuance', { expiresAt: ISSUED }, 'expiresAt'],
    ['an issuance time that is no date', { issuedAt: new Date('never') }, 'issuedAt'],
    ['statuses that are not bytes', { statuses: [0, 1] as never }, 'statuses'],
    ['an Ed25519 key, which cannot sign ES256', { keyId: ctx.edKey.id }, 'keyId'],
  ])('refuses %s', async (_name, over, param) => {
    for (const form of ['jwt', 'cwt'] as const) {
      const error = await ctx.signer.sign(input({ form, ...over })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 'BadRequest', details: [{ param }] });
    }
  });

  it('fails with NotFound when the key is gone, as KeyManager.sign does', async () => {
    const gone = await ctx.keys.create(ctx.tenantId, 'P-256');
    await ctx.keys.destroy(ctx.tenantId, gone.id);
    for (const form of ['jwt', 'cwt'] as const) {
      await expect(ctx.signer.sign(input({ form, keyId: gone.id }))).rejects.toMatchObject({ code: 'NotFound' });
    }
  });
});

describe('createTokenStatusListSigner with x5c (lists signed under the issuer CA, issue 29 point 4)', () => {
  // Two stand-in certificates: the signer only carries them, the chain is checked end to end in tools/interop.
  const LEAF_DER = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff);
  const MIDDLE_DER = Uint8Array.from({ length: 200 }, (_, i) => (i * 13) & 0xff);
  const b64 = (der: Uint8Array) => Buffer.from(der).toString('base64');
  const withX5c = (chain: Uint8Array[] = [LEAF_DER]) =>
    ({ kid: undefined, x5c: { x5c: chain.map(b64), x5chain: chain }, issuer: 'https://issuer.example' }) as Partial<TokenStatusListInput>;
  const { kid: _kid, ...noKid } = input();

  it('JWT: the header is { alg, typ: statuslist+jwt, x5c } with no kid, iss the https issuer, and the signature verifies against the leaf key', async () => {
    const token = await ctx.signer.sign({ ...noKid, form: 'jwt', x5c: { x5c: [b64(LEAF_DER)], x5chain: [LEAF_DER] }, issuer: 'https://issuer.example' });
    const { header, payload } = await verifyJwt(token as string);
    expect(header).toEqual({ alg: 'ES256', typ: 'statuslist+jwt', x5c: [b64(LEAF_DER)] });
    expect(payload).toMatchObject({ iss: 'https://issuer.example', sub: URI, iat: IAT, exp: EXP, ttl: 43_200 });
    expect(ctx.signer.leafOf('jwt', new TextEncoder().encode(token as string))).toBe(b64(LEAF_DER));
    // A DID-signed token names no leaf.
    expect(ctx.signer.leafOf('jwt', new TextEncoder().encode(await jwtOf()))).toBeUndefined();
  });

  it('CWT: x5chain (33) in the protected header, one certificate as a byte string or several as an array (RFC 9360), no kid; cose-ts verifies it', async () => {
    const single = await ctx.signer.sign({ ...noKid, form: 'cwt', ...withX5c() });
    const one = verifyCwt(single as Uint8Array);
    expect([...one.protectedHeader.keys()].sort((a, b) => (a as number) - (b as number))).toEqual([1, 16, 33]);
    expect(one.protectedHeader.get(16)).toBe('application/statuslist+cwt');
    expect(new Uint8Array(one.protectedHeader.get(33) as Uint8Array)).toEqual(LEAF_DER);
    expect(one.unprotected.size).toBe(0);
    expect(one.claims.get(1)).toBe('https://issuer.example');
    expect(ctx.signer.leafOf('cwt', single as Uint8Array)).toBe(b64(LEAF_DER));
    const double = await ctx.signer.sign({ ...noKid, form: 'cwt', ...withX5c([LEAF_DER, MIDDLE_DER]) });
    const two = verifyCwt(double as Uint8Array);
    expect((two.protectedHeader.get(33) as Uint8Array[]).map((c) => new Uint8Array(c))).toEqual([LEAF_DER, MIDDLE_DER]);
    expect(ctx.signer.leafOf('cwt', double as Uint8Array)).toBe(b64(LEAF_DER));
    expect(ctx.signer.leafOf('cwt', await cwtOf())).toBeUndefined();
    expect(ctx.signer.leafOf('cwt', Uint8Array.of(1, 2, 3))).toBeUndefined();
  });

  it('refuses a kid beside x5c, and an empty or mismatched chain', async () => {
    await expect(ctx.signer.sign(input({ ...withX5c(), kid: KID }))).rejects.toMatchObject({ code: 'BadRequest' });
    await expect(ctx.signer.sign({ ...noKid, ...withX5c([]) })).rejects.toMatchObject({ code: 'BadRequest' });
    await expect(ctx.signer.sign({ ...noKid, x5c: { x5c: [b64(LEAF_DER)], x5chain: [] }, issuer: 'https://issuer.example' })).rejects.toMatchObject({
      code: 'BadRequest',
    });
  });
});
