import { X509Certificate } from 'node:crypto';
import { DomainError, type StatusListTokenInput } from '@vellum/core';
import { createX509Authority } from '@vellum/crypto';
import { describe, expect, it } from 'vitest';
import { memoryKeyManager } from '../../test/fixtures.ts';
import { expectEveryChangeRefused, inflateList } from '../../test/status-list.ts';
import { loadCoseTs } from '../cwt/independent-cose.ts';
import { createStatusListTokenSigner } from './status-list-token.ts';

// The token is built with cbor-x and node:zlib and read back only with other code: @ldclabs/cose-ts
// (cborg, @noble/curves) for COSE and CBOR, pako for zlib, node:crypto for the certificates.
const cose = await loadCoseTs();

/** A document signer under an IACA, both made by the KeyManager-backed X509Authority, as a tenant has them. */
async function pki() {
  const { keys, tenant } = await memoryKeyManager();
  const x509 = createX509Authority({ keys });
  const iacaKey = await keys.create(tenant.id, 'P-256');
  const names = {
    country: 'US',
    issuerAlternativeName: 'https://issuer.example',
    crlDistributionPointUri: 'https://issuer.example/v2/credentials/mobile/iacas/1/crl',
  };
  const iaca = await x509.createIacaCertificate({
    key: iacaKey,
    commonName: 'Status Test IACA',
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter: new Date('2030-01-01T00:00:00Z'),
    ...names,
  });
  const signerKey = await keys.create(tenant.id, 'P-256');
  const ds = await x509.createDocumentSignerCertificate({
    issuer: { key: { tenantId: tenant.id, keyId: iacaKey.id }, certificatePem: iaca.pem },
    subjectPublicJwk: signerKey.publicJwk,
    commonName: 'Status Test Document Signer',
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter: new Date('2027-01-01T00:00:00Z'),
    ...names,
  });
  return { keys, tenantId: tenant.id, iacaKey, iaca, signerKey, ds, signer: createStatusListTokenSigner({ keys }) };
}

const setup = await pki();
const URI = 'https://issuer.example/v2/credentials/mobile/status-lists/3f1c0a52-3d4e-4c1a-9a57-2b7f1e1d0c11/token';
const ISSUED = new Date('2026-03-01T12:00:00.750Z');
const EXPIRES = new Date('2026-03-02T12:00:00.250Z');

/** Packs statuses as draft 14 §4.1 step 3 lays them out: entry i at bits i·bits.., least significant first. */
function pack(size: number, bits: 1 | 2, entries: Record<number, number>): Uint8Array {
  const bytes = new Uint8Array(Math.ceil((size * bits) / 8));
  for (const [i, value] of Object.entries(entries)) {
    const at = Number(i) * bits;
    bytes[at >> 3] = (bytes[at >> 3] as number) | (value << (at & 7));
  }
  return bytes;
}

/** A verifier's read of entry `i` (draft 14 §4.1, §8.3). */
const statusAt = (list: Uint8Array, i: number, bits: number) => ((list[(i * bits) >> 3] as number) >> ((i * bits) & 7)) & ((1 << bits) - 1);

function input(over: Partial<StatusListTokenInput> = {}): StatusListTokenInput {
  return {
    tenantId: setup.tenantId,
    format: 'draft-14',
    uri: URI,
    issuedAt: ISSUED,
    expiresAt: EXPIRES,
    ttlSeconds: 43_200,
    bits: 1,
    statuses: pack(16, 1, {}),
    signer: { keyId: setup.signerKey.id, x5chain: [setup.ds.der] },
    ...over,
  };
}

/**
 * What a relying party does with a token (draft 14 §8.3): take the document signer certificate from
 * x5chain, check that the IACA issued it, verify the COSE_Sign1 with its key, then read the claims.
 */
