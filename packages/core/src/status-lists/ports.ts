import type { StatusListFormat } from './model.ts';

/** What a status list token says and who signs it. */
export interface StatusListTokenInput {
  tenantId: string;
  format: StatusListFormat;
  /** The URI the token is served at: its `sub` (IETF Token Status List §5.2). */
  uri: string;
  issuedAt: Date;
  expiresAt: Date;
  /** How long a verifier may cache it, in seconds (`ttl`). */
  ttlSeconds: number;
  bits: 1 | 2;
  /**
   * The uncompressed statuses: entry i's `bits` bits at byte floor(i·bits/8), starting at bit
   * (i·bits) mod 8, least significant first (IETF Token Status List §4.1).
   */
  statuses: Uint8Array;
  /** The document signer that signs: its KeyManager key and the x5chain (its certificate first). */
  signer: { keyId: string; x5chain: readonly Uint8Array[] };
}

/**
 * Signs mDoc status list tokens as CWTs in a COSE_Sign1 (ES256): draft 14 with `typ`
 * `application/statuslist+cwt` and claims 65533 (status_list `{ bits, lst }`) and 65534 (ttl);
 * legacy with `typ` `mattr-statuslist+cwt` and claims -65538 and -65539. `lst` is the statuses
 * compressed with DEFLATE in the ZLIB format (RFC 1950).
 */
export interface StatusListTokenSigner {
  sign(input: StatusListTokenInput): Promise<Uint8Array>;
}

/**
 * What a Token Status List token of the other formats says (IETF Token Status List draft 14 §5):
 * a JWT (`typ` `statuslist+jwt`, for dc+sd-jwt) or a CWT (`typ` `application/statuslist+cwt`, for
 * cwt and cwt_vc), signed by the issuer DID key that signs the credentials it lists.
 */
export interface TokenStatusListInput {
  tenantId: string;
  form: 'jwt' | 'cwt';
  /** The KeyManager id of the P-256 key that signs: the DID's, or the issuer CA leaf's. */
  keyId: string;
  /** The DID URL of the key, as `kid`; absent when `x5c` names the key. */
  kid?: string;
  /**
   * The leaf certificate that signs under the tenant's issuer CA, and the chain up to (not
   * including) the CA: the JWT's `x5c` header (standard base64 DER, RFC 7515 §4.1.6) or the CWT's
   * `x5chain` (DER, RFC 9360 label 33). Exactly one of `kid` and `x5c` is given.
   */
  x5c?: { x5c: readonly string[]; x5chain: readonly Uint8Array[] };
  /** The token's `iss`, as in the credentials it lists: the DID, or the credential issuer identifier (https) with `x5c`. */
  issuer: string;
  /** The URI the token is served at: its `sub`. */
  uri: string;
  issuedAt: Date;
  expiresAt: Date;
  ttlSeconds: number;
  /** One bit per entry (valid 0, invalid 1), packed as StatusListTokenInput.statuses is. */
  statuses: Uint8Array;
}

/** Signs Token Status List tokens for referenced credentials (JWT and CWT forms), ES256. */
export interface TokenStatusListSigner {
  /** The compact JWS for `jwt`; the COSE_Sign1 bytes (untagged) for `cwt`. */
  sign(input: TokenStatusListInput): Promise<string | Uint8Array>;
  /**
   * The certificate that signed a token this signer made with `x5c` (the first of its `x5c`, or of
   * its CWT `x5chain`), as standard base64 DER; undefined for a token that names its key by `kid`
   * or that cannot be read. The core serves a kept token again only while its leaf is the one that signs now.
   */
  leafOf(form: 'jwt' | 'cwt', token: Uint8Array): string | undefined;
}

/** What a RevocationList2020 credential lists (W3C CCG Revocation List 2020), and who signs it. */
export interface RevocationListInput {
  tenantId: string;
  /** The KeyManager id of the DID's Ed25519 key and its DID URL (the proof's verificationMethod). */
  keyId: string;
  verificationMethod: string;
  /** The DID: the list credential's `issuer`. */
  issuer: string;
  proofType: 'Ed25519Signature2018' | 'Ed25519Signature2020';
  /** The URL the list credential is served at: its `id`. */
  url: string;
  issuedAt: Date;
  /** One bit per entry, index 0 first: bit i of the list is (statuses[i >> 3] >> (i & 7)) & 1 as packed by the core. */
  statuses: Uint8Array;
  size: number;
}

/** Builds and signs RevocationList2020 credentials (the list compressed with GZIP, base64url). */
export interface RevocationListSigner {
  sign(input: RevocationListInput): Promise<Record<string, unknown>>;
}
