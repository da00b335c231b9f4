// The CredentialFormat port (issue 14): everything that differs between the formats Vellum issues
// sits behind this one interface, and the rest of the core (configurations, metadata, the credential
// endpoint) asks the registry for the handler of a configuration's format instead of branching.

import type { ClaimSubject, MdocClaims } from '../configurations/claims.ts';
import type {
  CredentialConfiguration,
  CredentialFormat,
  CwtConfiguration,
  LdpVcConfiguration,
  MdocConfiguration,
  SdJwtConfiguration,
} from '../configurations/model.ts';
import type { Problems } from '../shared/body-problems.ts';
import type { ClaimLayout } from '../configurations/rules.ts';
import type { KeyAlgorithm, PublicJwk } from '../keys/model.ts';
import type { Tenant } from '../tenancy/model.ts';

/** The fields every configuration has, checked and assigned before a format builds its own. */
export type CommonConfiguration = Omit<
  CredentialConfiguration,
  | 'format'
  | 'claimMappings'
  | 'includeStatus'
  | 'issuer'
  | 'contexts'
  | 'additionalTypes'
  | 'proofType'
  | 'credentialBranding'
  | 'revocable'
  | 'selectivelyDisclosable'
>;

/** What a format's issue step receives: the configuration, who the credential is about, and whose key it is bound to. */
export interface FormatIssueRequest<C extends CredentialConfiguration = CredentialConfiguration> {
  tenant: Tenant;
  configuration: C;
  /** The user object claims are mapped from (docs/decisions.md "Credential configurations"). */
  subject: ClaimSubject;
  /**
   * The holder's public key, from the key proof: the credential is bound to it. Absent only for a
   * configuration with `holderBinding: false`, whose credentials name no holder key.
   */
  holderKey?: PublicJwk;
  /** The credential issuer identifier the wallet talks to (an https origin). */
  credentialIssuer: string;
  /** The issuance time. The credential is valid from it for the configuration's `expiresIn`. */
  now: Date;
  /**
   * Which request shape asked (docs/formats/ldp-vc.md): a format whose legacy credential carries more
   * than its current one (ldp_vc's issuer object, branding, name and description) signs that.
   */
  form: 'current' | 'legacy';
}

/** A credential as the credential endpoint returns it. */
export interface IssuedCredential {
  /** OpenID4VCI's `credential`: a string (mso_mdoc, cwt, cwt_vc, dc+sd-jwt) or a JSON-LD object (ldp_vc). */
  credential: string | Record<string, unknown>;
  /** ISO 8601 at whole seconds, as the credential writes them. */
  validFrom: string;
  validUntil: string;
  /** The status list entry the credential names, for the caller to record with it (`statusLists.insertEntry`). */
  statusEntry?: { listId: string; idx: number };
}

/**
 * The status entry a credential of a configuration carries, which the status list work (issue 15)
 * writes: the mDoc Token Status List (MSO `status`/`_status`), a W3C status list credential
 * (ldp_vc `credentialStatus`), or an IETF Token Status List reference (`status.status_list`).
 */
export type StatusEntryKind = 'mdoc-status-list' | 'status-list-credential' | 'token-status-list';

/** One credential format: its configuration fields, its metadata, its request shape and its issuance. */
export interface CredentialFormatHandler<C extends CredentialConfiguration = CredentialConfiguration> {
  readonly format: C['format'];
  /** How `claimMappings` (and `claimDisplay`) nest: namespace → element (mDocs) or claim name. */
  readonly claimLayout: ClaimLayout;
  /** Where a flat claim sits in the credential, as metadata `claims[].path` starts (OpenID4VCI 1.0 §12.2). */
  readonly claimPathPrefix: readonly string[];
  /** Claim names the credential writes itself, so no mapping may use them. */
  readonly reservedClaims: readonly string[];
  /** The key algorithm of the DID that signs; a pinned `issuer.id` must hold one. Undefined: not signed by a DID. */
  readonly signingKey?: KeyAlgorithm;
  /** The `alg` values a key proof may use: the holder key must be one the format can bind. */
  readonly proofAlgorithms: readonly string[];
  /**
   * Why a configuration of this format cannot turn holder binding off (`holderBinding: false`), as
   * the 400 says it; undefined when it can (the credential then carries no holder key).
   */
  readonly holderBindingRequired?: string;
  /** The longest `expiresIn` a configuration of this type may have, in days (docs/decisions.md "Credential configurations"). */
  maxValidityDays(type: unknown): number;
  /** Checks a configuration's `type` (a docType, a vct, or a plain name) for this format. */
  checkType(type: unknown, problems: Problems): void;
  /**
   * Checks the format's own fields of a create or replace body (the common fields, claim mappings
   * included, are checked by the caller). The whole body is there to cross-check.
   */
  checkFields(body: Record<string, unknown>, problems: Problems): void;
  /** The configuration a body that passed every check describes, with the format's defaults filled in. */
  build(common: CommonConfiguration, body: Record<string, unknown>): C;
  /** The format's own members of its `credential_configurations_supported` entry (format, id, scope and credential_metadata are added by the caller). */
  metadata(configuration: C): Record<string, unknown>;
  /** The format's own members of its deprecated `credentials_supported` entry (format, id and scope are added by the caller). */
  legacyMetadata(configuration: C): Record<string, unknown>;
  /**
   * The types a deprecated (draft 13) credential request names for this format: one must be the
   * configuration's `type` (none: any granted configuration of the format). A request without what
   * the format requires is a 400 `invalid_credential_request`.
   */
  legacyRequestTypes(body: Record<string, unknown>): string[];
  /** The status entry the configuration's credentials carry, or undefined for none. */
  statusEntry(configuration: C): StatusEntryKind | undefined;
  /**
   * Maps the claims (none, or a missing required one: 400), computes the validity (already expired:
   * 400), picks the signing key (none: 400) and signs. Records nothing: the flow that calls it does.
   */
  issue(request: FormatIssueRequest<C>): Promise<IssuedCredential>;
}

