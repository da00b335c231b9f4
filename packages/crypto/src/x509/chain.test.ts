import { generateKeyPairSync, sign } from 'node:crypto';
import type { PublicJwk } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { createDocumentSignerCertificate, createIacaCertificate } from './certificates.ts';
import { createCertificateChainValidator } from './chain.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-06-01T00:00:00Z');

function p256() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string } satisfies PublicJwk,
    sign: async (data: Uint8Array) => new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
  };
}

const common = { country: 'US', issuerAlternativeName: 'mailto:pki@example.org', crlDistributionPointUri: 'https://example.org/crl' };

async function pki(name: string) {
  const key = p256();
  const iaca = await createIacaCertificate({
    key,
    commonName: `${name} IACA`,
    notBefore: new Date(NOW.getTime() - DAY),
    notAfter: new Date(NOW.getTime() + 3650 * DAY),
    ...common,
  });
  const signer = await createDocumentSignerCertificate({
    iaca: { certificateDer: iaca.der, key },
    subjectPublicJwk: p256().publicJwk,
    commonName: `${name} DS`,
    notBefore: new Date(NOW.getTime() - DAY),
    notAfter: new Date(NOW.getTime() + 30 * DAY),
    ...common,
  });
  return { iaca, signer };
}

describe('createCertificateChainValidator', () => {
  const validator = createCertificateChainValidator();

  it('accepts a document signer issued by the anchor, with or without the anchor in the chain', async () => {
    const { iaca, signer } = await pki('A');
    expect(validator.validate([signer.der], iaca.pem, NOW)).toEqual({ ok: true });
    expect(validator.validate([signer.der, iaca.der], iaca.pem, NOW)).toEqual({ ok: true });
  });

  it('refuses a chain to another IACA, the anchor alone, an empty chain and bytes that are no certificate', async () => {
    const a = await pki('A');
    const b = await pki('B');
    expect(validator.validate([a.signer.der], b.iaca.pem, NOW)).toEqual({ ok: false, reason: 'The chain does not lead to the trusted certificate' });
    expect(validator.validate([a.iaca.der], a.iaca.pem, NOW)).toMatchObject({ ok: false });
    expect(validator.validate([], a.iaca.pem, NOW)).toEqual({ ok: false, reason: 'No certificate chain' });
    expect(validator.validate([Uint8Array.of(1, 2, 3)], a.iaca.pem, NOW)).toEqual({ ok: false, reason: 'A certificate of the chain could not be read' });
  });

  it('says outOfDate when the path holds but a certificate is not valid at the instant', async () => {
    const { iaca, signer } = await pki('A');
    const later = new Date(NOW.getTime() + 60 * DAY);
    expect(validator.validate([signer.der], iaca.pem, later)).toEqual({
      ok: false,
      outOfDate: true,
      reason: `Certificate A DS is not valid at ${later.toISOString()}`,
    });
    expect(validator.validate([signer.der], iaca.pem, new Date(NOW.getTime() - 2 * DAY))).toMatchObject({ ok: false, outOfDate: true });
  });
});
