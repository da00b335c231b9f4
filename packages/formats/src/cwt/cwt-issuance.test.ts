import { createCwtFormat, type DidKey, didKeyOf, parseDidKey, type PublicJwk } from '@vellum/core';
import { addDidKey } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { CWT_SUBJECT, cwtConfiguration, holderKey, memoryKeyManager } from '../../test/fixtures.ts';
import { loadCoseTs } from './independent-cose.ts';
import { createCwtSigner } from './signer.ts';

// The core's cwt and cwt_vc handlers with the real signer and KeyManager over the memory store;
// every credential is read and verified by @ldclabs/cose-ts (cborg, @noble/curves), not cbor-x.
const cose = await loadCoseTs();

const NOW = new Date('2026-05-01T12:00:00.400Z');
const ISSUED = Date.parse('2026-05-01T12:00:00Z') / 1000;
const EXPIRES = Date.parse('2027-05-01T12:00:00Z') / 1000;

type Format = 'cwt' | 'cwt_vc';

async function setup(format: Format) {
  const { store, keys, tenant } = await memoryKeyManager();
  // A did:key on a KeyManager P-256 key, stored as the DID service stores one.
  const record = await addDidKey(store, keys, tenant.id, 'P-256', NOW.toISOString());
  const { did } = record;
  const { didDocumentKeyId, publicJwk } = record.keys[0] as DidKey;
  const handler = createCwtFormat({ store, signer: createCwtSigner({ keys }), format });
  const configuration = cwtConfiguration(format, tenant.id, { expiresIn: { years: 1 } });
  const issue = (holderKey: PublicJwk) =>
    handler.issue({ tenant, configuration, subject: CWT_SUBJECT, holderKey, credentialIssuer: 'https://acme.eu01.vellum.test', now: NOW, form: 'current' });
  return { issue, did, didDocumentKeyId, signingKey: publicJwk };
}

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const bytesOf = (credential: string | Record<string, unknown>) => new Uint8Array(Buffer.from(credential as string, 'base64url'));

/** cose-ts verification against a P-256 JWK; throws on a bad signature. */
function verify(bytes: Uint8Array, jwk: PublicJwk) {
  const point = Buffer.concat([Uint8Array.of(0x04), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]);
  return cose.Sign1Message.fromBytes(cose.ECDSAKey.fromPublic(point), bytes);
}

const claimsMap = (payload: Uint8Array) => cose.decodeCBOR(payload) as Map<string | number, unknown>;

