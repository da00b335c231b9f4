import { type TObject, type TProperties, Type } from '@sinclair/typebox';
import { MAX_ROOT_CERTIFICATE_LENGTH, MAX_ROOT_CERTIFICATES } from '@vellum/core';
import { PageQuerySchema } from './common.ts';

// docs/decisions.md "Credential configurations". The schemas check the shape of a request (JSON types, known fields); the core checks
// every value (types, limits, URLs, DIDs, mappings) and says what each may be.

const strict = { additionalProperties: false } as const;
const Text = (maxLength: number) => Type.String({ maxLength });
const Url = Text(2048);

const Label = Type.Object({ name: Text(1000), locale: Type.Optional(Text(64)) }, strict);

/** OpenID4VCI 1.0 §12.2 `credential_metadata.display`. */
const Display = Type.Object(
  {
    name: Text(1000),
    locale: Type.Optional(Text(64)),
    logo: Type.Optional(Type.Object({ uri: Url, alt_text: Type.Optional(Text(1000)) }, strict)),
    background_color: Type.Optional(Text(100)),
    text_color: Type.Optional(Text(100)),
  },
  strict,
);

const Count = Type.Optional(Type.Integer());
const Duration = Type.Object({ years: Count, months: Count, weeks: Count, days: Count, hours: Count, minutes: Count, seconds: Count }, strict);

/** A claim mapping. `type` is for mDocs; the core says so when another format sends one. */
const Mapping = Type.Object(
  { mapFrom: Type.Optional(Text(1000)), required: Type.Optional(Type.Boolean()), defaultValue: Type.Optional(Type.Unknown()), type: Type.Optional(Text(100)) },
  strict,
);

const Issuer = Type.Object({ id: Type.Optional(Url), name: Type.Optional(Text(1000)), logoUrl: Type.Optional(Url), iconUrl: Type.Optional(Url) }, strict);

/** OpenID4VCI 1.0 App. D: the levels a key attestation must attest, and the roots it must chain to. */
const KeyAttestations = Type.Object(
  {
    keyStorage: Type.Optional(Type.Array(Text(200), { maxItems: 20 })),
    userAuthentication: Type.Optional(Type.Array(Text(200), { maxItems: 20 })),
    rootCertificates: Type.Array(Text(MAX_ROOT_CERTIFICATE_LENGTH), { maxItems: MAX_ROOT_CERTIFICATES }),
  },
  strict,
);

/** The fields every format shares; mappings and labels nest per format. */
function common(nested: boolean) {
  return {
    type: Text(1000),
    name: Type.Optional(Text(1000)),
    description: Type.Optional(Text(10_000)),
    claimMappings: nested ? Type.Record(Type.String(), Type.Record(Type.String(), Mapping)) : Type.Record(Type.String(), Mapping),
    expiresIn: Type.Optional(Duration),
    claimSourceId: Type.Optional(Text(100)),
    display: Type.Optional(Type.Array(Display)),
    claimDisplay: Type.Optional(
      nested ? Type.Record(Type.String(), Type.Record(Type.String(), Type.Array(Label))) : Type.Record(Type.String(), Type.Array(Label)),
    ),
    keyAttestationsRequired: Type.Optional(KeyAttestations),
  };
}

const mdocFields = { ...common(true), includeStatus: Type.Optional(Type.Boolean()) };
const ldpFields = {
  ...common(false),
  issuer: Type.Optional(Issuer),
  contexts: Type.Optional(Type.Array(Url)),
  additionalTypes: Type.Optional(Type.Array(Text(1000))),
  proofType: Type.Optional(Text(100)),
  credentialBranding: Type.Optional(Type.Object({ backgroundColor: Type.Optional(Text(100)), watermarkImageUrl: Type.Optional(Url) }, strict)),
  revocable: Type.Optional(Type.Boolean()),
};
const cwtFields = { ...common(false), issuer: Type.Optional(Issuer), revocable: Type.Optional(Type.Boolean()) };
const sdJwtFields = {
  ...common(false),
  issuer: Type.Optional(Issuer),
  selectivelyDisclosable: Type.Optional(Type.Array(Text(1000))),
  revocable: Type.Optional(Type.Boolean()),
};

/** The answer: the configuration as stored, with what Vellum assigned and the defaults it filled in. */
function response<T extends TProperties>(fields: T, defaults: TProperties): TObject {
  return Type.Object({ id: Type.String(), ...fields, ...defaults, createdAt: Type.String(), updatedAt: Type.String() });
}

export const MdocConfigurationBody = Type.Object(mdocFields, strict);
export const LdpVcConfigurationBody = Type.Object(ldpFields, strict);
export const CwtConfigurationBody = Type.Object(cwtFields, strict);
export const SdJwtConfigurationBody = Type.Object(sdJwtFields, strict);

export const MdocConfigurationResponse = response(mdocFields, { includeStatus: Type.Boolean() });
export const LdpVcConfigurationResponse = response(ldpFields, { issuer: Issuer, proofType: Type.String(), revocable: Type.Boolean() });
export const CwtConfigurationResponse = response(cwtFields, { revocable: Type.Boolean() });
export const SdJwtConfigurationResponse = response(sdJwtFields, { revocable: Type.Boolean() });

/** The configuration id in the path; the core says when it is not a UUID. */
export const ConfigurationParams = Type.Object({ id: Text(200) });

export const ConfigurationListQuery = Type.Object({ ...PageQuerySchema, type: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) }, strict);
