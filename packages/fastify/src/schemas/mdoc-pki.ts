import { Type } from '@sinclair/typebox';
import { PageQuery, PageQuerySchema, PageSchema } from './common.ts';

// docs/decisions.md "mDoc PKI". The request bodies are the core's own schemas (one validation path).
export {
  CreateDocumentSignerBody,
  CreateIacaBody,
  CreateIssuerSignerBody,
  UpdateDocumentSignerBody,
  UpdateIacaBody,
  UpdateIssuerSignerBody,
} from '@vellum/core/schemas';

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const IacaListQuery = PageQuery;

const CertificateDataSchema = Type.Object({
  notBefore: Type.String(),
  notAfter: Type.String(),
  country: Type.Optional(Type.String()),
  commonName: Type.Optional(Type.String()),
  stateOrProvinceName: Type.Optional(Type.String()),
});

/** An X.509 certificate as the API shows it: the PEM, its fingerprint and what it names. */
const Certificate = Type.Object({
  certificatePem: Type.String(),
  certificateFingerprint: Type.String(),
  certificateData: CertificateDataSchema,
});

export const IacaResponse = Type.Object({
  id: Type.String(),
  active: Type.Boolean(),
  isManaged: Type.Boolean(),
  ...Certificate.properties,
});

export const IacasPage = PageSchema(IacaResponse);

export const DocumentSignerListQuery = Type.Object(
  { ...PageQuerySchema, iacaId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

/** A document signer, with its certificate's fields once it has one. */
export const DocumentSignerResponse = Type.Object({
  id: Type.String(),
  iacaId: Type.String(),
  active: Type.Boolean(),
  isManaged: Type.Boolean(),
  csrPem: Type.Optional(Type.String()),
  ...Type.Partial(Certificate).properties,
  revokedAt: Type.Optional(Type.String()),
});

export const DocumentSignersPage = PageSchema(DocumentSignerResponse);

export const IssuerSignerListQuery = Type.Object(
  { ...PageQuerySchema, issuerCaId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

/** An issuer CA's leaf (docs/decisions.md "Issuer certificates"), with its certificate's fields once it has one. */
export const IssuerSignerResponse = Type.Object({
  id: Type.String(),
  issuerCaId: Type.String(),
  use: Type.Union([Type.Literal('credential'), Type.Literal('status-list')]),
  active: Type.Boolean(),
  isManaged: Type.Boolean(),
  subjectAltNames: Type.Optional(Type.Array(Type.String())),
  csrPem: Type.Optional(Type.String()),
  ...Type.Partial(Certificate).properties,
  revokedAt: Type.Optional(Type.String()),
});

export const IssuerSignersPage = PageSchema(IssuerSignerResponse);
