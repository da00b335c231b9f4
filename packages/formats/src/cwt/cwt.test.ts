import { type CwtClaims, type CwtSignInput, DomainError, type PublicJwk } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { holderKey, memoryKeyManager } from '../../test/fixtures.ts';
import { loadCoseTs } from './independent-cose.ts';
import { createCwtSigner } from './signer.ts';

// Everything read back here goes through @ldclabs/cose-ts (cborg and @noble/curves), never through
// the cbor-x encoder that wrote it.
const cose = await loadCoseTs();

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

async function setup() {
  const { keys, tenant } = await memoryKeyManager();
  const key = await keys.create(tenant.id, 'P-256');
  return { keys, tenant, key, signer: createCwtSigner({ keys }) };
}

/** cose-ts's verifying key for a P-256 public JWK (uncompressed SEC 1 point). */
function verifyingKey(jwk: PublicJwk) {
  return cose.ECDSAKey.fromPublic(Buffer.concat([Uint8Array.of(0x04), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]));
}

/** Verifies with cose-ts and returns the message; throws on a bad signature. */
const verify = (bytes: Uint8Array, jwk: PublicJwk) => cose.Sign1Message.fromBytes(verifyingKey(jwk), bytes);

/** The four members of the COSE_Sign1 array, read by cborg after the tag byte. */
function members(bytes: Uint8Array) {
  expect(bytes[0]).toBe(0xd2); // #6.18, RFC 9052 §2
  return cose.decodeCBOR(bytes.subarray(1)) as [Uint8Array, Map<unknown, unknown>, Uint8Array, Uint8Array];
}

/** The CWT Claims Set as cborg reads it. */
const claimsMap = (payload: Uint8Array) => cose.decodeCBOR(payload) as Map<string | number, unknown>;

const KID = 'did:key:zDnaeUtdummykeyid#zDnaeUtdummykeyid';
const ISSUER = 'did:key:zDnaeUtdummykeyid';

function claimsFor(holder: PublicJwk, over: Partial<CwtClaims> = {}): CwtClaims {
  return {
    iss: ISSUER,
    sub: 'did:key:zDnaeHolder',
    iat: new Date('2026-03-01T10:00:00.750Z'),
    nbf: new Date('2026-03-01T10:00:00.750Z'),
    exp: new Date('2027-03-01T10:00:00Z'),
    cnf: holder,
    claims: {
      type: 'EmployeeBadge',
      given_name: 'Susan',
      age: 35,
      height: 1.72,
      big: 2 ** 40,
      negative: -(2 ** 40),
      member: true,
      nickname: null,
      address: { street: '1 Main St', '1': 'text label that looks like a number' },
      roles: ['admin', { level: 2 }],
    },
    ...over,
  };
}

async function signed(over: Partial<CwtClaims> = {}, holder = holderKey()) {
  const ctx = await setup();
  const input: CwtSignInput = { tenantId: ctx.tenant.id, keyId: ctx.key.id, kid: KID, claims: claimsFor(holder, over) };
  const credential = await ctx.signer.sign(input);
  const bytes = new Uint8Array(Buffer.from(credential, 'base64url'));
  return { ...ctx, input, credential, bytes, holder };
}

