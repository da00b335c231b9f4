import { Type } from '@sinclair/typebox';
import { KeyCustodyField } from '../keys/custody-settings.ts';

// docs/decisions.md "mDoc PKI": the bodies of the IACA and document signer routes. Which fields go
// together, and what the dates and certificates say, are value rules (rules.ts).

/** Text with something besides white space in it. */
const text = (maxLength: number, errorMessage: string) => Type.String({ minLength: 1, maxLength, pattern: '\\S', errorMessage });
const pem = text(64 * 1024, 'A PEM certificate');
const instant = (example: string) => Type.String({ maxLength: 64, errorMessage: `An ISO 8601 date-time, e.g. ${example}` });
const active = Type.Boolean({ errorMessage: 'Required: true or false' });

export const CreateIacaBody = Type.Object(
  {
    commonName: Type.Optional(text(64, '1 to 64 characters')),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', errorMessage: 'An ISO 3166-1 alpha-2 code in upper case, e.g. "US"' })),
    stateOrProvinceName: Type.Optional(text(128, '1 to 128 characters')),
    notBefore: Type.Optional(instant('2026-01-01T00:00:00Z')),
    notAfter: Type.Optional(instant('2031-01-01T00:00:00Z')),
    certificatePem: Type.Optional(pem),
    // Where the CA's key (and the signers Vellum makes under it) are held; the tenant's custody unless given.
    keyCustody: Type.Optional(KeyCustodyField),
  },
  { additionalProperties: false },
);

export const UpdateIacaBody = Type.Object({ active }, { additionalProperties: false });

export const CreateDocumentSignerBody = Type.Object(
  { iacaId: Type.String({ minLength: 1, maxLength: 64, errorMessage: 'Required: the id of an imported IACA' }) },
  { additionalProperties: false },
);

export const UpdateDocumentSignerBody = Type.Object({ active, certificatePem: Type.Optional(pem) }, { additionalProperties: false });
