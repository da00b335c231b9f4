import type { DeferredIssuanceSettings } from './deferred.ts';
import type { TenantRecord } from '../shared/ports.ts';

/** The credential formats Vellum issues (docs/credential-formats.md; `dc+sd-jwt` is a Vellum addition). */
export const CREDENTIAL_FORMATS = ['mso_mdoc', 'ldp_vc', 'cwt', 'cwt_vc', 'dc+sd-jwt'] as const;
export type CredentialFormat = (typeof CREDENTIAL_FORMATS)[number];

/** docs/decisions.md "Credential configurations": the value types an mDoc element can be mapped to. */
export const MDOC_VALUE_TYPES = ['string', 'number', 'boolean', 'date', 'dateTime'] as const;
export type MdocValueType = (typeof MDOC_VALUE_TYPES)[number];

/** Where one claim's value comes from (docs/decisions.md "Credential configurations"). */
export interface ClaimMapping {
  /** A dotted path into the user object `{ claims, authenticationProvider }`. */
  mapFrom?: string;
  required?: boolean;
  defaultValue?: unknown;
  /** mDocs only: how the value is typed in CBOR. */
  type?: MdocValueType;
}

/** mDocs: namespace → element → mapping. Other formats: claim → mapping. */
export type MdocClaimMappings = Record<string, Record<string, ClaimMapping>>;
export type FlatClaimMappings = Record<string, ClaimMapping>;

/** A calendar-free duration; years count 365 days and months 30 (ISO 8601 nominal lengths). */
export interface Duration {
  years?: number;
  months?: number;
  weeks?: number;
  days?: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
}

/** Issuer-facing display of a credential (OpenID4VCI 1.0 §12.2 `credential_metadata.display`). */
export interface CredentialDisplay {
  name: string;
  locale?: string;
  logo?: { uri: string; alt_text?: string };
  description?: string;
  background_color?: string;
  background_image?: { uri: string };
  text_color?: string;
}

/** A localised label of a claim. */
export interface ClaimLabel {
  name: string;
  locale?: string;
}

/** Labels per claim, nested like the claim mappings (mDocs: namespace → element → labels). */
export type ClaimDisplay = Record<string, ClaimLabel[] | Record<string, ClaimLabel[]>>;

/** Linked-data and CWT issuers: who signs and how they are shown. */
export interface IssuerProfile {
  /** Pins the signing DID; otherwise the most recent suitable DID signs. */
  id?: string;
  name?: string;
  logoUrl?: string;
  iconUrl?: string;
}

/** The key attestation levels a key proof must show (OpenID4VCI 1.0 App. D.2): one of each list. */
export interface KeyAttestationLevels {
  /** Accepted `key_storage` levels (e.g. iso_18045_high); the attestation must name one. Empty or absent: any. */
  keyStorage?: string[];
  /** Accepted `user_authentication` levels; the attestation must name one. Empty or absent: any. */
  userAuthentication?: string[];
}

/**
 * What a key proof must show about the wallet's key (OpenID4VCI 1.0 App. D): a key attestation
 * attesting at least one of the listed levels, whose `x5c` chains to one of `rootCertificates` or,
 * without them, that a wallet provider the tenant trusts for key attestations signed
 * (docs/dpop-and-attestation.md "Wallet requirements").
 */
export interface KeyAttestationRequirement extends KeyAttestationLevels {
  /** PEM roots of the key attestation issuers (wallet providers) this configuration trusts; absent: the tenant's wallet providers. */
  rootCertificates?: string[];
}

/**
 * What a configuration or an offer asks of the wallet at the token endpoint (docs/decisions.md
 * "Wallet requirements per configuration and offer (issue 30)"). Only `true` members are kept.
 */
export interface WalletRequirements {
  /** A wallet attestation, from a wallet provider the tenant trusts or the registered client's roots. */
  walletAttestation?: true;
  /** DPoP-bound access tokens only (RFC 9449): a token request without a DPoP proof is refused. */
  dpop?: true;
}

interface ConfigurationBase extends TenantRecord {
  id: string;
  /** Unique per format within a tenant; for mDocs it is the docType. */
  type: string;
  name?: string;
  description?: string;
  expiresIn: Duration;
  claimSourceId?: string;
  display?: CredentialDisplay[];
  claimDisplay?: ClaimDisplay;
  /** Key proofs must carry a key attestation that meets this (metadata `key_attestations_required`). */
  keyAttestationsRequired?: KeyAttestationRequirement;
  /** What the token endpoint asks of a wallet for a token that grants this configuration. */
  walletRequirements?: WalletRequirements;
  /**
   * `false`: credentials carry no holder key and the wallet sends no key proof (OpenID4VCI 1.0
   * §6.3, "no binding"); absent: bound to the key the wallet proves, as always. Only `false` is kept.
   */
  holderBinding?: false;
  /** Credentials are issued only once an admin approves each request (docs/deferred-issuance.md); absent: at once. */
  deferred?: DeferredIssuanceSettings;
  /** Re-issuance with a refresh token (docs/refresh-tokens.md); absent: none, as before. */
  refresh?: RefreshPolicy;
}

/**
 * A configuration that allows refresh (OpenID4VCI 1.0 §6.2, HAIP 1.0 §4.4): token responses for a
 * grant that covers it carry a refresh token, good until `maxAge` after the family's first issuance.
 */
export interface RefreshPolicy {
  allowed: true;
  /** How long after the first token a refresh token may still refresh; absent: DEFAULT_REFRESH_MAX_AGE (30 days). */
  maxAge?: Duration;
}

