import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { SigningKeyRole } from '@vellum/core';
import { requestContext } from '../context.ts';
import { RotateAccessTokenKeyBody, RotateDidKeysBody, RotateVerifierApplicationKeyBody, SigningKeyRotationResponse } from '../schemas/signing-keys.ts';
import type { VellumServices } from '../services.ts';
import { adminErrors } from './resource.ts';

const tags = ['Signing keys'];

/** Each role's route: its permission, and what the documentation says of it. */
const ROLES: Array<{
  role: SigningKeyRole;
  permission: 'issuance-setup' | 'webhooks' | 'iacas:manage' | 'dids' | 'verification';
  summary: string;
  description: string;
}> = [
  {
    role: 'access-token',
    permission: 'issuance-setup',
    summary: 'Rotate the access-token key',
    description:
      'A new key signs wallet access tokens from now on. The old one stays in the JWKS and keeps verifying the tokens it signed for `overlapSeconds` (default a day; at least the tokens’ lifetime and five minutes), and is destroyed at the next rotation, which is refused with 409 until then.',
  },
  {
    role: 'webhook',
    permission: 'webhooks',
    summary: 'Rotate the webhook signing key',
    description: 'A new key signs webhook deliveries from now on; the old one stays in the webhook JWKS while a pending delivery still signs with it.',
  },
  {
    role: 'document-signers',
    permission: 'iacas:manage',
    summary: 'Rotate the document signers',
    description:
      'Each active managed IACA gets a new document signer, which signs mDocs from now on. The old ones are not revoked: what they signed verifies until their certificates expire. IACAs imported with a CSR are left alone (their signers come from the CSR flow).',
  },
  {
    role: 'issuer-certificates',
    permission: 'iacas:manage',
    summary: 'Rotate the issuer certificates',
    description:
      'Under the managed issuer CA, each leaf in use gets a successor that signs from now on (SD-JWT VC, CWT, signed metadata, status lists). The old leaves stay published and valid until they expire.',
  },
  {
    role: 'verifier-applications',
    permission: 'verification',
    summary: 'Rotate a verifier application’s request-signing key',
    description:
      'The x509_hash application named by `applicationId` gets a next key and its CSR (`next.csr`, also the application’s `nextCsr`). The current key signs request objects until a chain for the next key is uploaded with `PUT /v2/presentations/applications/{id}/certificate`, which switches to it (a new leaf: a new `x509_hash` client_id) and destroys the old key. A decentralized_identifier application rotates with its DID.',
  },
  {
    role: 'dids',
    permission: 'dids',
    summary: 'Rotate the keys of a did:web',
    description:
      'The did:web named by `did` gets a new key of each algorithm it signs with, which signs credentials from now on. The old keys stay in its DID document, verifying what they signed, for `overlapSeconds`, or for good when it is not given (credentials signed with a DID often live for years); keys whose time has ended leave the document and are destroyed at the next rotation. A did:key cannot rotate (400): its key is the DID.',
  },
];

/** docs/key-custody.md "Rotation": `POST /v1/signing-keys/{role}/rotate`, one route per role. */
export const signingKeyRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  for (const { role, permission, summary, description } of ROLES) {
    app.post(
      `/v1/signing-keys/${role}/rotate`,
      {
        config: { permission },
        schema: {
          tags,
          summary,
          description,
          // The access-token body is optional (no body reaches validation as null); the DID's is required.
          ...(role === 'access-token' ? { body: Type.Union([RotateAccessTokenKeyBody, Type.Null()]) } : {}),
          ...(role === 'dids' ? { body: RotateDidKeysBody } : {}),
          ...(role === 'verifier-applications' ? { body: RotateVerifierApplicationKeyBody } : {}),
          response: { 200: SigningKeyRotationResponse, ...adminErrors },
        },
      },
      async (request) => services.signingKeys.rotate(requestContext(request), role, request.body),
    );
  }
};
