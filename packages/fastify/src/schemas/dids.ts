import { Type } from '@sinclair/typebox';
import { PageQuery, PageSchema } from './common.ts';

/** docs/decisions.md "DIDs": `POST /v1/dids`, the core's own schema (one validation path). */
export { CreateDidBody } from '@vellum/core/schemas';

/** The DID in the path, URL-encoded by the client (`/v1/dids/did%3Akey%3Az6Mk…`). */
export const DidParams = Type.Object({ did: Type.String({ minLength: 1, maxLength: 2048 }) });

export const DidListQuery = PageQuery;

const PublicJwkSchema = Type.Object({ kty: Type.String(), crv: Type.String(), x: Type.String(), y: Type.Optional(Type.String()) });

const VerificationMethodSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  controller: Type.String(),
  publicKeyBase58: Type.Optional(Type.String()),
  publicKeyJwk: Type.Optional(PublicJwkSchema),
});

/** A W3C DID document as Vellum writes them. */
export const DidDocumentSchema = Type.Object({
  '@context': Type.Array(Type.String()),
  id: Type.String(),
  verificationMethod: Type.Array(VerificationMethodSchema),
  authentication: Type.Array(Type.String()),
  assertionMethod: Type.Array(Type.String()),
});

const LocalMetadata = Type.Object({
  keys: Type.Array(
    Type.Object({
      didDocumentKeyId: Type.String(),
      kmsKeyId: Type.String(),
      // A key a rotation replaced (docs/key-custody.md "Rotation"), and until when its DID document lists it.
      retiredAt: Type.Optional(Type.String({ format: 'date-time' })),
      verifiesUntil: Type.Optional(Type.String({ format: 'date-time' })),
    }),
  ),
  registered: Type.String(),
  initialDidDocument: DidDocumentSchema,
});

export const CreatedDidResponse = Type.Object({
  did: Type.String(),
  registrationStatus: Type.Literal('COMPLETED'),
  localMetadata: LocalMetadata,
});

export const DidResponse = Type.Object({ did: Type.String(), didDocument: DidDocumentSchema, localMetadata: LocalMetadata });

export const DidsPage = PageSchema(DidResponse);