export interface MdocConfiguration extends ConfigurationBase {
  format: 'mso_mdoc';
  claimMappings: MdocClaimMappings;
  /** Put a status list entry in every credential issued. */
  includeStatus: boolean;
}

export interface LdpVcConfiguration extends ConfigurationBase {
  format: 'ldp_vc';
  claimMappings: FlatClaimMappings;
  issuer: IssuerProfile & { name: string };
  contexts?: string[];
  additionalTypes?: string[];
  proofType: 'Ed25519Signature2018' | 'Ed25519Signature2020';
  credentialBranding?: { backgroundColor?: string; watermarkImageUrl?: string };
  revocable: boolean;
}

export interface CwtConfiguration extends ConfigurationBase {
  format: 'cwt' | 'cwt_vc';
  claimMappings: FlatClaimMappings;
  issuer?: IssuerProfile;
  revocable: boolean;
  /** How verifiers find the issuer's key (docs/decisions.md "Issuer certificates"); absent: `did`, the only one before it existed. */
  keyResolution?: KeyResolution;
}

export interface SdJwtConfiguration extends ConfigurationBase {
  format: 'dc+sd-jwt';
  claimMappings: FlatClaimMappings;
  issuer?: IssuerProfile;
  /** The claims issued as selectively disclosable (each one a disclosure); absent: every mapped claim. */
  selectivelyDisclosable?: string[];
  /** Give every credential a Token Status List entry, so it can be revoked (absent in configurations saved before it existed: false). */
  revocable?: boolean;
  /**
   * How verifiers find the issuer's key (docs/decisions.md "Issuer certificates"): `x5c`, a chain to
   * the tenant's issuer CA with `iss` the credential issuer (HAIP 1.0), or `did`, the DID's key by
   * `kid` with `iss` the DID. Absent (configurations saved before it existed): `did`.
   */
  keyResolution?: KeyResolution;
  /**
   * Nested selective disclosure and decoys, per claim path (docs/decisions.md "SD-JWT VC type
   * metadata (issue 29)"). Absent: only the top-level claims `selectivelyDisclosable` names.
   */
  disclosureRules?: DisclosureRule[];
  /** SD-JWT VC Type Metadata for the `vct`, served at the vct URL; credentials then carry `vct#integrity`. */
  typeMetadata?: TypeMetadata;
}

/** A claim made selectively disclosable where it sits, with decoy digests beside it. */
export interface DisclosureRule {
  /** Member names from a mapped claim down; null: every element of an array. */
  path: (string | null)[];
  /** Decoy digests beside the claim's (0 to MAX_DECOYS). */
  decoys?: number;
}

/** SD-JWT VC Type Metadata as published, minus `vct` (the configuration's `type`); member names are the draft's. */
export interface TypeMetadata {
  name?: string;
  description?: string;
  extends?: string;
  'extends#integrity'?: string;
  display?: {
    locale: string;
    name: string;
    description?: string;
    rendering?: { simple?: { logo?: { uri: string; 'uri#integrity'?: string; alt_text?: string }; background_color?: string; text_color?: string } };
  }[];
  claims?: {
    path: (string | null | number)[];
    display?: { locale: string; label: string; description?: string }[];
    sd?: 'always' | 'allowed' | 'never';
  }[];
}

/** How an SD-JWT VC names its issuer's key. */
export const KEY_RESOLUTIONS = ['x5c', 'did'] as const;
export type KeyResolution = (typeof KEY_RESOLUTIONS)[number];

/** A credential configuration (docs/decisions.md "Credential configurations"): what an issuer issues, in one format. */
export type CredentialConfiguration = MdocConfiguration | LdpVcConfiguration | CwtConfiguration | SdJwtConfiguration;

/**
 * What a caller sends to create or replace a configuration of any format (docs/decisions.md "Credential configurations"). Fields that
 * belong to other formats are refused, and every value is checked by the core (see input.ts), so
 * enumerated values are plain strings here.
 */
export interface CredentialConfigurationInput {
  type: string;
  name?: string;
  description?: string;
  claimMappings: Record<string, unknown>;
  expiresIn: Duration;
  claimSourceId?: string;
  display?: CredentialDisplay[];
  claimDisplay?: ClaimDisplay;
  keyAttestationsRequired?: KeyAttestationRequirement;
  walletRequirements?: { walletAttestation?: boolean; dpop?: boolean };
  /** false: issued without a holder key (not for mso_mdoc). */
  holderBinding?: boolean;
  /** Require review before issuance (docs/deferred-issuance.md). */
  deferred?: { intervalSeconds?: number; expiresIn?: Duration };
  /** Re-issuance with a refresh token (docs/refresh-tokens.md). */
  refresh?: RefreshPolicy;
  /** mso_mdoc. */
  includeStatus?: boolean;
  /** ldp_vc (name required), cwt, cwt_vc, dc+sd-jwt. */
  issuer?: IssuerProfile;
  /** ldp_vc. */
  contexts?: string[];
  additionalTypes?: string[];
  proofType?: string;
  credentialBranding?: { backgroundColor?: string; watermarkImageUrl?: string };
  /** ldp_vc, cwt, cwt_vc, dc+sd-jwt. */
  revocable?: boolean;
  /** dc+sd-jwt. */
  selectivelyDisclosable?: string[];
  disclosureRules?: DisclosureRule[];
  typeMetadata?: TypeMetadata;
}