describe('createCwtSigner (RFC 8392 CWT as an RFC 9052 COSE_Sign1 with ES256)', () => {
  it('returns the tagged COSE_Sign1 in base64url without padding, and cose-ts verifies it against the signing key (RFC 9052 §4.4)', async () => {
    const { credential, bytes, key } = await signed();
    expect(credential).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(b64u(bytes)).toBe(credential);
    const message = verify(bytes, key.publicJwk);
    expect(message.payload.length).toBeGreaterThan(0);
  });

  it('protects { 1: -7 (ES256), 4: kid as the UTF-8 bytes of the DID URL } and leaves the unprotected header empty (RFC 9052 §3.1)', async () => {
    const { bytes, key } = await signed();
    const [protectedBytes, unprotected, , signature] = members(bytes);
    const header = cose.decodeCBOR(protectedBytes) as Map<number, unknown>;
    expect([...header.keys()]).toEqual([1, 4]);
    expect(header.get(1)).toBe(-7);
    expect(Buffer.from(header.get(4) as Uint8Array).toString('utf8')).toBe(KID);
    expect(unprotected).toBeInstanceOf(Map);
    expect(unprotected.size).toBe(0);
    // RFC 9053 §2.1: an ES256 signature is r‖s, 64 bytes.
    expect(signature).toHaveLength(64);
    const message = verify(bytes, key.publicJwk);
    expect(message.protected?.getInt(1)).toBe(-7);
    expect(Buffer.from(message.protected?.getBytes(4) ?? []).toString('utf8')).toBe(KID);
  });

  it('writes the registered claims under their integer keys, times as whole-second NumericDates (RFC 8392 §3.1, §2)', async () => {
    const { bytes, key, input } = await signed();
    const claims = cose.Claims.fromBytes(verify(bytes, key.publicJwk).payload);
    expect(claims.iss).toBe(ISSUER);
    expect(claims.sub).toBe('did:key:zDnaeHolder');
    expect(claims.iat).toBe(Date.parse('2026-03-01T10:00:00Z') / 1000);
    expect(claims.nbf).toBe(Date.parse('2026-03-01T10:00:00Z') / 1000);
    expect(claims.exp).toBe(Date.parse('2027-03-01T10:00:00Z') / 1000);
    const raw = claimsMap(verify(bytes, key.publicJwk).payload);
    for (const label of [1, 2, 4, 5, 6, 8]) expect(raw.has(label)).toBe(true);
    // cose-ts's own validation: accepted inside the validity, refused after it.
    const inside = new cose.Validator({ expectedIssuer: ISSUER, fixedNow: new Date('2026-06-01T00:00:00Z') });
    expect(() => inside.validate(claims)).not.toThrow();
    const after = new cose.Validator({ fixedNow: new Date('2027-03-02T00:00:00Z') });
    expect(() => after.validate(claims)).toThrow(/expired/);
    const before = new cose.Validator({ fixedNow: new Date('2026-02-01T00:00:00Z') });
    expect(() => before.validate(claims)).toThrow(/cannot be used yet/);
    expect(input.claims.exp.getTime() / 1000).toBe(claims.exp);
  });

  it('binds the holder P-256 key as cnf { 1: COSE_Key EC2 {1: 2, -1: 1, -2: x, -3: y} } (RFC 8747 §3.2, RFC 9053 §7.1.1)', async () => {
    const { bytes, key, holder } = await signed();
    const claims = cose.Claims.fromBytes(verify(bytes, key.publicJwk).payload);
    const cnf = claims.cnf as Map<number, Map<number, unknown>>;
    expect([...cnf.keys()]).toEqual([1]);
    const coseKey = cnf.get(1) as Map<number, unknown>;
    expect([...coseKey.keys()]).toEqual([1, -1, -2, -3]);
    expect(coseKey.get(1)).toBe(2);
    expect(coseKey.get(-1)).toBe(1);
    expect(b64u(coseKey.get(-2) as Uint8Array)).toBe(holder.x);
    expect(b64u(coseKey.get(-3) as Uint8Array)).toBe(holder.y);
  });

  it('binds an Ed25519 holder key as COSE_Key OKP {1: 1, -1: 6, -2: x} (RFC 9053 §7.2)', async () => {
    const holder = holderKey('Ed25519');
    const { bytes, key } = await signed({}, holder);
    const cnf = cose.Claims.fromBytes(verify(bytes, key.publicJwk).payload).cnf as Map<number, Map<number, unknown>>;
    const coseKey = cnf.get(1) as Map<number, unknown>;
    expect([...coseKey.keys()]).toEqual([1, -1, -2]);
    expect(coseKey.get(1)).toBe(1);
    expect(coseKey.get(-1)).toBe(6);
    expect(b64u(coseKey.get(-2) as Uint8Array)).toBe(holder.x);
  });

  it('writes the private claims under text labels, JSON objects as text-keyed maps and large integers as integers (RFC 8392 §3)', async () => {
    const { bytes, key } = await signed();
    const raw = claimsMap(verify(bytes, key.publicJwk).payload);
    expect(raw.get('type')).toBe('EmployeeBadge');
    expect(raw.get('given_name')).toBe('Susan');
    expect(raw.get('age')).toBe(35);
    expect(raw.get('height')).toBe(1.72);
    expect(raw.get('big')).toBe(2 ** 40);
    expect(raw.get('negative')).toBe(-(2 ** 40));
    expect(raw.get('member')).toBe(true);
    expect(raw.get('nickname')).toBe(null);
    expect(raw.get('address')).toEqual(
      new Map<string, string>([
        ['street', '1 Main St'],
        ['1', 'text label that looks like a number'],
      ]),
    );
    expect(raw.get('roles')).toEqual(['admin', new Map([['level', 2]])]);
    // Integer labels are only the registered ones.
    expect([...raw.keys()].filter((k) => typeof k === 'number')).toEqual([1, 2, 4, 5, 6, 8]);
    // 2^40 is a CBOR integer (major type 0, 8-byte head), not a float.
    const payload = Buffer.from(verify(bytes, key.publicJwk).payload);
    expect(payload.includes(Buffer.from('1b0000010000000000', 'hex'))).toBe(true);
  });

  it('leaves sub and nbf out when there are none', async () => {
    const { bytes, key } = await signed({ sub: undefined, nbf: undefined });
    const raw = claimsMap(verify(bytes, key.publicJwk).payload);
    expect(raw.has(2)).toBe(false);
    expect(raw.has(5)).toBe(false);
    expect(raw.has(1) && raw.has(4) && raw.has(6) && raw.has(8)).toBe(true);
  });

  it('writes a Token Status List reference as claim 65535 { "status_list": { "idx", "uri" } } (IETF Token Status List draft 14 §6.3)', async () => {
    const uri = 'https://issuer.example/v2/credentials/compact/status-lists/6b0d1c2e/token';
    const { bytes, key } = await signed({ status: { idx: 499_999, uri } });
    const raw = claimsMap(verify(bytes, key.publicJwk).payload);
    expect([...raw.keys()].filter((k) => typeof k === 'number')).toEqual([1, 2, 4, 5, 6, 8, 65535]);
    const status = raw.get(65535) as Map<string, Map<string, unknown>>;
    expect([...status.keys()]).toEqual(['status_list']);
    expect(status.get('status_list')).toEqual(
      new Map<string, unknown>([
        ['idx', 499_999],
        ['uri', uri],
      ]),
    );
    // idx is an unsigned integer (major type 0, here a 4-byte head 0x1a), not a float.
    expect(Buffer.from(verify(bytes, key.publicJwk).payload).includes(Buffer.from('636964781a0007a11f', 'hex'))).toBe(true);
    // A private claim named "status" stays a text label, apart from the registered 65535.
    const other = await signed({ claims: { status: 'active' } });
    const named = claimsMap(verify(other.bytes, other.key.publicJwk).payload);
    expect(named.get('status')).toBe('active');
    expect(named.has(65535)).toBe(false);
  });

  it('refuses a status reference with a negative or fractional idx, or a uri that is no URI', async () => {
    const ctx = await setup();
    const sign = (status: CwtClaims['status']) =>
      ctx.signer.sign({ tenantId: ctx.tenant.id, keyId: ctx.key.id, kid: KID, claims: claimsFor(holderKey(), { status }) });
    await expect(sign({ idx: -1, uri: 'https://issuer.example/s/1' })).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'status.idx' }] });
    await expect(sign({ idx: 1.5, uri: 'https://issuer.example/s/1' })).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'status.idx' }] });
    await expect(sign({ idx: 1, uri: 'not a uri' })).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'status.uri' }] });
  });

  it('fails verification when one byte of the payload changes', async () => {
    const { bytes, key } = await signed();
    const at = Buffer.from(bytes).indexOf('Susan');
    expect(at).toBeGreaterThan(0);
    const tampered = new Uint8Array(bytes);
    tampered[at] = 'T'.charCodeAt(0);
    // Still well-formed: the claims read "Tusan", and only the signature gives it away.
    expect(claimsMap(members(tampered)[2]).get('given_name')).toBe('Tusan');
    expect(() => verify(tampered, key.publicJwk)).toThrow(/signature mismatch/);
  });

  it('fails verification when one byte of the signature changes', async () => {
    const { bytes, key } = await signed();
    const tampered = new Uint8Array(bytes);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 0x01;
    expect(() => verify(tampered, key.publicJwk)).toThrow(/signature mismatch/);
  });

  it('fails verification against another P-256 key', async () => {
    const { bytes } = await signed();
    expect(() => verify(bytes, holderKey())).toThrow(/signature mismatch/);
  });

  it('refuses a holder key it cannot write as a COSE_Key, a bad coordinate, a bad date and a non-JSON claim value', async () => {
    const ctx = await setup();
    const holder = holderKey();
    const sign = (claims: CwtClaims) => ctx.signer.sign({ tenantId: ctx.tenant.id, keyId: ctx.key.id, kid: KID, claims });
    await expect(sign(claimsFor({ ...holder, crv: 'P-384' } as unknown as PublicJwk))).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'cnf' }],
    });
    await expect(sign(claimsFor({ ...holder, x: `${holder.x}A` }))).rejects.toBeInstanceOf(DomainError);
    await expect(sign(claimsFor(holder, { exp: new Date(Number.NaN) }))).rejects.toBeInstanceOf(DomainError);
    await expect(sign(claimsFor(holder, { claims: { when: new Date() } }))).rejects.toBeInstanceOf(DomainError);
    await expect(sign(claimsFor(holder, { claims: { n: Number.POSITIVE_INFINITY } }))).rejects.toBeInstanceOf(DomainError);
  });

  it('passes on the KeyManager NotFound for a destroyed key', async () => {
    const ctx = await setup();
    await ctx.keys.destroy(ctx.tenant.id, ctx.key.id);
    await expect(ctx.signer.sign({ tenantId: ctx.tenant.id, keyId: ctx.key.id, kid: KID, claims: claimsFor(holderKey()) })).rejects.toMatchObject({
      code: 'NotFound',
    });
  });
});
