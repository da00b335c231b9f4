// Certificates for the mDoc PKI tests, made with @vellum/testing's fake X.509 (JSON bodies).
import { type FakeCertificateBody, fakeCertificatePem } from '@vellum/testing';
import type { PublicJwk } from '../src/keys/model.ts';

/** A P-256 public key with the given coordinates (placeholders: the fake X.509 never checks them). */
export const p256 = (x = 'iaca-x', y = 'iaca-y'): PublicJwk => ({ kty: 'EC', crv: 'P-256', x, y });

/** A self-signed root certificate made elsewhere, as a tenant would import it. */
export function importedRoot(over: Partial<FakeCertificateBody> = {}): string {
  const publicKey = over.publicKey ?? p256();
  return fakeCertificatePem({
    serialNumber: '7f01',
    subject: { commonName: 'State DMV IACA', country: 'US', stateOrProvinceName: 'US-CA' },
    issuer: `key:${publicKey.x}:${publicKey.y}`,
    notBefore: '2026-01-01T00:00:00.000Z',
    notAfter: '2036-01-01T00:00:00.000Z',
    publicKey,
    isCa: true,
    extendedKeyUsages: [],
    ...over,
  });
}
