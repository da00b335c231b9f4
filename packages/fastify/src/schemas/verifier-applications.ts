import { Type } from '@sinclair/typebox';
import { PageQuery, PageSchema } from './common.ts';

// docs/verification.md "Verifier applications": `/v2/presentations/applications`. The bodies are the
// core's own schemas (one validation path); the core also checks the rules.
export { VerifierApplicationBody, VerifierCertificateBody } from '@vellum/core/schemas';

/** A verifier application as the API shows it. */
export const VerifierApplicationResponse = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  clientIdPrefix: Type.String({ description: 'x509_hash, redirect_uri or decentralized_identifier (OpenID4VP 1.0 §5.9.3).' }),
  responseModes: Type.Array(Type.String()),
  redirectUris: Type.Array(Type.String()),
  display: Type.Optional(Type.Object({ name: Type.String(), logoUri: Type.Optional(Type.String()) })),
  did: Type.Optional(Type.String()),
  clientId: Type.Optional(
    Type.String({ description: 'The client_id wallets see; absent for redirect_uri (it is per session) and for x509_hash until a certificate is set.' }),
  ),
  csr: Type.Optional(Type.String({ description: 'x509_hash: the PKCS#10 request (PEM) for the request-signing key, for a CA to certify.' })),
  nextCsr: Type.Optional(
    Type.String({ description: 'x509_hash, after a rotation: the PKCS#10 request for the next key, which signs once its chain is uploaded.' }),
  ),
  certificates: Type.Optional(Type.Array(Type.String(), { description: 'x509_hash: the chain (PEM), leaf first.' })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const VerifierApplicationsPage = PageSchema(VerifierApplicationResponse);
export const VerifierApplicationListQuery = PageQuery;
/** The id is checked by the service (a UUID), which names it in its 400. */
export const VerifierApplicationParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
