import { generateKeyPairSync, sign } from 'node:crypto';
import type { PublicJwk } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { createDocumentSignerCertificate, createIacaCertificate } from './certificates.ts';
import { cacheCertificatePaths, createCertificateChainValidator } from './chain.ts';

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

describe('cacheCertificatePaths', () => {
  it('answers exactly as the validator it wraps, at every instant, broken paths included', async () => {
    const a = await pki('A');
    const b = await pki('B');
    const plain = createCertificateChainValidator();
    const cached = cacheCertificatePaths(createCertificateChainValidator());
    const instants = [-2, -1, 0, 29, 31, 60, 4000].map((days) => new Date(NOW.getTime() + days * DAY));
    const cases: [Uint8Array[], string][] = [
      [[a.signer.der], a.iaca.pem],
      [[a.signer.der, a.iaca.der], a.iaca.pem],
      [[a.signer.der], b.iaca.pem],
      [[a.iaca.der], a.iaca.pem],
      [[], a.iaca.pem],
      [[Uint8Array.of(1, 2, 3)], a.iaca.pem],
    ];
    for (let round = 0; round < 2; round++)
      for (const [chain, anchor] of cases) for (const at of instants) expect(cached.validate(chain, anchor, at)).toEqual(plain.validate(chain, anchor, at));
    expect(cached.size()).toBe(cases.length);
  });

  it('checks the path once per (chain, anchor) and the dates on every call', async () => {
    const { iaca, signer } = await pki('A');
    const inner = createCertificateChainValidator();
    let paths = 0;
    const cached = cacheCertificatePaths({ ...inner, path: (chain, anchor) => (paths++, inner.path(chain, anchor)) });
    expect(cached.validate([signer.der], iaca.pem, NOW)).toEqual({ ok: true });
    const later = new Date(NOW.getTime() + 60 * DAY);
    expect(cached.validate([signer.der], iaca.pem, later)).toEqual({
      ok: false,
      outOfDate: true,
      reason: `Certificate A DS is not valid at ${later.toISOString()}`,
    });
    expect(cached.validate([signer.der], iaca.pem, NOW)).toEqual({ ok: true });
    expect(paths).toBe(1);
    // The same leaf under another anchor PEM, and the anchor sent along, are other keys.
    cached.validate([signer.der, iaca.der], iaca.pem, NOW);
    cached.validate([signer.der], `${iaca.pem}\n`, NOW);
    expect(paths).toBe(3);
  });

  it('keeps at most maxEntries verdicts, dropping the least recently used', async () => {
    const { iaca, signer } = await pki('A');
    const others = await Promise.all([pki('B'), pki('C')]);
    const inner = createCertificateChainValidator();
    let paths = 0;
    const cached = cacheCertificatePaths({ ...inner, path: (chain, anchor) => (paths++, inner.path(chain, anchor)) }, { maxEntries: 2 });
    cached.validate([signer.der], iaca.pem, NOW); // 1
    cached.validate([others[0].signer.der], others[0].iaca.pem, NOW); // 2
    cached.validate([signer.der], iaca.pem, NOW); // hit: A is now the most recent
    cached.validate([others[1].signer.der], others[1].iaca.pem, NOW); // 3, evicts B
    expect(cached.size()).toBe(2);
    cached.validate([signer.der], iaca.pem, NOW); // hit
    expect(paths).toBe(3);
    cached.validate([others[0].signer.der], others[0].iaca.pem, NOW); // B again: a miss
    expect(paths).toBe(4);
    expect(() => cacheCertificatePaths(inner, { maxEntries: 0 })).toThrow();
  });

  it('refuses an invalid instant rather than throwing', async () => {
    const { iaca, signer } = await pki('A');
    expect(cacheCertificatePaths(createCertificateChainValidator()).validate([signer.der], iaca.pem, new Date(Number.NaN))).toMatchObject({
      ok: false,
      outOfDate: true,
    });
  });
});