describe.each(['cwt', 'cwt_vc'] as const)('%s issued by the core handler with the real signer, verified by cose-ts', (format) => {
  it('verifies against the key its kid names, and carries iss, sub, iat, nbf, exp and cnf (RFC 8392 §3.1, RFC 8747)', async () => {
    const { issue, did, didDocumentKeyId, signingKey } = await setup(format);
    const holder = holderKey();
    const issued = await issue(holder);
    expect(issued.validFrom).toBe('2026-05-01T12:00:00.000Z');
    expect(issued.validUntil).toBe('2027-05-01T12:00:00.000Z');
    const bytes = bytesOf(issued.credential);
    expect(bytes[0]).toBe(0xd2);

    const message = verify(bytes, signingKey);
    const kid = Buffer.from(message.protected?.getBytes(4) ?? []).toString('utf8');
    expect(kid).toBe(didDocumentKeyId);
    // The kid's DID resolves (did:key) to the very key cose-ts verified with.
    const resolved = parseDidKey(kid.split('#')[0] as string);
    expect(resolved?.algorithm).toBe('P-256');
    expect(() => cose.Sign1Message.fromBytes(cose.ECDSAKey.fromPublic(resolved?.publicKey as Uint8Array), bytes)).not.toThrow();

    const claims = cose.Claims.fromBytes(message.payload);
    expect(claims.iss).toBe(did);
    expect(claims.sub).toBe(didKeyOf(holder));
    expect([claims.iat, claims.nbf, claims.exp]).toEqual([ISSUED, ISSUED, EXPIRES]);
    const coseKey = (claims.cnf as Map<number, Map<number, unknown>>).get(1) as Map<number, unknown>;
    expect(coseKey.get(1)).toBe(2);
    expect(coseKey.get(-1)).toBe(1);
    expect(b64u(coseKey.get(-2) as Uint8Array)).toBe(holder.x);
    expect(b64u(coseKey.get(-3) as Uint8Array)).toBe(holder.y);
    expect(() => new cose.Validator({ expectedIssuer: did, fixedNow: new Date('2026-08-01T00:00:00Z') }).validate(claims)).not.toThrow();
    expect(() => new cose.Validator({ fixedNow: new Date('2027-05-02T00:00:00Z') }).validate(claims)).toThrow(/expired/);
  });

  it(
    format === 'cwt' ? 'writes type and the claims flat, under text labels' : 'writes a vc claim: @context, type and credentialSubject holding the claims',
    async () => {
      const { issue, signingKey } = await setup(format);
      const raw = claimsMap(verify(bytesOf((await issue(holderKey())).credential), signingKey).payload);
      const expected = new Map<string, unknown>([
        ['given_name', 'Susan'],
        ['family_name', 'Turner'],
        ['employee_id', 4711],
        ['department', 'Research'],
        ['badges', ['lab', new Map([['floor', 3]])]],
      ]);
      if (format === 'cwt') {
        expect([...raw.keys()]).toEqual([1, 2, 4, 5, 6, 8, 'type', ...expected.keys()]);
        expect(raw.get('type')).toBe('EmployeeBadge');
        for (const [name, value] of expected) expect(raw.get(name)).toEqual(value);
      } else {
        expect([...raw.keys()]).toEqual([1, 2, 4, 5, 6, 8, 'vc']);
        expect(raw.get('vc')).toEqual(
          new Map<string, unknown>([
            ['@context', ['https://www.w3.org/2018/credentials/v1']],
            ['type', ['VerifiableCredential', 'EmployeeBadge']],
            ['credentialSubject', expected],
          ]),
        );
      }
    },
  );

  it('binds an Ed25519 holder key as an OKP COSE_Key and names it by its did:key', async () => {
    const { issue, signingKey } = await setup(format);
    const holder = holderKey('Ed25519');
    const claims = cose.Claims.fromBytes(verify(bytesOf((await issue(holder)).credential), signingKey).payload);
    expect(claims.sub).toBe(didKeyOf(holder));
    expect(claims.sub).toMatch(/^did:key:z6Mk/);
    const coseKey = (claims.cnf as Map<number, Map<number, unknown>>).get(1) as Map<number, unknown>;
    expect([...coseKey.entries()].map(([k, v]) => [k, v instanceof Uint8Array ? b64u(v) : v])).toEqual([
      [1, 1],
      [-1, 6],
      [-2, holder.x],
    ]);
  });

  it('an unbound configuration (holderBinding: false) signs neither cnf nor sub, and still verifies (issue 29)', async () => {
    const { store, keys, tenant } = await memoryKeyManager();
    const record = await addDidKey(store, keys, tenant.id, 'P-256', NOW.toISOString());
    const handler = createCwtFormat({ store, signer: createCwtSigner({ keys }), format });
    const configuration = { ...cwtConfiguration(format, tenant.id, { expiresIn: { years: 1 } }), holderBinding: false as const };
    // A key passed anyway is not bound.
    const issued = await handler.issue({
      tenant,
      configuration,
      subject: CWT_SUBJECT,
      holderKey: holderKey(),
      credentialIssuer: 'https://acme.eu01.vellum.test',
      now: NOW,
      form: 'current',
    });
    const payload = claimsMap(verify(bytesOf(issued.credential), (record.keys[0] as DidKey).publicJwk).payload);
    expect(payload.get(1)).toBe(record.did);
    expect(payload.has(8)).toBe(false);
    expect(payload.has(2)).toBe(false);
  });

  it('fails verification when one byte of the payload changes', async () => {
    const { issue, signingKey } = await setup(format);
    const bytes = bytesOf((await issue(holderKey())).credential);
    const at = Buffer.from(bytes).indexOf('Turner');
    expect(at).toBeGreaterThan(0);
    const tampered = new Uint8Array(bytes);
    tampered[at] = 'B'.charCodeAt(0);
    expect(() => verify(tampered, signingKey)).toThrow(/signature mismatch/);
    expect(() => verify(bytes, signingKey)).not.toThrow();
  });

  it('fails verification when one byte of the signature changes', async () => {
    const { issue, signingKey } = await setup(format);
    const bytes = bytesOf((await issue(holderKey())).credential);
    const tampered = new Uint8Array(bytes);
    tampered[tampered.length - 20] = (tampered[tampered.length - 20] as number) ^ 0x80;
    expect(() => verify(tampered, signingKey)).toThrow(/signature mismatch/);
  });
});
