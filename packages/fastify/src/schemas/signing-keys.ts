import { Type } from '@sinclair/typebox';
import { SIGNING_KEY_ROLES } from '@vellum/core';

/** docs/key-custody.md "Rotation": the access-token key's body, the core's own schema (one validation path). */
export { RotateAccessTokenKeyBody, RotateDidKeysBody, RotateVerifierApplicationKeyBody } from '@vellum/core/schemas';

/** What `POST /v1/signing-keys/{role}/rotate` answers: what signs from now on, and what still verifies. */
export const SigningKeyRotationResponse = Type.Object({
  role: Type.Union(SIGNING_KEY_ROLES.map((role) => Type.Literal(role))),
  rotatedAt: Type.String({ format: 'date-time' }),
  active: Type.Array(Type.String(), { description: 'What signs from now on: the `kid` of a published key, or the id of a certificate signer.' }),
  retired: Type.Array(
    Type.Object({
      id: Type.String(),
      until: Type.Optional(Type.String({ format: 'date-time', description: 'Until when it still verifies: the overlap’s end, or its certificate’s expiry.' })),
    }),
  ),
  next: Type.Optional(
    Type.Object(
      { id: Type.String(), csr: Type.String() },
      { description: 'A key that signs once a certificate for this CSR is uploaded; until then the active key signs.' },
    ),
  ),
});
