import { createHash, createPublicKey, verify } from 'node:crypto';
import { DomainError, type PublicJwk } from '@vellum/core';
import { Decoder, Encoder, Tag } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { holderKey, mdocStatusEntry, memoryKeyManager } from '../../test/fixtures.ts';
import { type IssueMdocInput, issueMdoc, type MdocSigner } from './issue.ts';
import type { MdocValue } from './values.ts';

// The test reads the bytes with its own decoder and encoder, not the engine's.
const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });
const encoder = new Encoder({ mapsAsObjects: false, useRecords: false, tagUint8Array: false, variableMapSize: true });
const decode = (bytes: Uint8Array) => decoder.decode(bytes) as unknown;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

async function keyManagerSigner(x5chain: Uint8Array[] = [Buffer.from('30820001', 'hex')]) {
  const { keys, tenant } = await memoryKeyManager();
  const key = await keys.create(tenant.id, 'P-256');
  const signer: MdocSigner = { sign: (data) => keys.sign(tenant.id, key.id, data), x5chain };
  return { signer, publicJwk: key.publicJwk };
}

const NS = 'org.iso.18013.5.1';
const elements: Record<string, MdocValue> = {
  family_name: 'Turner',
  given_name: { type: 'string', value: 'Susan' },
  birth_date: { type: 'date', value: '1990-05-15' },
  issue_date: { type: 'dateTime', value: '2024-03-01T10:20:30.999+02:00' },
  age_over_18: true,
  height: 172,
  weight: { type: 'number', value: 61.5 },
  big: 2 ** 40,
  portrait: new Uint8Array([0xff, 0xd8, 0xff, 0xe0]),
  driving_privileges: [{ vehicle_category_code: 'B', issue_date: { type: 'date', value: '2010-01-02' } }],
};

async function issue(over: Partial<IssueMdocInput> = {}) {
  const { signer, publicJwk } = await keyManagerSigner();
  const deviceKey = holderKey();
  const input: IssueMdocInput = {
    docType: 'org.iso.18013.5.1.mDL',
    namespaces: { [NS]: elements },
    deviceKey,
    validity: { signed: new Date('2026-01-01T00:00:00.250Z'), validFrom: new Date('2026-01-01T00:00:00.250Z'), validUntil: new Date('2027-01-01T00:00:00Z') },
    signer,
    ...over,
  };
  const result = await issueMdoc(input);
  const issuerSigned = decode(result.issuerSigned) as Map<string, unknown>;
  const nameSpaces = issuerSigned.get('nameSpaces') as Map<string, Tag[]>;
  const issuerAuth = issuerSigned.get('issuerAuth') as [Uint8Array, Map<number, unknown>, Uint8Array, Uint8Array];
  const payload = decode(issuerAuth[2]) as Tag;
  const msoBytes = payload.value as Uint8Array;
  const mso = decode(msoBytes) as Map<string, unknown>;
  return { input, result, issuerSigned, nameSpaces, issuerAuth, payload, msoBytes, mso, signerJwk: publicJwk, deviceKey };
}

const itemsOf = (nameSpaces: Map<string, Tag[]>, ns = NS) =>
  (nameSpaces.get(ns) ?? []).map((tag) => ({ tag, bytes: tag.value as Uint8Array, item: decode(tag.value as Uint8Array) as Map<string, unknown> }));

