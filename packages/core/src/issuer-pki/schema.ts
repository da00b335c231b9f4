import { Type } from '@sinclair/typebox';
import { ISSUER_SIGNER_USES } from './model.ts';

// docs/decisions.md "Issuer certificates": the bodies of the issuer signer routes. Issuer CAs take
// the IACA bodies (mdoc-pki/schema.ts).

const active = Type.Boolean({ errorMessage: 'Required: true or false' });
const pem = Type.String({ minLength: 1, maxLength: 64 * 1024, pattern: '\\S', errorMessage: 'A PEM certificate' });

export const CreateIssuerSignerBody = Type.Object(
  {
    issuerCaId: Type.String({ minLength: 1, maxLength: 64, errorMessage: 'Required: the id of an imported issuer CA' }),
    use: Type.Union(
      ISSUER_SIGNER_USES.map((u) => Type.Literal(u)),
      { errorMessage: `Required: what the leaf signs, one of ${ISSUER_SIGNER_USES.join(', ')}` },
    ),
  },
  { additionalProperties: false },
);

export const UpdateIssuerSignerBody = Type.Object({ active, certificatePem: Type.Optional(pem) }, { additionalProperties: false });
