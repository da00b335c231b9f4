import { Type } from '@sinclair/typebox';
import { PageQuerySchema, PageSchema } from './common.ts';

// docs/decisions.md "mDoc PKI". The request bodies are the core's own schemas (one validation path).
export { CreateDocumentSignerBody, CreateIacaBody, UpdateDocumentSignerBody, UpdateIacaBody } from '@vellum/core/schemas';

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const IacaListQuery = Type.Object({ ...PageQuerySchema }, { additionalProperties: false });

const CertificateDataSchema = Type.Object({
  notBefore: Type.String(),
  notAfter: Type.String(),
  country: Type.Optional(Type.String()),
  commonName: Type.Optional(Type.String()),
  stateOrProvinceName: Type.Optional(Type.String()),
});

export const IacaResponse = Type.Object({
  id: Type.String(),
  active: Type.Boolean(),
  isManaged: Type.Boolean(),
  certificatePem: Type.String(),
  certificateFingerprint: Type.String(),
  certificateData: CertificateDataSchema,
});

export const IacasPage = PageSchema(IacaResponse);

export const DocumentSignerListQuery = Type.Object(
  { ...PageQuerySchema, iacaId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

export const DocumentSignerResponse = Type.Object({
  id: Type.String(),
  iacaId: Type.String(),
  active: Type.Boolean(),
  isManaged: Type.Boolean(),
  csrPem: Type.Optional(Type.String()),
  certificatePem: Type.Optional(Type.String()),
  certificateFingerprint: Type.Optional(Type.String()),
  certificateData: Type.Optional(CertificateDataSchema),
  revokedAt: Type.Optional(Type.String()),
});

export const DocumentSignersPage = PageSchema(DocumentSignerResponse);
