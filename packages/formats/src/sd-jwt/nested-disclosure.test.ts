import { createHash, createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { PublicJwk, SdJwtSignInput } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { holderKey, memoryKeyManager } from '../../test/fixtures.ts';
import { createSdJwtSigner } from './signer.ts';

// Nested selective disclosure and decoys (issue 29): @sd-jwt/sd-jwt-vc and node:crypto read and
// check every credential here; the signer's own code is never used to verify.

const NOW = Math.floor(Date.parse('2026-03-01T12:00:00Z') / 1000);
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
const decodeJson = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;

function verifierFor(publicJwk: PublicJwk) {
  const key = createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' });
  return new SDJwtVcInstance({
    hasher: (data) =>
      createHash('sha256')
        .update(typeof data === 'string' ? data : new Uint8Array(data))
        .digest(),
    verifier: (data, signature) => verify('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')),
  });
}

function split(compact: string) {
  const [jwt, ...rest] = compact.split('~');
  return { jwt: jwt as string, payload: decodeJson((jwt as string).split('.')[1] as string) as Record<string, unknown>, disclosures: rest.slice(0, -1) };
}

const claims = {
  given_name: 'Zoë',
  family_name: 'Müller',
  address: { street_address: 'Domkloster 4', locality: 'Köln', country: 'DE' },
  nationalities: ['DE', 'FR'],
  degrees: [
    { type: 'Bachelor', university: 'Bonn' },
    { type: 'Master', university: 'Aachen' },
  ],
};

async function setup(over: Partial<SdJwtSignInput> = {}) {
  const { keys, tenant } = await memoryKeyManager();
  const key = await keys.create(tenant.id, 'P-256');
  const input: SdJwtSignInput = {
    tenantId: tenant.id,
    keyId: key.id,
    alg: 'ES256',
    kid: 'did:key:zDnaeTest#zDnaeTest',
    payload: { iss: 'did:key:zDnaeTest', iat: NOW, nbf: NOW, exp: NOW + 86_400, vct: 'https://issuer.example/types/pid', cnf: { jwk: holderKey() }, ...claims },
    disclosable: ['given_name', 'address'],
    rules: [
      { path: ['given_name'], decoys: 4 },
      { path: ['address', 'street_address'], decoys: 2 },
      { path: ['address', 'locality'] },
      { path: ['nationalities', null], decoys: 3 },
      { path: ['degrees', null, 'type'], decoys: 1 },
    ],
    ...over,
  };
  const compact = await createSdJwtSigner({ keys }).issue(input);
  return { compact, library: verifierFor(key.publicJwk) };
}

