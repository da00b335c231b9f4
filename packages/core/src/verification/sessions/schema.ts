// The bodies of presentation sessions (docs/verification.md "Presentation sessions"): the admin
// create body, and the wallet's form posts to the request and response endpoints.

import { Type } from '@sinclair/typebox';
import { UUID } from '../../shared/ids.ts';
import { DcqlQuerySchema } from '../dcql/schema.ts';
import { SESSION_RESPONSE_MODES, SESSION_TTL_SECONDS } from './model.ts';

/** `POST /v2/presentations/sessions`. The DCQL query's shape and rules are the DCQL module's (Contract B). */
export const CreateSessionBody = Type.Object(
  {
    applicationId: Type.String({ pattern: UUID.source, errorMessage: 'A verifier application id (UUID)' }),
    dcqlQuery: DcqlQuerySchema,
    responseMode: Type.Optional(
      Type.Union(
        SESSION_RESPONSE_MODES.map((m) => Type.Literal(m)),
        { description: 'Default: direct_post.jwt when the application allows it.', errorMessage: `One of ${SESSION_RESPONSE_MODES.join(', ')}` },
      ),
    ),
    redirectUri: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'Same-device flows: one of the application’s redirect URIs.',
        errorMessage: 'One of the application’s redirect URIs',
      }),
    ),
    expiresIn: Type.Optional(
      Type.Integer({
        minimum: SESSION_TTL_SECONDS.min,
        maximum: SESSION_TTL_SECONDS.max,
        description: `Seconds the wallet has to answer (default ${SESSION_TTL_SECONDS.default}).`,
        errorMessage: `Whole seconds from ${SESSION_TTL_SECONDS.min} to ${SESSION_TTL_SECONDS.max}`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** OpenID4VP 1.0 §5.10: what a wallet may post to the request_uri (request_uri_method=post). */
export const RequestUriPostBody = Type.Object(
  {
    wallet_metadata: Type.Optional(Type.String({ maxLength: 20_000, errorMessage: 'A JSON object as a string' })),
    wallet_nonce: Type.Optional(Type.String({ minLength: 1, maxLength: 500, pattern: '^[\\x21-\\x7E]+$', errorMessage: '1 to 500 printable characters' })),
  },
  { additionalProperties: true },
);

/** OpenID4VP 1.0 §8.2, §8.3, §8.5: the wallet's post to the response_uri. */
export const PresentationResponseBody = Type.Object(
  {
    vp_token: Type.Optional(Type.String({ maxLength: 1_000_000 })),
    state: Type.Optional(Type.String({ maxLength: 500 })),
    response: Type.Optional(Type.String({ maxLength: 1_000_000 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: true },
);
