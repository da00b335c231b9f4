// The credentials the verification benchmarks present (issue 31): one CA made by Vellum's certificate
// tooling and one leaf under it that signs both an SD-JWT VC (x5c, 3 disclosures, presented with a
// KB-JWT) and an mDoc (a bare IssuerSigned, 5 elements). Shared by verify-per-core.ts and verify-http.ts.
import { createHash, generateKeyPairSync, type JsonWebKey, sign } from 'node:crypto';
import { createDocumentSignerCertificate, createIacaCertificate, createKeyManager, createSealer, managedSigningKey } from '@vellum/crypto';
import { createSdJwtSigner, issueMdoc } from '@vellum/formats';
import { createMemoryStore } from '@vellum/storage-memory';
import { derToJose } from './flow-common.ts';

export const NONCE = 'bench-nonce';
export const AUDIENCE = 'x509_hash:verifier.example';

export interface VerifySamples {
  /** The trusted CA, PEM. */
  caPem: string;
  /** An SD-JWT VC presentation with a KB-JWT over NONCE and AUDIENCE. */
  sdJwt: string;
  /** base64url of a CBOR IssuerSigned. */
  mdoc: string;
}

export async function makeVerifySamples(): Promise<VerifySamples> {
  const DAY = 86_400_000;
  const now = Date.now();
  const seconds = Math.floor(now / 1000);
  const b64u = (text: string | Uint8Array) => Buffer.from(text).toString('base64url');

  // One CA and one leaf, made by Vellum's certificate tooling, for both formats.
  const store = createMemoryStore();
  const ids = { uuid: () => crypto.randomUUID(), token: () => 'unused', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) };
  const keys = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(9)), ids, clock: { now: () => new Date() } });
  const tenant = { id: 'bench-tenant' };
  const caKey = managedSigningKey(keys, await keys.create(tenant.id, 'P-256'));
  const common = { country: 'DE', issuerAlternativeName: 'https://issuer.example.com', crlDistributionPointUri: 'https://issuer.example.com/crl' };
  const ca = await createIacaCertificate({
    key: caKey,
    commonName: 'Bench CA',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 365 * DAY),
    ...common,
  });
  const leafKey = await keys.create(tenant.id, 'P-256');
  const leaf = await createDocumentSignerCertificate({
    iaca: { certificateDer: ca.der, key: caKey },
    subjectPublicJwk: leafKey.publicJwk,
    commonName: 'Bench Signer',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 30 * DAY),
    subjectAltNames: ['https://issuer.example.com'],
    ...common,
  });

  // The holder: a P-256 key that signs the KB-JWT; the mDoc's device key.
  const holder = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = holder.publicKey.export({ format: 'jwk' }) as JsonWebKey;
  const holderJwk = { kty: 'EC', crv: 'P-256', x: x as string, y: y as string } as const;

  const credential = await createSdJwtSigner({ keys }).issue({
    tenantId: tenant.id,
    keyId: leafKey.id,
    alg: 'ES256',
    x5c: [Buffer.from(leaf.der).toString('base64')],
    payload: {
      iss: 'https://issuer.example.com',
      iat: seconds,
      exp: seconds + 3600,
      vct: 'https://credentials.example/pid',
      cnf: { jwk: { kty, crv, x, y } },
      given_name: 'Erika',
      family_name: 'Mustermann',
      birthdate: '1964-08-12',
    },
    disclosable: ['given_name', 'family_name', 'birthdate'],
  });
  const presented = credential.endsWith('~') ? credential : `${credential}~`;
  const kbInput = `${b64u(JSON.stringify({ typ: 'kb+jwt', alg: 'ES256' }))}.${b64u(JSON.stringify({ iat: seconds, aud: AUDIENCE, nonce: NONCE, sd_hash: createHash('sha256').update(presented).digest('base64url') }))}`;
  const sdJwt = `${presented}${kbInput}.${derToJose(sign('sha256', Buffer.from(kbInput), holder.privateKey)).toString('base64url')}`;

  const mdoc = (
    await issueMdoc({
      docType: 'org.iso.18013.5.1.mDL',
      namespaces: {
        'org.iso.18013.5.1': {
          family_name: 'Mustermann',
          given_name: 'Erika',
          birth_date: { type: 'date', value: '1964-08-12' },
          age_over_18: true,
          issuing_country: 'DE',
        },
      },
      deviceKey: holderJwk,
      validity: { signed: new Date(now - 60_000), validFrom: new Date(now - 60_000), validUntil: new Date(now + 30 * DAY) },
      signer: { sign: managedSigningKey(keys, leafKey).sign, x5chain: [leaf.der] },
    })
  ).credential;
  return { caPem: ca.pem, sdJwt, mdoc };
}
