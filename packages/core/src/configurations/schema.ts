import { type TObject, Type } from '@sinclair/typebox';
import { UUID } from '../shared/ids.ts';
import { MAX_ROOT_CERTIFICATE_LENGTH, MAX_ROOT_CERTIFICATES } from '../shared/root-certificates.ts';
import { DeferredField } from './deferred.ts';
import type { CredentialFormat } from './model.ts';
import { COLOR, LOCALE, MAX_DESCRIPTION, MAX_LABEL, MAX_LIST, SIGNING_DID } from './rules.ts';

// docs/decisions.md "Credential configurations": the create and replace bodies, one per format. The
// shape of every field is here, in the core's words. The value rules stay in rules.ts and in each
// format's handler: https URLs, the format's `type` pattern, durations' limits, locales given twice,
// and each claim mapping and label (claimMappings and claimDisplay are maps whose entries rules.ts
// checks one by one, naming each).

const strict = { additionalProperties: false } as const;

/** Text of 1 to `max` characters, not only spaces. */
const Text = (max: number) => Type.String({ maxLength: max, pattern: '\\S', errorMessage: `Text of 1 to ${max} characters` });
/** That it is https is a value rule (checkHttpsUrl). */
const HttpsUrl = Type.String({ maxLength: 2048, errorMessage: 'An https URL' });
const Locale = Type.String({ maxLength: 64, pattern: LOCALE.source, errorMessage: 'A language tag such as en or fr-CA' });
const Color = Type.String({ pattern: COLOR.source, errorMessage: 'A CSS colour such as #12107c or rgb(18 16 124)' });
const Flag = Type.Boolean({ errorMessage: 'true or false' });
/** A list of up to MAX_LIST strings; what each must be (and that none is listed twice) is the format's value rule. */
const List = (what: string, maxLength: number) =>
  Type.Array(Type.String({ maxLength }), { maxItems: MAX_LIST, errorMessage: `A list of up to ${MAX_LIST} ${what}` });

/** OpenID4VCI 1.0 §12.2 `credential_metadata.display`. */
const Display = Type.Array(
  Type.Object(
    {
      name: Text(MAX_LABEL),
      locale: Type.Optional(Locale),
      logo: Type.Optional(Type.Object({ uri: HttpsUrl, alt_text: Type.Optional(Text(MAX_LABEL)) }, { ...strict, errorMessage: 'A { uri, alt_text } object' })),
      description: Type.Optional(Text(MAX_DESCRIPTION)),
      background_color: Type.Optional(Color),
      background_image: Type.Optional(Type.Object({ uri: HttpsUrl }, { ...strict, errorMessage: 'A { uri } object' })),
      text_color: Type.Optional(Color),
    },
    { ...strict, errorMessage: 'A { name, locale, logo, description, background_color, background_image, text_color } object' },
  ),
  { maxItems: 50, errorMessage: 'A list of up to 50 { name, locale, logo, description, background_color, background_image, text_color } entries' },
);

const Count = Type.Optional(Type.Integer({ minimum: 0, errorMessage: 'A whole number, 0 or more' }));
/** A unit not listed here is named by the value rule (checkExpiresIn), with the units there are. */
const Duration = Type.Object(
  { years: Count, months: Count, weeks: Count, days: Count, hours: Count, minutes: Count, seconds: Count },
  { errorMessage: 'A duration such as { "days": 365 }' },
);

/** OpenID4VCI 1.0 App. D: the levels a key attestation must attest, and the roots it must chain to. */
const Levels = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 20,
  errorMessage: 'A list of up to 20 level names such as "iso_18045_high"',
});
const KeyAttestationsRequired = Type.Object(
  {
    keyStorage: Type.Optional(Levels),
    userAuthentication: Type.Optional(Levels),
    // Without roots, the tenant's wallet providers trusted for key attestations are (docs/dpop-and-attestation.md).
    rootCertificates: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: MAX_ROOT_CERTIFICATE_LENGTH,
          errorMessage: 'One certificate in PEM form: -----BEGIN CERTIFICATE-----, base64 lines, -----END CERTIFICATE-----',
        }),
        { minItems: 1, maxItems: MAX_ROOT_CERTIFICATES, errorMessage: `1 to ${MAX_ROOT_CERTIFICATES} PEM certificates` },
      ),
    ),
  },
  { ...strict, errorMessage: 'An object such as { "keyStorage": ["iso_18045_high"], "rootCertificates": ["-----BEGIN CERTIFICATE-----..."] }' },
);

/** An offer's key attestation levels: its configurations' roots, or the tenant's wallet providers, vouch for the attestation. */
export const KeyAttestationLevelsBody = Type.Object(
  { keyStorage: Type.Optional(Levels), userAuthentication: Type.Optional(Levels) },
  { ...strict, errorMessage: 'An object such as { "keyStorage": ["iso_18045_high"], "userAuthentication": ["iso_18045_moderate"] }' },
);

