// The issuer's metadata signed with its X.509 credential key (OpenID4VCI 1.0 §12.2.3, HAIP 1.0 §4.3),
// and the JWT VC Issuer Metadata that publishes the same keys for SD-JWT VC verifiers that resolve an
// https `iss` (SD-JWT VC draft, "JWT VC Issuer Metadata"). docs/decisions.md "Signed issuer metadata
// and JWT VC Issuer Metadata (issue 29)".

import type { X509Signer } from '../issuer-pki/model.ts';
import type { KeyManager } from '../keys/ports.ts';
import { bytesToBase64Url } from '../shared/encoding.ts';

/** The `typ` header of signed issuer metadata (OpenID4VCI 1.0 §12.2.3; explicit typing, RFC 8725 §3.11). */
export const SIGNED_METADATA_TYP = 'openidvci-issuer-metadata+jwt';

/** How long a signed metadata document is valid by default (`exp` − `iat`): a day, capped by the leaf certificate. */
export const SIGNED_METADATA_LIFETIME_SECONDS = 24 * 60 * 60;

/** The issuer metadata as a JWT, and what a cache needs to know to serve it again. */
export interface SignedIssuerMetadata {
  /** The compact JWS, served as `application/jwt`. */
  jwt: string;
  /** The leaf certificate that signed it: once another one signs for the issuer, it is signed again. */
  signerId: string;
  /** Its `iat` and `exp`. */
  issuedAt: Date;
  expiresAt: Date;
  /** When to sign it again: halfway through its life, so that no answer is close to expiry. */
  renewAt: Date;
}

const encoder = new TextEncoder();
const segment = (value: object): string => bytesToBase64Url(encoder.encode(JSON.stringify(value)));

/** The JWS algorithm of a leaf key (the KeyManager signs P-256 in the IEEE P1363 form JWS uses). */
function algorithmOf(signer: X509Signer): 'ES256' | 'EdDSA' {
  return signer.publicJwk.crv === 'P-256' ? 'ES256' : 'EdDSA';
}

export interface SignIssuerMetadataInput {
  keys: KeyManager;
  signer: X509Signer;
  /** The credential issuer identifier: `sub` (and `iss`, the party attesting to the claims). */
  issuer: string;
  /** The metadata parameters, each a top-level claim. */
  metadata: Readonly<Record<string, unknown>>;
  now: Date;
  lifetimeSeconds?: number;
}

/**
 * Signs the issuer metadata as OpenID4VCI 1.0 §12.2.3 describes: `typ` openidvci-issuer-metadata+jwt,
 * the leaf's chain in `x5c` (without the CA, HAIP 1.0 §4.3), `sub` the credential issuer, `iat`, and
 * an `exp` no later than the leaf's end. Undefined when the leaf ends within the second: nothing to sign with.
 */
export async function signIssuerMetadata(input: SignIssuerMetadataInput): Promise<SignedIssuerMetadata | undefined> {
  const { keys, signer, issuer, metadata } = input;
  const iat = Math.floor(input.now.getTime() / 1000);
  const exp = Math.min(iat + (input.lifetimeSeconds ?? SIGNED_METADATA_LIFETIME_SECONDS), Math.floor(signer.notAfter.getTime() / 1000));
  if (exp <= iat) return undefined;
  const header = { alg: algorithmOf(signer), typ: SIGNED_METADATA_TYP, x5c: signer.x5c };
  // The metadata parameters first, as in the JSON form; the JWT claims after them, which metadata never names.
  const payload = { ...metadata, iss: issuer, sub: issuer, iat, exp };
  const signingInput = `${segment(header)}.${segment(payload)}`;
  const signature = await keys.sign(signer.key.tenantId, signer.key.keyId, encoder.encode(signingInput));
  return {
    jwt: `${signingInput}.${bytesToBase64Url(signature)}`,
    signerId: signer.signerId,
    issuedAt: new Date(iat * 1000),
    expiresAt: new Date(exp * 1000),
    renewAt: new Date(Math.floor(((iat + exp) / 2) * 1000)),
  };
}

/**
 * JWT VC Issuer Metadata (SD-JWT VC draft): the issuer identifier, equal to the `iss` of the
 * SD-JWT VCs signed under the tenant's issuer CA, and `jwks` with the key of every valid credential
 * leaf, each with its `kid` (the signer id) and its chain in `x5c` (RFC 7517 §4.7, the CA left out).
 */
export function buildJwtVcIssuerMetadata(issuer: string, signers: readonly X509Signer[]): Record<string, unknown> {
  return {
    issuer,
    jwks: {
      keys: signers.map((s) => ({ ...s.publicJwk, kid: s.signerId, use: 'sig', alg: algorithmOf(s), x5c: [...s.x5c] })),
    },
  };
}
