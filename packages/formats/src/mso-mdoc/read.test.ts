import { generateKeyPairSync, sign } from 'node:crypto';
import type { PublicJwk } from '@vellum/core';
import { createDocumentSignerCertificate, createIacaCertificate } from '@vellum/crypto';
import { Decoder, Tag } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { cbor } from './cbor.ts';
import { issueMdoc } from './issue.ts';
import { createMdocReader } from './read.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const DAY = 86_400_000;

function p256() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string } satisfies PublicJwk,
    sign: async (data: Uint8Array) => new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
  };
}

async function issued() {
  const iacaKey = p256();
  const signerKey = p256();
  const common = { country: 'US', issuerAlternativeName: 'mailto:pki@example.org', crlDistributionPointUri: 'https://example.org/crl' };
  const iaca = await createIacaCertificate({ key: iacaKey, commonName: 'IACA', notBefore: NOW, notAfter: new Date(NOW.getTime() + 3650 * DAY), ...common });
  const signer = await createDocumentSignerCertificate({
    iaca: { certificateDer: iaca.der, key: iacaKey },
    subjectPublicJwk: signerKey.publicJwk,
    commonName: 'DS',
    notBefore: NOW,
    notAfter: new Date(NOW.getTime() + 30 * DAY),
    ...common,
  });
  const result = await issueMdoc({
    docType: 'org.example.card',
    namespaces: {
      'org.example': {
        name: 'Ada',
        born: { type: 'date', value: '1815-12-10' },
        seen: { type: 'dateTime', value: '2026-01-02T03:04:05Z' },
        photo: Uint8Array.of(1, 2),
      },
    },
    deviceKey: p256().publicJwk,
    validity: { signed: NOW, validFrom: NOW, validUntil: new Date(NOW.getTime() + 10 * DAY) },
    status: { uri: 'https://example.org/status/1', idx: 3 },
    signer: { sign: signerKey.sign, x5chain: [signer.der] },
  });
  return { result, signer };
}

describe('createMdocReader', () => {
  const reader = createMdocReader();

  it('reads an IssuerSigned as issued: the signature verifies, each item digest equals the MSO one, values as JSON', async () => {
    const { result, signer } = await issued();
    const reading = reader.read(result.issuerSigned, {});
    if (!reading.ok) throw new Error(reading.reason);
    expect(reading.kind).toBe('issuer-signed');
    const [document] = reading.documents;
    expect(document?.issuerSignature).toEqual({ valid: true });
    expect(document?.x5chain).toEqual([new Uint8Array(signer.der)]);
    expect(document?.mso).toMatchObject({
      docType: 'org.example.card',
      digestAlgorithm: 'SHA-256',
      hasStatus: true,
      validityInfo: { signed: NOW, validFrom: NOW },
    });
    expect(document?.deviceAuth).toBeUndefined();
    const values = Object.fromEntries(document?.items.map((item) => [item.elementIdentifier, item.elementValue]) ?? []);
    expect(values).toEqual({ name: 'Ada', born: '1815-12-10', seen: '2026-01-02T03:04:05.000Z', photo: 'AQI' });
    for (const item of document?.items ?? []) expect(item.digest).toEqual(new Uint8Array(document?.mso.valueDigests[item.namespace]?.get(item.digestId) ?? []));
  });

  it('finds a signature that does not verify once the signature bytes change', async () => {
    const { result } = await issued();
    const bytes = Buffer.from(result.issuerSigned);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    const reading = reader.read(bytes, {});
    expect(reading.ok && reading.documents[0]?.issuerSignature.valid).toBe(false);
  });

  it('answers ok false with a reason for what is not an mDoc, never a throw', () => {
    expect(reader.read(Uint8Array.of(0xff, 0x00), {})).toMatchObject({ ok: false });
    expect(reader.read(Uint8Array.of(0xa0), {})).toEqual({ ok: false, reason: 'Neither a DeviceResponse nor an IssuerSigned' });
    // { "issuerAuth": 1 }
    expect(reader.read(Uint8Array.of(0xa1, 0x6a, ...Buffer.from('issuerAuth'), 0x01), {})).toEqual({ ok: false, reason: 'issuerAuth is not a COSE_Sign1' });
  });

  it('fails only device authentication when the device part is malformed, and tells deviceMac apart', async () => {
    const { result } = await issued();
    const issuerSigned = new Decoder({ mapsAsObjects: false, useRecords: false }).decode(result.issuerSigned);
    const response = (deviceAuth: Map<string, unknown>) =>
      cbor.encode(
        new Map<string, unknown>([
          ['version', '1.0'],
          [
            'documents',
            [
              new Map<string, unknown>([
                ['docType', 'org.example.card'],
                ['issuerSigned', issuerSigned],
                [
                  'deviceSigned',
                  new Map<string, unknown>([
                    ['nameSpaces', new Tag(Uint8Array.of(0xa0), 24)],
                    ['deviceAuth', deviceAuth],
                  ]),
                ],
              ]),
            ],
          ],
          ['status', 0],
        ]),
      );
    const malformed = reader.read(response(new Map([['deviceSignature', 'nonsense']])), { sessionTranscript: Uint8Array.of(0x83, 0xf6, 0xf6, 0xf6) });
    if (!malformed.ok) throw new Error(malformed.reason);
    expect(malformed.kind).toBe('device-response');
    expect(malformed.documents[0]?.issuerSignature).toEqual({ valid: true });
    expect(malformed.documents[0]?.deviceAuth).toEqual({ kind: 'signature', valid: false, reason: 'deviceSignature is not a COSE_Sign1' });
    const mac = reader.read(response(new Map([['deviceMac', []]])), {});
    expect(mac.ok && mac.documents[0]?.deviceAuth).toEqual({ kind: 'mac' });
  });
});
