import { type Static, Type } from '@sinclair/typebox';

// The Digital Credentials Query Language (OpenID4VP 1.0 §6; docs/verification.md "DCQL"). The schema
// holds what JSON Schema can say: shapes, required members, non-empty arrays, identifier syntax, and
// bounds so that a query stays small. What needs the whole query (unique ids, references, formats
// Vellum verifies, the meta a format needs, mdoc paths) is in dcqlProblems.

/** Bounds on a query: a verifier's query never needs more, and a bigger one is refused by the schema. */
export const DCQL_LIMITS = {
  /** Credential queries in `credentials`. */
  credentials: 20,
  /** Credential set queries, the options of one, and the ids of one option. */
  credentialSets: 20,
  options: 20,
  idsPerOption: 20,
  /** Claims queries of one credential query, claim sets, and the ids of one claim set. */
  claims: 100,
  claimSets: 50,
  idsPerClaimSet: 100,
  /** Components of a claims path pointer. */
  pathLength: 16,
  /** Members of `values`, `vct_values`, `type_values` (and of each inner array), trusted authorities and their values. */
  values: 50,
  trustedAuthorities: 10,
  /** Characters of one string: a path key, a value, a vct, a doctype, an authority value. */
  stringLength: 500,
  /** Characters of an identifier (`id` of a credential or claims query). */
  idLength: 64,
  /** The largest array index a path may name. */
  index: 10_000,
} as const;

const L = DCQL_LIMITS;
const text = (what: string) => Type.String({ minLength: 1, maxLength: L.stringLength, errorMessage: `${what}: 1 to ${L.stringLength} characters` });

/** §6.1: a non-empty string of letters, digits, underscores and hyphens. */
const Id = Type.String({
  minLength: 1,
  maxLength: L.idLength,
  pattern: '^[A-Za-z0-9_-]+$',
  errorMessage: `An id: 1 to ${L.idLength} letters, digits, underscores or hyphens`,
});

/** §7: a claims path pointer: object keys, array indexes, and null for every element of an array. */
const PathComponent = Type.Union([Type.String({ maxLength: L.stringLength }), Type.Integer({ minimum: 0, maximum: L.index }), Type.Null()]);
export const DcqlClaimsPathSchema = Type.Array(PathComponent, {
  minItems: 1,
  maxItems: L.pathLength,
  errorMessage: `A claims path: 1 to ${L.pathLength} components, each a key, an index (0 to ${L.index}) or null`,
});
export type DcqlClaimsPath = Static<typeof DcqlClaimsPathSchema>;

/** §6.3; `intent_to_retain` is the mso_mdoc member of Appendix B. */
export const DcqlClaimsQuerySchema = Type.Object(
  {
    id: Type.Optional(Id),
    path: DcqlClaimsPathSchema,
    values: Type.Optional(
      Type.Array(Type.Union([Type.String({ maxLength: L.stringLength }), Type.Integer(), Type.Boolean()]), {
        minItems: 1,
        maxItems: L.values,
        errorMessage: `values: 1 to ${L.values} strings, integers or booleans`,
      }),
    ),
    /** mso_mdoc only. */
    intent_to_retain: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type DcqlClaimsQuery = Static<typeof DcqlClaimsQuerySchema>;

/** §6.1.1. Only type `aki` is supported (dcqlProblems refuses the others). */
export const DcqlTrustedAuthorityQuerySchema = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 64 }),
    values: Type.Array(text('A trusted authority value'), { minItems: 1, maxItems: L.values }),
  },
  { additionalProperties: false },
);

/** Format-specific (Appendix B): dc+sd-jwt `vct_values`, mso_mdoc `doctype_value`, ldp_vc `type_values`; other members are left to their formats. */
export const DcqlMetaSchema = Type.Object({
  vct_values: Type.Optional(Type.Array(text('A vct'), { minItems: 1, maxItems: L.values })),
  doctype_value: Type.Optional(text('A doctype')),
  type_values: Type.Optional(Type.Array(Type.Array(text('A type'), { minItems: 1, maxItems: L.values }), { minItems: 1, maxItems: L.values })),
});

/** §6.1. */
export const DcqlCredentialQuerySchema = Type.Object(
  {
    id: Id,
    format: Type.String({ minLength: 1, maxLength: 64 }),
    multiple: Type.Optional(Type.Boolean()),
    meta: DcqlMetaSchema,
    trusted_authorities: Type.Optional(Type.Array(DcqlTrustedAuthorityQuerySchema, { minItems: 1, maxItems: L.trustedAuthorities })),
    require_cryptographic_holder_binding: Type.Optional(Type.Boolean()),
    claims: Type.Optional(Type.Array(DcqlClaimsQuerySchema, { minItems: 1, maxItems: L.claims })),
    claim_sets: Type.Optional(Type.Array(Type.Array(Id, { minItems: 1, maxItems: L.idsPerClaimSet }), { minItems: 1, maxItems: L.claimSets })),
  },
  { additionalProperties: false },
);
export type DcqlCredentialQuery = Static<typeof DcqlCredentialQuerySchema>;

/** §6.2. */
export const DcqlCredentialSetQuerySchema = Type.Object(
  {
    options: Type.Array(Type.Array(Id, { minItems: 1, maxItems: L.idsPerOption }), { minItems: 1, maxItems: L.options }),
    required: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** The whole query (§6): the `dcql_query` of an authorization request. */
export const DcqlQuerySchema = Type.Object(
  {
    credentials: Type.Array(DcqlCredentialQuerySchema, { minItems: 1, maxItems: L.credentials }),
    credential_sets: Type.Optional(Type.Array(DcqlCredentialSetQuerySchema, { minItems: 1, maxItems: L.credentialSets })),
  },
  { additionalProperties: false },
);
export type DcqlQuery = Static<typeof DcqlQuerySchema>;
