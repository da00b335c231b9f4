// What the x509 tests share: KeyManager P-256 keys as the certificate generators sign with them,
// and an IACA with a document signer it issued (ISO/IEC 18013-5 Annex B).
import {
  type CreateDocumentSignerCertificateInput,
  type CreateIacaCertificateInput,
  createDocumentSignerCertificate,
  createIacaCertificate,
} from '../src/x509/certificates.ts';
import { managedSigningKey } from '../src/x509/signing.ts';
import { memoryKeyManager } from './key-manager.ts';

/** A maker of new KeyManager P-256 keys, each ready to sign certificates. */
export async function managedKeys() {
  const { keys, tenant } = await memoryKeyManager();
  return async () => managedSigningKey(keys, await keys.create(tenant.id, 'P-256'));
}

/** An IACA and a document signer it issued, each over a new managed key, named as given. */
export async function managedPki(
  iacaFields: Omit<CreateIacaCertificateInput, 'key'>,
  signerFields: Omit<CreateDocumentSignerCertificateInput, 'iaca' | 'subjectPublicJwk'>,
) {
  const newKey = await managedKeys();
  const iacaKey = await newKey();
  const iaca = await createIacaCertificate({ ...iacaFields, key: iacaKey });
  const signerKey = await newKey();
  const ds = await createDocumentSignerCertificate({
    ...signerFields,
    iaca: { certificateDer: iaca.der, key: iacaKey },
    subjectPublicJwk: signerKey.publicJwk,
  });
  return { newKey, iacaKey, iaca, signerKey, ds };
}