/** What the token endpoint asks of the wallet (docs/decisions.md "Wallet requirements per configuration and offer (issue 30)"). */
export const WalletRequirementsBody = Type.Object(
  { walletAttestation: Type.Optional(Flag), dpop: Type.Optional(Flag) },
  { ...strict, errorMessage: 'An object such as { "walletAttestation": true, "dpop": true }' },
);

/** The fields every format shares. */
const common = {
  /** Its pattern is the format's (a docType, a vct or a plain name): a value rule of the format's handler. */
  type: Type.String({ maxLength: 1000 }),
  name: Type.Optional(Text(MAX_LABEL)),
  description: Type.Optional(Text(MAX_DESCRIPTION)),
  claimMappings: Type.Record(Type.String(), Type.Unknown(), {
    minProperties: 1,
    description: 'Claim → { mapFrom?, defaultValue?, required? }; mso_mdoc: namespace → element → { mapFrom?, defaultValue?, required?, type? }',
    errorMessage: 'At least one claim mapping is required: a credential without claims is refused',
  }),
  expiresIn: Type.Optional(Duration),
  claimSourceId: Type.Optional(Type.String({ pattern: UUID.source, errorMessage: 'A claim source id (UUID)' })),
  display: Type.Optional(Display),
  claimDisplay: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'Labels [{ name, locale? }] per claim, nested like claimMappings',
      errorMessage: 'Labels per claim, nested like claimMappings',
    }),
  ),
  keyAttestationsRequired: Type.Optional(KeyAttestationsRequired),
  walletRequirements: Type.Optional(WalletRequirementsBody),
  /** false: issued without a holder key, and requested without a key proof (not for mso_mdoc). */
  holderBinding: Type.Optional(Flag),
  /** Review before issuance (docs/deferred-issuance.md): the credential endpoint answers 202 with a transaction_id. */
  deferred: Type.Optional(DeferredField),
  /** Re-issuance with a refresh token (docs/refresh-tokens.md): maxAge bounds how long after the first token. */
  refresh: Type.Optional(
    Type.Object(
      { allowed: Type.Literal(true, { errorMessage: 'true: leave refresh out to allow none' }), maxAge: Type.Optional(Duration) },
      { ...strict, errorMessage: 'An object such as { "allowed": true, "maxAge": { "days": 30 } }' },
    ),
  ),
};

/** Linked-data and CWT issuers: who signs and how they are shown. Whether the tenant holds the DID is the service's to check. */
const issuerFields = {
  id: Type.Optional(Type.String({ maxLength: 2048, pattern: SIGNING_DID.source, errorMessage: 'A DID of this tenant: did:key:… or did:web:…' })),
  name: Type.Optional(Text(MAX_LABEL)),
  logoUrl: Type.Optional(HttpsUrl),
  iconUrl: Type.Optional(HttpsUrl),
};
const Issuer = Type.Object(issuerFields, { ...strict, errorMessage: 'A { name, id, logoUrl, iconUrl } object' });

