import { Type } from '@sinclair/typebox';
import { KeyCustodyField } from '../keys/custody-settings.ts';
import { KEY_ALGORITHMS } from '../keys/model.ts';
import { DID_METHODS } from './model.ts';

const oneOf = <T extends string>(values: readonly T[], errorMessage: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { errorMessage },
  );

/** docs/decisions.md "DIDs": the body of `POST /v1/dids`. Which options a method takes, and a did:web's URL, are value rules (rules.ts). */
export const CreateDidBody = Type.Object(
  {
    method: oneOf(DID_METHODS, `One of ${DID_METHODS.join(', ')}`),
    options: Type.Optional(
      Type.Object(
        {
          keyType: Type.Optional(oneOf(KEY_ALGORITHMS, `One of ${KEY_ALGORITHMS.join(', ')}`)),
          url: Type.Optional(Type.String({ maxLength: 2048, errorMessage: 'The tenant’s host or verified custom domain, with an optional path' })),
        },
        { additionalProperties: false },
      ),
    ),
    // Where the DID's keys are held; the tenant's custody unless given (docs/key-custody.md "Custody per resource").
    keyCustody: Type.Optional(KeyCustodyField),
  },
  { additionalProperties: false },
);