/** A handler of any one format. */
export type AnyFormatHandler =
  | CredentialFormatHandler<MdocConfiguration>
  | CredentialFormatHandler<LdpVcConfiguration>
  | CredentialFormatHandler<CwtConfiguration>
  | CredentialFormatHandler<SdJwtConfiguration>;

/** The handlers of every format, looked up by format. */
export interface FormatRegistry {
  /** The handler of a format; it may be given any configuration of that format. */
  get(format: CredentialFormat): CredentialFormatHandler;
  /** The handler of a configuration's format. */
  of(configuration: CredentialConfiguration): CredentialFormatHandler;
  readonly formats: readonly CredentialFormat[];
}

// ---------------------------------------------------------------------------------------------
// The signing engines the format handlers call (implemented by @vellum/formats). The mDoc engine
// (MdocEngine) and the Linked Data signer (LinkedDataSigner) are at the end.
// ---------------------------------------------------------------------------------------------

/** The claims of a CWT (RFC 8392), before encoding: registered claims by name, private ones apart. */
export interface CwtClaims {
  /** `iss` (label 1): the issuer's DID. */
  iss: string;
  /** `sub` (label 2), when there is one: the holder's DID. */
  sub?: string;
  /** `iat` (6), `nbf` (5) and `exp` (4), written as whole seconds since the epoch. */
  iat: Date;
  nbf?: Date;
  exp: Date;
  /** `cnf` (8, RFC 8747): the holder's public key, written as a COSE_Key under label 1; absent for an unbound credential. */
  cnf?: PublicJwk;
  /**
   * `status` (65535, IETF Token Status List draft 14 §6.3.1), when the credential can be revoked:
   * its entry in a Token Status List, written as `{ "status_list": { "idx": idx, "uri": uri } }`.
   */
  status?: { idx: number; uri: string };
  /** Private claims under text labels (RFC 8392 §3: claim names not registered): `type` and the claims, or `vc`. */
  claims: Record<string, unknown>;
}

export interface CwtSignInput {
  tenantId: string;
  /** The KeyManager id of the P-256 signing key. */
  keyId: string;
  /**
   * How a verifier finds the key: the DID URL of that key as the protected header's `kid` (label 4,
   * its UTF-8 bytes); or, with `x5chain`, the issuer leaf's id as `kid` and the chain (DER, leaf
   * first, no root) as the protected `x5chain` (label 33, RFC 9360; docs/decisions.md "Issuer certificates").
   */
  kid: string;
  x5chain?: readonly Uint8Array[];
  claims: CwtClaims;
}

/** Signs CWTs: COSE_Sign1 (RFC 9052) with ES256 (COSE alg -7) through the KeyManager. */
export interface CwtSigner {
  /** Returns the base64url (no padding) of the CBOR-tagged (18) COSE_Sign1. A destroyed key is DomainError `NotFound`. */
  sign(input: CwtSignInput): Promise<string>;
}