export const MdocConfigurationBody = Type.Object({ ...common, includeStatus: Type.Optional(Flag) }, strict);
export const LdpVcConfigurationBody = Type.Object(
  {
    ...common,
    // ldp_vc credentials name their issuer (docs/formats/ldp-vc.md).
    issuer: Type.Object({ ...issuerFields, name: Text(MAX_LABEL) }, { ...strict, errorMessage: 'Required: { name, id?, logoUrl?, iconUrl? }' }),
    contexts: Type.Optional(List('JSON-LD context URLs', 2048)),
    additionalTypes: Type.Optional(List('credential types', 1000)),
    proofType: Type.Optional(Type.String({ maxLength: 100 })),
    credentialBranding: Type.Optional(
      Type.Object(
        { backgroundColor: Type.Optional(Color), watermarkImageUrl: Type.Optional(HttpsUrl) },
        { ...strict, errorMessage: 'A { backgroundColor, watermarkImageUrl } object' },
      ),
    ),
    revocable: Type.Optional(Flag),
  },
  strict,
);
/** docs/decisions.md "Issuer certificates": how verifiers find the issuer's key. */
const KeyResolutionField = Type.Union([Type.Literal('x5c'), Type.Literal('did')], {
  errorMessage: 'x5c (a certificate chain to the tenant’s issuer CA, as HAIP asks) or did (a DID key named by kid)',
});
export const CwtConfigurationBody = Type.Object(
  { ...common, issuer: Type.Optional(Issuer), revocable: Type.Optional(Flag), keyResolution: Type.Optional(KeyResolutionField) },
  strict,
);
/** A claim name in a path: what a claim mapping's name may be is checked against the mappings. */
const PathName = Type.String({ minLength: 1, maxLength: 1000 });
/** Decoy digests beside one claim: enough to blur how many claims there are, few enough to keep credentials small. */
export const MAX_DECOYS = 20;
const DisclosureRules = Type.Array(
  Type.Object(
    {
      path: Type.Array(Type.Union([PathName, Type.Null()]), {
        minItems: 1,
        maxItems: 16,
        errorMessage: 'A claim path: a mapped claim name, then member names or null (every array element), up to 16 steps',
      }),
      decoys: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_DECOYS, errorMessage: `A whole number from 0 to ${MAX_DECOYS}` })),
    },
    { ...strict, errorMessage: 'A { path, decoys } object' },
  ),
  { maxItems: 100, errorMessage: 'A list of up to 100 { path, decoys } rules' },
);
/** W3C Subresource Integrity metadata, as `vct#integrity` and `extends#integrity` carry it. */
const Integrity = Type.String({ maxLength: 400, pattern: '^sha(256|384|512)-[A-Za-z0-9+/]+={0,2}$', errorMessage: 'An SRI string such as sha256-…' });
const Rendering = Type.Object(
  {
    simple: Type.Optional(
      Type.Object(
        {
          logo: Type.Optional(
            Type.Object(
              { uri: HttpsUrl, 'uri#integrity': Type.Optional(Integrity), alt_text: Type.Optional(Text(MAX_LABEL)) },
              { ...strict, errorMessage: 'A { uri, uri#integrity, alt_text } object' },
            ),
          ),
          background_color: Type.Optional(Color),
          text_color: Type.Optional(Color),
        },
        { ...strict, errorMessage: 'A { logo, background_color, text_color } object' },
      ),
    ),
  },
  { ...strict, errorMessage: 'A { simple } object' },
);
/** SD-JWT VC Type Metadata, in the draft's member names; `vct` is the configuration's `type`. */
const TypeMetadataBody = Type.Object(
  {
    name: Type.Optional(Text(MAX_LABEL)),
    description: Type.Optional(Text(MAX_DESCRIPTION)),
    extends: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, errorMessage: 'The vct this type extends' })),
    'extends#integrity': Type.Optional(Integrity),
    display: Type.Optional(
      Type.Array(
        Type.Object(
          { locale: Locale, name: Text(MAX_LABEL), description: Type.Optional(Text(MAX_DESCRIPTION)), rendering: Type.Optional(Rendering) },
          { ...strict, errorMessage: 'A { locale, name, description, rendering } object' },
        ),
        { maxItems: 50, errorMessage: 'A list of up to 50 { locale, name, description, rendering } entries' },
      ),
    ),
    claims: Type.Optional(
      Type.Array(
        Type.Object(
          {
            path: Type.Array(Type.Union([PathName, Type.Null(), Type.Integer({ minimum: 0 })]), {
              minItems: 1,
              maxItems: 16,
              errorMessage: 'A claim path: names, null (every array element) or array indexes, up to 16 steps',
            }),
            display: Type.Optional(
              Type.Array(
                Type.Object(
                  { locale: Locale, label: Text(MAX_LABEL), description: Type.Optional(Text(MAX_DESCRIPTION)) },
                  { ...strict, errorMessage: 'A { locale, label, description } object' },
                ),
                { maxItems: 50, errorMessage: 'A list of up to 50 { locale, label, description } entries' },
              ),
            ),
            sd: Type.Optional(
              Type.Union([Type.Literal('always'), Type.Literal('allowed'), Type.Literal('never')], { errorMessage: 'always, allowed or never' }),
            ),
          },
          { ...strict, errorMessage: 'A { path, display, sd } object' },
        ),
        { maxItems: 100, errorMessage: 'A list of up to 100 { path, display, sd } entries' },
      ),
    ),
  },
  { ...strict, errorMessage: 'A { name, description, extends, extends#integrity, display, claims } object' },
);

export const SdJwtConfigurationBody = Type.Object(
  {
    ...common,
    issuer: Type.Optional(Issuer),
    selectivelyDisclosable: Type.Optional(List('claim names', 1000)),
    disclosureRules: Type.Optional(DisclosureRules),
    typeMetadata: Type.Optional(TypeMetadataBody),
    revocable: Type.Optional(Flag),
    keyResolution: Type.Optional(KeyResolutionField),
  },
  strict,
);

/** Each format's body: cwt and cwt_vc configurations share theirs. */
export const CONFIGURATION_BODIES: Readonly<Record<CredentialFormat, TObject>> = {
  mso_mdoc: MdocConfigurationBody,
  ldp_vc: LdpVcConfigurationBody,
  cwt: CwtConfigurationBody,
  cwt_vc: CwtConfigurationBody,
  'dc+sd-jwt': SdJwtConfigurationBody,
};