describe('nested selective disclosure and decoys (RFC 9901 §4.2.2, §4.2.5, §6)', () => {
  it('@sd-jwt/sd-jwt-vc verifies the credential and gives back every nested claim as it was', async () => {
    const { compact, library } = await setup();
    const verified = await library.verify(compact, { currentDate: NOW, requiredClaimKeys: Object.keys(claims) });
    const payload = verified.payload as Record<string, unknown>;
    for (const [name, value] of Object.entries(claims)) expect(payload[name]).toEqual(value);
    expect(payload).not.toHaveProperty('_sd');
    // The library's own view of what a holder may leave out, nested paths included.
    const keys = await library.presentableKeys(compact);
    for (const path of ['given_name', 'address', 'address.street_address', 'address.locality', 'degrees.0.type', 'degrees.1.type'])
      expect(keys).toContain(path);
    // The library numbers array elements where they sit in the signed array, decoys counted: two real ones among five.
    expect(keys.filter((path) => path.startsWith('nationalities.'))).toHaveLength(2);
    for (const plain of ['family_name', 'address.country', 'degrees.0.university']) expect(keys).not.toContain(plain);
  });

  it('writes the configured number of decoys where each rule says, each unlike every real digest', async () => {
    const { compact } = await setup();
    const { payload, disclosures } = split(compact);
    const real = new Map(disclosures.map((d) => [sha256(d), decodeJson(d) as unknown[]]));
    const decoys = (digests: string[]) => digests.filter((digest) => !real.has(digest)).length;

    // Top level: given_name and address disclosed, and given_name's 4 decoys.
    const top = payload._sd as string[];
    expect(top).toHaveLength(6);
    expect(decoys(top)).toBe(4);
    expect(top).toEqual([...top].sort());
    expect(payload.family_name).toBe('Müller');

    // address: its disclosure carries an _sd of street_address, locality and 2 decoys; country stays plain.
    const address = [...real.values()].find((d) => d[1] === 'address')?.[2] as Record<string, unknown>;
    expect(address.country).toBe('DE');
    expect(address).not.toHaveProperty('street_address');
    expect(address._sd).toHaveLength(4);
    expect(decoys(address._sd as string[])).toBe(2);

    // nationalities: each element a {"...": digest} of a [salt, value] disclosure, with 3 decoy elements among them.
    const nationalities = payload.nationalities as { '...': string }[];
    expect(nationalities).toHaveLength(5);
    for (const element of nationalities) expect(Object.keys(element)).toEqual(['...']);
    expect(decoys(nationalities.map((e) => e['...']))).toBe(3);
    const elements = nationalities.map((e) => real.get(e['...'])).filter((d) => d !== undefined);
    expect(elements.map((d) => d.length)).toEqual([2, 2]);
    expect(elements.map((d) => d[1])).toEqual(['DE', 'FR']);

    // degrees: each element object keeps university and hides type behind its own _sd with 1 decoy.
    const degrees = payload.degrees as Record<string, unknown>[];
    for (const degree of degrees) {
      expect(Object.keys(degree).sort()).toEqual(['_sd', 'university']);
      expect(degree._sd).toHaveLength(2);
      expect(decoys(degree._sd as string[])).toBe(1);
    }
  });

  it('a presentation of only some nested claims verifies and shows only those', async () => {
    const { compact, library } = await setup();
    // Where FR sits in the signed array (decoys sit among the elements at random places).
    const { payload: signed, disclosures } = split(compact);
    const fr = disclosures.find((d) => (decodeJson(d) as unknown[])[1] === 'FR') as string;
    const at = (signed.nationalities as { '...': string }[]).findIndex((e) => e['...'] === sha256(fr));
    const presented = await library.present(compact, { given_name: true, address: { locality: true }, nationalities: { [at]: true } });
    const verified = await library.verify(presented, { currentDate: NOW });
    const payload = verified.payload as Record<string, unknown>;
    expect(payload.given_name).toBe('Zoë');
    expect(payload.address).toEqual({ locality: 'Köln', country: 'DE' });
    expect(payload.nationalities).toEqual(['FR']);
    expect(payload.degrees).toEqual([{ university: 'Bonn' }, { university: 'Aachen' }]);
  });

  it('leaves a value the rules do not fit as it is, and skips a rule whose claim is missing', async () => {
    const { compact, library } = await setup({
      rules: [{ path: ['family_name', 'first'] }, { path: ['given_name', null] }, { path: ['missing', 'x'], decoys: 2 }],
      disclosable: [],
    });
    const { payload, disclosures } = split(compact);
    expect(disclosures).toEqual([]);
    expect(payload.family_name).toBe('Müller');
    expect(payload.given_name).toBe('Zoë');
    expect(payload).not.toHaveProperty('_sd');
    const verified = await library.verify(compact, { currentDate: NOW });
    expect((verified.payload as Record<string, unknown>).address).toEqual(claims.address);
  });

  it('refuses a rule that reaches into a claim SD-JWT VC keeps in the signed payload', async () => {
    await expect(setup({ rules: [{ path: ['cnf', 'jwk'] }] })).rejects.toThrow(/cnf may not be selectively disclosable/);
    await expect(setup({ rules: [{ path: ['vct#integrity'] }] })).rejects.toThrow(/may not be selectively disclosable/);
  });
});