function verify(token: Uint8Array, iacaDer: Uint8Array = setup.iaca.der) {
  const [protectedBytes, unprotected] = cose.decodeCBOR(token) as [Uint8Array, Map<number, unknown>, Uint8Array, Uint8Array];
  const x5chain = unprotected.get(33);
  const leaf = new X509Certificate(Buffer.from(x5chain instanceof Uint8Array ? x5chain : (x5chain as Uint8Array[])[0]!));
  const iaca = new X509Certificate(Buffer.from(iacaDer));
  if (!leaf.checkIssued(iaca) || !leaf.verify(iaca.publicKey)) throw new Error('x5chain does not chain to the IACA');
  const jwk = leaf.publicKey.export({ format: 'jwk' });
  const key = cose.ECDSAKey.fromPublic(
    Buffer.concat([Uint8Array.of(0x04), Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]),
  );
  const message = cose.Sign1Message.fromBytes(key, token);
  const claims = cose.decodeCBOR(message.payload) as Map<number, unknown>;
  return { message, protectedHeader: cose.decodeCBOR(protectedBytes) as Map<number, unknown>, x5chain, claims };
}

describe('createStatusListTokenSigner (IETF Token Status List draft 14 §5.2; docs/status-lists.md)', () => {
  it('signs a draft 14 token that verifies against the document signer certificate the IACA issued', async () => {
    const token = await setup.signer.sign(input());
    const { message, protectedHeader, x5chain } = verify(token);
    expect(protectedHeader).toEqual(
      new Map<number, unknown>([
        [1, -7],
        [16, 'application/statuslist+cwt'],
      ]),
    );
    expect(message.protected?.getText(16)).toBe('application/statuslist+cwt');
    // One certificate goes as a byte string (RFC 9360 §2), the document signer's DER as it is.
    expect(x5chain).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(x5chain as Uint8Array).equals(Buffer.from(setup.ds.der))).toBe(true);
  });

  it('is the untagged COSE_Sign1 (an array of four), as draft 14’s example token is', async () => {
    const token = await setup.signer.sign(input());
    expect(token[0]).toBe(0x84);
    expect((cose.decodeCBOR(token) as unknown[]).length).toBe(4);
  });

  it('writes sub, iat, exp, ttl (65534) and status_list (65533) in draft 14, as integers in whole seconds', async () => {
    const { claims } = verify(await setup.signer.sign(input()));
    expect([...claims.keys()]).toEqual([2, 6, 4, 65534, 65533]);
    expect(claims.get(2)).toBe(URI);
    expect(claims.get(6)).toBe(Date.UTC(2026, 2, 1, 12, 0, 0) / 1000);
    expect(claims.get(4)).toBe(Date.UTC(2026, 2, 2, 12, 0, 0) / 1000);
    expect(claims.get(65534)).toBe(43_200);
    const statusList = claims.get(65533) as Map<string, unknown>;
    expect([...statusList.keys()]).toEqual(['bits', 'lst']);
    expect(statusList.get('bits')).toBe(1);
    expect(statusList.get('lst')).toBeInstanceOf(Uint8Array);
    // cose-ts's own CWT reading agrees on the registered claims.
    const read = cose.Claims.fromBytes(verify(await setup.signer.sign(input())).message.payload);
    expect([read.sub, read.iat, read.exp]).toEqual([URI, Date.UTC(2026, 2, 1, 12) / 1000, Date.UTC(2026, 2, 2, 12) / 1000]);
  });

  it('carries a 1-bit list of 500,000 entries that reads back valid and invalid at the right indexes', async () => {
    const invalid = [7, 12_345, 255_000, 499_999];
    const statuses = pack(500_000, 1, Object.fromEntries(invalid.map((i) => [i, 1])));
    const { claims } = verify(await setup.signer.sign(input({ statuses })));
    const list = inflateList((claims.get(65533) as Map<string, Uint8Array>).get('lst')!);
    expect(list.length).toBe(62_500);
    expect(Buffer.from(list).equals(Buffer.from(statuses))).toBe(true);
    for (const i of invalid) expect(statusAt(list, i, 1), `index ${i}`).toBe(1);
    for (const i of [0, 6, 8, 12_344, 12_346, 254_999, 499_998]) expect(statusAt(list, i, 1), `index ${i}`).toBe(0);
    let set = 0;
    for (let i = 0; i < 500_000; i++) set += statusAt(list, i, 1);
    expect(set).toBe(invalid.length);
  });

  it('signs a legacy token: typ mattr-statuslist+cwt, ttl -65539, status_list -65538 with 2 bits (valid, invalid, suspended)', async () => {
    const statuses = pack(500_000, 2, { 7: 1, 12345: 2, 12347: 1, 499999: 2 });
    const token = await setup.signer.sign(input({ format: 'legacy', bits: 2, statuses }));
    const { protectedHeader, claims } = verify(token);
    expect(protectedHeader.get(16)).toBe('mattr-statuslist+cwt');
    expect([...claims.keys()]).toEqual([2, 6, 4, -65539, -65538]);
    expect(claims.has(65533) || claims.has(65534)).toBe(false);
    expect(claims.get(2)).toBe(URI);
    expect(claims.get(-65539)).toBe(43_200);
    const statusList = claims.get(-65538) as Map<string, unknown>;
    expect(statusList.get('bits')).toBe(2);
    const list = inflateList(statusList.get('lst') as Uint8Array);
    expect(list.length).toBe(125_000);
    const expected: Record<number, number> = { 0: 0, 6: 0, 7: 1, 8: 0, 12344: 0, 12345: 2, 12346: 0, 12347: 1, 499998: 0, 499999: 2 };
    for (const [i, value] of Object.entries(expected)) expect(statusAt(list, Number(i), 2), `index ${i}`).toBe(value);
  });

  it('keeps draft 14 §4.1’s example lists bit for bit (1 bit: 0xB9 0xA3; 2 bits: 0xC9 0x44 0xF9)', async () => {
    const one = verify(await setup.signer.sign(input({ statuses: Uint8Array.of(0xb9, 0xa3) }))).claims.get(65533) as Map<string, Uint8Array>;
    const oneBit = inflateList(one.get('lst')!);
    expect(Array.from({ length: 16 }, (_, i) => statusAt(oneBit, i, 1))).toEqual([1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]);
    const two = verify(await setup.signer.sign(input({ format: 'legacy', bits: 2, statuses: Uint8Array.of(0xc9, 0x44, 0xf9) }))).claims.get(-65538) as Map<
      string,
      Uint8Array
    >;
    const twoBits = inflateList(two.get('lst')!);
    expect(Array.from({ length: 12 }, (_, i) => statusAt(twoBits, i, 2))).toEqual([1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3]);
  });

  it('writes the protected header and payload of draft 14 §5.2’s example token byte for byte, given its inputs', async () => {
    // The example (draft-ietf-oauth-status-list-14, examples/status_list_cwt.md): sub
    // https://example.com/statuslists/1, iat 1686920170, exp 2291720170, ttl 43200, the 1-bit list
    // 0xB9 0xA3. Its unprotected header (kid) and signature are its own key's, so only these two compare.
    // (Its lst is zlib level 9 output, which node:zlib reproduces; a zlib that compressed differently
    // would fail here with a token that is still valid, and the tests above would still pass.)
    const exampleProtected = 'a2012610781a6170706c69636174696f6e2f7374617475736c6973742b637774';
    const examplePayload =
      'a502782168747470733a2f2f6578616d706c652e636f6d2f7374617475736c697374732f31061a648c5bea041a8898dfea19fffe19a8c019fffda2646269747301636c73744a78dadbb918000217015d';
    const token = await setup.signer.sign(
      input({
        uri: 'https://example.com/statuslists/1',
        issuedAt: new Date(1686920170 * 1000),
        expiresAt: new Date(2291720170 * 1000),
        statuses: Uint8Array.of(0xb9, 0xa3),
      }),
    );
    const { message } = verify(token);
    const [protectedBytes] = cose.decodeCBOR(token) as [Uint8Array];
    expect(Buffer.from(protectedBytes).toString('hex')).toBe(exampleProtected);
    expect(Buffer.from(message.payload).toString('hex')).toBe(examplePayload);
  });

  it('compresses: a list of 500,000 valid entries is a few hundred bytes of lst', async () => {
    const { claims } = verify(await setup.signer.sign(input({ statuses: new Uint8Array(62_500) })));
    const lst = (claims.get(65533) as Map<string, Uint8Array>).get('lst')!;
    expect(lst.length).toBeLessThan(200);
    expect(inflateList(lst)).toEqual(new Uint8Array(62_500));
  });

  it('puts a chain of several certificates into x5chain as an array, the document signer’s first', async () => {
    const token = await setup.signer.sign(input({ signer: { keyId: setup.signerKey.id, x5chain: [setup.ds.der, setup.iaca.der] } }));
    const { x5chain } = verify(token);
    expect(Array.isArray(x5chain)).toBe(true);
    expect((x5chain as Uint8Array[]).map((der) => Buffer.from(der).toString('hex'))).toEqual([
      Buffer.from(setup.ds.der).toString('hex'),
      Buffer.from(setup.iaca.der).toString('hex'),
    ]);
  });

  it('fails verification after any one byte of the signed content or the signature changes', async () => {
    const token = await setup.signer.sign(input({ statuses: pack(64, 1, { 7: 1 }) }));
    expect(() => verify(token)).not.toThrow();
    const [protectedBytes, , payload] = cose.decodeCBOR(token) as [Uint8Array, unknown, Uint8Array];
    const at = (part: Uint8Array, offset: number) => Buffer.from(token).indexOf(Buffer.from(part)) + offset;
    const lst = (cose.decodeCBOR(payload) as Map<number, Map<string, Uint8Array>>).get(65533)!.get('lst')!;
    expectEveryChangeRefused(
      token,
      [
        ['the typ in the protected header', at(protectedBytes, protectedBytes.length - 1)],
        ['the sub claim', at(payload, Buffer.from(payload).indexOf('status-lists'))],
        ['a byte of lst', Buffer.from(token).indexOf(Buffer.from(lst)) + 4],
        ['the signature', token.length - 1],
      ],
      verify,
    );
  });

  it('does not verify against a certificate of another key: it is signed with the document signer key it names', async () => {
    const token = await setup.signer.sign(input({ signer: { keyId: setup.iacaKey.id, x5chain: [setup.ds.der] } }));
    expect(() => verify(token)).toThrow(/signature mismatch/);
  });

  it.each([
    ['a 2-bit width for a draft 14 list', { bits: 2 as const }, 'bits'],
    ['a 1-bit width for a legacy list', { format: 'legacy' as const, bits: 1 as const }, 'bits'],
    ['a ttl of zero', { ttlSeconds: 0 }, 'ttlSeconds'],
    ['a ttl that is not whole', { ttlSeconds: 1.5 }, 'ttlSeconds'],
    ['an expiry not after issuance', { expiresAt: ISSUED }, 'expiresAt'],
    ['an empty uri', { uri: '' }, 'uri'],
    ['an issuance time that is no date', { issuedAt: new Date('never') }, 'issuedAt'],
    ['an unknown format', { format: 'draft-99' as never }, 'format'],
    ['no certificate', { signer: { keyId: 'k', x5chain: [] } }, 'signer.x5chain'],
  ])('refuses %s', async (_name, over, param) => {
    const error = await setup.signer.sign(input(over)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'BadRequest', details: [{ param }] });
  });

  it('fails with NotFound when the signer key is gone, as KeyManager.sign does', async () => {
    const error = await setup.signer.sign(input({ signer: { keyId: crypto.randomUUID(), x5chain: [setup.ds.der] } })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NotFound' });
  });
});
