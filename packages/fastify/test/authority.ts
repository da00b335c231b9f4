// A certificate authority held by a test, as another party's: made with @vellum/crypto's X.509
// writer over a key store of its own.
import type { PublicJwk } from '@vellum/core';
import { createDocumentSignerCertificate, createIacaCertificate, createKeyManager, createSealer, managedSigningKey } from '@vellum/crypto';
import { createNodeIds } from '@vellum/node';
import { createMemoryStore } from '@vellum/storage-memory';
import { fakeClock, makeTenant } from '@vellum/testing';

const DAY = 86_400_000;

/**
 * Another party's CA (an IACA of another issuer, a wallet provider's root), valid from a day ago for
 * `days`: its certificate, and `certify` to issue a certificate for a public key, valid from half a day
 * ago for `days`.
 */
export async function foreignAuthority(options: { commonName: string; url: string; days: number; stateOrProvinceName?: string }) {
  const store = createMemoryStore();
  const keys = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(4)), ids: createNodeIds(), clock: fakeClock() });
  const tenant = makeTenant();
  await store.tenants.insert(tenant);
  const key = managedSigningKey(keys, await keys.create(tenant.id, 'P-256'));
  const now = Date.now();
  const issuer = { country: 'US', issuerAlternativeName: options.url, crlDistributionPointUri: `${options.url}/crl` };
  const certificate = await createIacaCertificate({
    key,
    commonName: options.commonName,
    ...issuer,
    ...(options.stateOrProvinceName ? { stateOrProvinceName: options.stateOrProvinceName } : {}),
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + options.days * DAY),
  });
  // With `subjectAltNames`, an issuer CA's leaf (those names, no EKU) instead of a document signer.
  const certify = (subjectPublicJwk: PublicJwk, commonName: string, days: number, subjectAltNames?: readonly string[]) =>
    createDocumentSignerCertificate({
      iaca: { certificateDer: certificate.der, key },
      subjectPublicJwk,
      commonName,
      ...issuer,
      notBefore: new Date(now - DAY / 2),
      notAfter: new Date(now + days * DAY),
      ...(subjectAltNames ? { subjectAltNames } : {}),
    });
  return { certificate, certify };
}
