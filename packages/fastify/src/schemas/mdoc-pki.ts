import { Type } from '@sinclair/typebox';
import { PageQuerySchema, PageSchema } from './common.ts';

// docs/decisions.md "mDoc PKI". Shapes are checked here; values (countries, dates, certificates) by the core, which
// says what each may be.

const Pem = Type.String({ maxLength: 64 * 1024 });

export const CreateIacaBody = Type.Object(
  {
    commonName: Type.Optional(Type.String({ maxLength: 256 })),
    country: Type.Optional(Type.String({ maxLength: 16 })),
    stateOrProvinceName: Type.Optional(Type.String({ maxLength: 256 })),
    notBefore: Type.Optional(Type.String({ maxLength: 64 })),
    notAfter: Type.Optional(Type.String({ maxLength: 64 })),
    certificatePem: Type.Optional(Pem),
  },
  { additionalProperties: false },
);

export const UpdateIacaBody = Type.Object({ active: Type.Boolean() }, { additionalProperties: false });

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

export const CreateDocumentSignerBody = Type.Object({ iacaId: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

export const UpdateDocumentSignerBody = Type.Object({ active: Type.Boolean(), certificatePem: Type.Optional(Pem) }, { additionalProperties: false });

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