describe('issueMdoc (ISO/IEC 18013-5 §9.1.2: IssuerSigned, MobileSecurityObject, issuerAuth)', () => {
  it('returns IssuerSigned { nameSpaces, issuerAuth } and its base64url form as the credential (OpenID4VCI Appendix A.2)', async () => {
    const { result, issuerSigned } = await issue();
    expect([...issuerSigned.keys()]).toEqual(['nameSpaces', 'issuerAuth']);
    expect(result.credential).toBe(Buffer.from(result.issuerSigned).toString('base64url'));
    expect(result.credential).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('wraps every IssuerSignedItem as #6.24(bstr) holding digestID, random (16 bytes), elementIdentifier and elementValue (§8.3.2.1.2.2)', async () => {
    const { nameSpaces } = await issue();
    const items = itemsOf(nameSpaces);
    expect(items).toHaveLength(Object.keys(elements).length);
    for (const { tag, item } of items) {
      expect(tag).toBeInstanceOf(Tag);
      expect(tag.tag).toBe(24);
      expect([...item.keys()]).toEqual(['digestID', 'random', 'elementIdentifier', 'elementValue']);
      expect(item.get('random')).toHaveLength(16);
    }
    expect(items.map(({ item }) => item.get('elementIdentifier'))).toEqual(Object.keys(elements));
  });

  it('digests each item as SHA-256 over the exact #6.24 bytes IssuerSigned carries (§9.1.2.5)', async () => {
    const { result, nameSpaces, mso } = await issue();
    const digests = (mso.get('valueDigests') as Map<string, Map<number, Uint8Array>>).get(NS)!;
    expect(digests.size).toBe(Object.keys(elements).length);
    for (const { bytes, item } of itemsOf(nameSpaces)) {
      const head = bytes.length < 256 ? [0xd8, 0x18, 0x58, bytes.length] : [0xd8, 0x18, 0x59, bytes.length >> 8, bytes.length & 0xff];
      const tagged = Buffer.concat([Buffer.from(head), bytes]);
      // The very bytes sent appear in IssuerSigned, and their digest is the one the MSO signs.
      expect(Buffer.from(result.issuerSigned).indexOf(tagged)).toBeGreaterThan(0);
      expect(hex(digests.get(item.get('digestID') as number)!)).toBe(createHash('sha256').update(tagged).digest('hex'));
    }
  });

  it('uses unique digest IDs in a random order and fresh random salts for every item and every issuance', async () => {
    const runs = await Promise.all([issue(), issue(), issue(), issue(), issue()]);
    const salts = new Set<string>();
    const orders = new Set<string>();
    for (const { nameSpaces } of runs) {
      const items = itemsOf(nameSpaces);
      const ids = items.map(({ item }) => item.get('digestID') as number);
      expect([...ids].sort((a, b) => a - b)).toEqual(items.map((_, i) => i));
      orders.add(ids.join(','));
      for (const { item } of items) salts.add(hex(item.get('random') as Uint8Array));
    }
    expect(salts.size).toBe(runs.length * Object.keys(elements).length);
    // Five shuffles of ten IDs all alike would happen once in (10!)^4.
    expect(orders.size).toBeGreaterThan(1);
  });

  it('writes the MSO: version 1.0, SHA-256, valueDigests, deviceKeyInfo, docType, validityInfo (§9.1.2.4)', async () => {
    const { mso, input } = await issue();
    expect([...mso.keys()]).toEqual(['version', 'digestAlgorithm', 'valueDigests', 'deviceKeyInfo', 'docType', 'validityInfo']);
    expect(mso.get('version')).toBe('1.0');
    expect(mso.get('digestAlgorithm')).toBe('SHA-256');
    expect(mso.get('docType')).toBe(input.docType);
    expect(mso.has('status')).toBe(false);
  });

  it('binds the holder key as deviceKeyInfo.deviceKey, a COSE_Key {1: 2, -1: 1, -2: x, -3: y} (RFC 9053 §7.1.1)', async () => {
    const { mso, deviceKey } = await issue();
    const coseKey = (mso.get('deviceKeyInfo') as Map<string, unknown>).get('deviceKey') as Map<number, unknown>;
    expect([...coseKey.keys()]).toEqual([1, -1, -2, -3]);
    expect(coseKey.get(1)).toBe(2);
    expect(coseKey.get(-1)).toBe(1);
    expect(Buffer.from(coseKey.get(-2) as Uint8Array).toString('base64url')).toBe(deviceKey.x);
    expect(Buffer.from(coseKey.get(-3) as Uint8Array).toString('base64url')).toBe(deviceKey.y);
  });

  it('writes validityInfo as tdate (tag 0) at whole seconds in UTC, and returns those instants', async () => {
    const { msoBytes, mso, result } = await issue({
      validity: {
        signed: new Date('2026-01-01T00:00:00.250Z'),
        validFrom: new Date('2026-01-01T00:00:00.900Z'),
        validUntil: new Date('2027-01-01T00:00:00Z'),
        expectedUpdate: new Date('2026-07-01T12:00:00Z'),
      },
    });
    const info = mso.get('validityInfo') as Map<string, unknown>;
    expect([...info.keys()]).toEqual(['signed', 'validFrom', 'validUntil', 'expectedUpdate']);
    const raw = Buffer.from(msoBytes);
    for (const text of ['2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z', '2026-07-01T12:00:00Z']) {
      expect(raw.indexOf(Buffer.concat([Buffer.from([0xc0, 0x74]), Buffer.from(text)]))).toBeGreaterThan(0);
    }
    expect(result.validFrom.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(result.validUntil.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('writes typed element values: full-date tag 1004, tdate tag 0 in UTC without fraction, and plain CBOR for the rest', async () => {
    const { nameSpaces } = await issue();
    const byName = new Map(itemsOf(nameSpaces).map(({ bytes, item }) => [item.get('elementIdentifier') as string, { bytes, value: item.get('elementValue') }]));
    expect(byName.get('family_name')!.value).toBe('Turner');
    expect(byName.get('given_name')!.value).toBe('Susan');
    expect(byName.get('birth_date')!.value).toEqual(new Tag('1990-05-15', 1004));
    // cbor-x turns tag 0 into a Date; the bytes show the string itself.
    expect(byName.get('issue_date')!.value).toEqual(new Date('2024-03-01T08:20:30Z'));
    expect(
      Buffer.from(byName.get('issue_date')!.bytes).indexOf(Buffer.concat([Buffer.from([0xc0, 0x74]), Buffer.from('2024-03-01T08:20:30Z')])),
    ).toBeGreaterThan(0);
    expect(byName.get('age_over_18')!.value).toBe(true);
    expect(byName.get('height')!.value).toBe(172);
    expect(byName.get('weight')!.value).toBe(61.5);
    expect(hex(byName.get('big')!.bytes)).toContain('1b0000010000000000'); // uint64, not a float
    expect(hex(byName.get('portrait')!.value as Uint8Array)).toBe('ffd8ffe0');
    expect(hex(byName.get('portrait')!.bytes)).toContain('44ffd8ffe0'); // a plain bstr, no tag 64
    const privileges = byName.get('driving_privileges')!.value as Map<string, unknown>[];
    expect(privileges).toHaveLength(1);
    expect(privileges[0]!.get('vehicle_category_code')).toBe('B');
    expect(privileges[0]!.get('issue_date')).toEqual(new Tag('2010-01-02', 1004));
  });

  it('signs issuerAuth as COSE_Sign1 [protected {1: -7}, {33: x5chain}, payload, signature] that node:crypto verifies (RFC 9052 §4.4)', async () => {
    const { issuerAuth, payload, signerJwk, input } = await issue();
    const [protectedBytes, unprotected, payloadBytes, signature] = issuerAuth;
    expect(hex(protectedBytes)).toBe('a10126');
    expect(decode(protectedBytes)).toEqual(new Map([[1, -7]]));
    expect(hex(unprotected.get(33) as Uint8Array)).toBe(hex(input.signer.x5chain[0]!)); // one certificate: a bstr
    expect(payload).toBeInstanceOf(Tag);
    expect(payload.tag).toBe(24);
    expect(signature).toHaveLength(64);
    const toBeSigned = encoder.encode(['Signature1', protectedBytes, new Uint8Array(0), payloadBytes]);
    const key = createPublicKey({ key: { ...signerJwk }, format: 'jwk' });
    expect(verify('sha256', toBeSigned, { key, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
    const tampered = Buffer.from(payloadBytes);
    tampered[tampered.length - 1]! ^= 1;
    expect(verify('sha256', encoder.encode(['Signature1', protectedBytes, new Uint8Array(0), tampered]), { key, dsaEncoding: 'ieee-p1363' }, signature)).toBe(
      false,
    );
  });

  it('digests a large item (a 70 KB portrait, 4-byte length heads) over the same bytes it sends', async () => {
    const portrait = new Uint8Array(70_000).fill(0xab);
    const { result, nameSpaces, mso } = await issue({ namespaces: { [NS]: { portrait } } });
    const { bytes, item } = itemsOf(nameSpaces)[0]!;
    const n = bytes.length;
    const tagged = Buffer.concat([Buffer.from([0xd8, 0x18, 0x5a, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]), bytes]);
    expect(Buffer.from(result.issuerSigned).indexOf(tagged)).toBeGreaterThan(0);
    const digest = (mso.get('valueDigests') as Map<string, Map<number, Uint8Array>>).get(NS)!.get(item.get('digestID') as number)!;
    expect(hex(digest)).toBe(createHash('sha256').update(tagged).digest('hex'));
  });

  it('keeps concurrent issuances apart: the shared encoder never lets one credential’s bytes leak into another', async () => {
    const { signer, publicJwk } = await keyManagerSigner();
    // A signer that answers out of order, so encodings of many credentials interleave.
    const slow: MdocSigner = {
      ...signer,
      sign: async (data) => {
        await new Promise((r) => setTimeout(r, Math.random() * 5));
        return signer.sign(data);
      },
    };
    const runs = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        issue({ signer: slow, namespaces: { [NS]: { document_number: `DL-${i}`, portrait: new Uint8Array(3000).fill(i) } } }),
      ),
    );
    const key = createPublicKey({ key: { ...publicJwk }, format: 'jwk' });
    runs.forEach(({ issuerAuth, nameSpaces, mso }, i) => {
      const [protectedBytes, , payloadBytes, signature] = issuerAuth;
      expect(
        verify('sha256', encoder.encode(['Signature1', protectedBytes, new Uint8Array(0), payloadBytes]), { key, dsaEncoding: 'ieee-p1363' }, signature),
      ).toBe(true);
      const digests = (mso.get('valueDigests') as Map<string, Map<number, Uint8Array>>).get(NS)!;
      for (const { bytes, item } of itemsOf(nameSpaces)) {
        expect(hex(digests.get(item.get('digestID') as number)!)).toBe(
          createHash('sha256')
            .update(encoder.encode(new Tag(bytes, 24)))
            .digest('hex'),
        );
      }
      expect(
        itemsOf(nameSpaces)
          .find(({ item }) => item.get('elementIdentifier') === 'document_number')!
          .item.get('elementValue'),
      ).toBe(`DL-${i}`);
    });
  });

  it('puts a certificate chain of several into x5chain as an array', async () => {
    const { signer } = await keyManagerSigner([Buffer.from('3001', 'hex'), Buffer.from('3002', 'hex')]);
    const { issuerAuth } = await issue({ signer });
    expect((issuerAuth[1].get(33) as Uint8Array[]).map(hex)).toEqual(['3001', '3002']);
  });

  it('adds the Token Status List entry { status_list: { idx, uri } } when given (docs/status-lists.md, Draft 14 `status`)', async () => {
    const { mso } = await issue({ status: { uri: 'https://issuer.example/v2/credentials/mobile/status-lists/1/token', idx: 4711 } });
    expect(mso.get('status')).toEqual(mdocStatusEntry(4711, 'https://issuer.example/v2/credentials/mobile/status-lists/1/token'));
  });

  it.each([
    ['status', 'draft 14', '_status'],
    ['_status', 'legacy', 'status'],
  ] as const)('writes the entry under `%s` for a %s list, and nothing under `%s`', async (field, _format, other) => {
    const uri = 'https://issuer.example/v2/credentials/mobile/status-lists/5d0c/token';
    const { mso } = await issue({ status: { field, uri, idx: 0 } });
    expect(mso.get(field)).toEqual(mdocStatusEntry(0, uri));
    expect(mso.has(other)).toBe(false);
  });

  it('keeps several namespaces apart, each with its own digests', async () => {
    const { nameSpaces, mso } = await issue({
      namespaces: { [NS]: { family_name: 'A' }, 'org.example.1': { member: true, since: { type: 'date', value: '2020-02-29' } } },
    });
    expect([...nameSpaces.keys()]).toEqual([NS, 'org.example.1']);
    const digests = mso.get('valueDigests') as Map<string, Map<number, Uint8Array>>;
    expect(digests.get(NS)!.size).toBe(1);
    expect(digests.get('org.example.1')!.size).toBe(2);
  });

  it.each([
    ['a date that is not a day', { [NS]: { birth_date: { type: 'date', value: '1990-02-30' } } }, `${NS}.birth_date`],
    ['a date with a time', { [NS]: { birth_date: { type: 'date', value: '1990-02-01T00:00:00Z' } } }, `${NS}.birth_date`],
    ['a dateTime that is not one', { [NS]: { issue_date: { type: 'dateTime', value: 'yesterday' } } }, `${NS}.issue_date`],
    ['a number that is not finite', { [NS]: { height: Number.NaN } }, `${NS}.height`],
    ['a typed value of the wrong type', { [NS]: { age_over_18: { type: 'boolean', value: 'yes' } } } as never, `${NS}.age_over_18`],
    ['a JavaScript Date', { [NS]: { when: new Date() } } as never, `${NS}.when`],
    ['a nested bad value', { [NS]: { driving_privileges: [{ issue_date: { type: 'date', value: '2010-13-01' } }] } }, `${NS}.driving_privileges[0].issue_date`],
    ['an empty namespace', { [NS]: {} }, `namespaces.${NS}`],
    ['no namespace', {}, 'namespaces'],
  ])('refuses %s with a 400 naming it', async (_name, namespaces, param) => {
    const error = await issue({ namespaces }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'BadRequest', details: [{ param }] });
  });

  it('reads a plain object that merely looks typed only when it has exactly type and value; a Map is always a map', async () => {
    const { nameSpaces } = await issue({
      namespaces: {
        [NS]: {
          a: { type: 'date', value: '2020-01-01', extra: 1 },
          b: new Map<string, MdocValue>([
            ['type', 'date'],
            ['value', '2020-01-01'],
          ]),
        },
      },
    });
    const values = itemsOf(nameSpaces).map(({ item }) => item.get('elementValue'));
    expect(values[0]).toBeInstanceOf(Map);
    expect(values[1]).toEqual(
      new Map([
        ['type', 'date'],
        ['value', '2020-01-01'],
      ]),
    );
  });

  it.each([
    ['an Ed25519 device key', { deviceKey: { kty: 'OKP', crv: 'Ed25519', x: Buffer.alloc(32).toString('base64url') } as PublicJwk }, 'deviceKey'],
    ['a short coordinate', { deviceKey: { kty: 'EC', crv: 'P-256', x: 'AAAA', y: Buffer.alloc(32).toString('base64url') } as PublicJwk }, 'deviceKey.x'],
    [
      'validUntil before validFrom',
      { validity: { signed: new Date('2026-01-01Z'), validFrom: new Date('2026-01-01Z'), validUntil: new Date('2025-01-01Z') } },
      'validity.validUntil',
    ],
    [
      'validFrom before signed',
      { validity: { signed: new Date('2026-01-02Z'), validFrom: new Date('2026-01-01Z'), validUntil: new Date('2027-01-01Z') } },
      'validity.validFrom',
    ],
    ['a negative status index', { status: { uri: 'https://x.example/s', idx: -1 } }, 'status.idx'],
    ['a status field of another name', { status: { field: 'revocation' as never, uri: 'https://x.example/s', idx: 1 } }, 'status.field'],
    ['an empty docType', { docType: '' }, 'docType'],
  ])('refuses %s', async (_name, over, param) => {
    const error = await issue(over).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BadRequest', details: [{ param }] });
  });

  it('refuses a signer whose signature is not 64 bytes rather than issuing a credential nobody can verify', async () => {
    const error = await issue({ signer: { sign: async () => new Uint8Array(70), x5chain: [new Uint8Array([0x30])] } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'InternalServerError' });
  });
});