export interface SdJwtSignInput {
  tenantId: string;
  /** The KeyManager id of the signing key. */
  keyId: string;
  /** `ES256` for a P-256 key, `EdDSA` for an Ed25519 one. */
  alg: 'ES256' | 'EdDSA';
  /**
   * How a verifier finds the key: the DID URL of the key as the header's `kid`; or the certificate
   * chain as `x5c` (standard base64 DER, leaf first, no root; HAIP 1.0, docs/decisions.md "Issuer
   * certificates"), with `kid` naming the same key in the JWT VC Issuer Metadata.
   */
  kid?: string;
  x5c?: readonly string[];
  /** The whole payload, disclosable claims included (iss, iat, exp, vct, cnf and the claims). */
  payload: Record<string, unknown>;
  /** Top-level payload members to make selectively disclosable (each becomes a disclosure). */
  disclosable: readonly string[];
  /**
   * Nested selective disclosure and decoys (docs/decisions.md "SD-JWT VC type metadata (issue 29)"):
   * each rule makes the claim at its path disclosable and adds its decoy digests next to it. Absent
   * or empty: only `disclosable`, as before.
   */
  rules?: readonly SdJwtDisclosureRule[];
}

/** Where a disclosure goes, and how many decoy digests keep it company. */
export interface SdJwtDisclosureRule {
  /**
   * The claim's path from the top of the payload (SD-JWT VC claim paths): a member name per object,
   * null for every element of an array. A path whose claim the payload lacks is skipped.
   */
  path: readonly (string | null)[];
  /**
   * Decoy digests (RFC 9901 §4.2.5) added where the claim's digest goes: to the `_sd` of each object
   * holding the member, or as that many `{"...": digest}` elements of each array a null step names.
   */
  decoys?: number;
}

/** Issues SD-JWT VCs (IETF SD-JWT VC, `typ` `dc+sd-jwt`) through the KeyManager. */
export interface SdJwtSigner {
  /** Returns the compact SD-JWT: the issuer-signed JWT, then each disclosure, each followed by `~`. */
  issue(input: SdJwtSignInput): Promise<string>;
}

/** The Linked Data proof suites Vellum signs with. */
export type LinkedDataProofType = 'Ed25519Signature2018' | 'Ed25519Signature2020' | 'JsonWebSignature2020';

/**
 * A Linked Data proof: a detached JWS for the 2018 and JsonWebSignature2020 suites, or a multibase
 * `proofValue` (base58btc of the raw signature) for Ed25519Signature2020.
 */
export interface LinkedDataProof {
  type: LinkedDataProofType;
  created: string;
  verificationMethod: string;
  proofPurpose: string;
  /** The 2018 suite and JsonWebSignature2020. */
  jws?: string;
  /** Ed25519Signature2020. */
  proofValue?: string;
}

export interface LinkedDataSignInput {
  tenantId: string;
  /** The KeyManager id of the signing key. */
  keyId: string;
  type: LinkedDataProofType;
  /** The DID URL of the key, as the proof names it. */
  verificationMethod: string;
  proofPurpose: 'assertionMethod' | 'authentication';
  /** An xsd:dateTime, e.g. `2026-05-01T12:00:00Z`. */
  created: string;
  /** A JSON-LD document without a proof; every context it names must be one the signer bundles. */
  document: Record<string, unknown>;
}

/**
 * Signs JSON-LD documents with Linked Data proofs: URDNA2015 canonicalisation of the proof options
 * and of the document, then a detached JWS made inside the KeyManager. Contexts come from the
 * signer's own bundle; it never fetches one. Throws DomainError `NotFound` when the key is destroyed
 * or unknown; an unknown context or a term no context defines is a plain Error (a bug of the caller).
 */
export interface LinkedDataSigner {
  /** The URLs of the JSON-LD contexts the signer bundles: the only ones a document it signs may name. */
  readonly contexts: readonly string[];
  /** Returns the document with its `proof`. */
  sign(input: LinkedDataSignInput): Promise<Record<string, unknown> & { proof: LinkedDataProof }>;
}

/** What the mso_mdoc engine signs: claims already typed, the holder key, validity, and the document signer. */
export interface MdocEngineInput {
  tenantId: string;
  docType: string;
  namespaces: MdocClaims;
  /**
   * The credential's status list entry, written in the MSO as `status` (draft 14) or `_status`
   * (legacy): `{ status_list: { idx, uri } }`.
   */
  status?: { field: 'status' | '_status'; idx: number; uri: string };
  /** The holder's P-256 key, bound as the MSO's deviceKey. */
  deviceKey: PublicJwk;
  validity: { signed: Date; validFrom: Date; validUntil: Date };
  signer: {
    /** The KeyManager id of the document signer's key. */
    keyId: string;
    /** DER certificates for the COSE x5chain, the document signer's first. */
    x5chain: readonly Uint8Array[];
  };
}

/** Issues mso_mdoc credentials (ISO/IEC 18013-5), signing through the KeyManager. */
export interface MdocEngine {
  /**
   * Returns OpenID4VCI's `credential` for mso_mdoc (base64url IssuerSigned) and the validity as
   * written (whole seconds). A bad holder key is a 400 about `deviceKey`; a destroyed signer key is `NotFound`.
   */
  issue(input: MdocEngineInput): Promise<{ credential: string; validFrom: Date; validUntil: Date }>;
}
