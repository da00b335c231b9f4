// Credential request forms (OpenID4VCI 1.0 §8.2; draft 13 for the deprecated
// form), read from untrusted JSON into one shape the endpoint works with.

import { CREDENTIAL_FORMATS, type CredentialFormat } from '../configurations/model.ts';
import type { FormatRegistry } from '../credential-formats/port.ts';
import { JWE_ENCRYPTION_ALGORITHMS, type JweEncryption, type ResponseEncryptionParameters } from './ports.ts';
import { isPlainObject } from '../shared/body-problems.ts';
import { DomainError, type OAuthErrorCode } from '../shared/errors.ts';

/** What the deprecated (draft 13) request names instead of a configuration id. */
export interface LegacyCredentialTarget {
  format: CredentialFormat;
  /** Types the request names (doctype, credential_definition.type, types, type or vct): one must be the configuration's. */
  types: string[];
}

export interface CredentialRequest {
  /** `current` answers `{ credentials: [...] }`; `legacy` answers `{ credential, format }` with deprecation headers. */
  form: 'current' | 'legacy';
  /** The current form's `credential_configuration_id`. */
  configurationId?: string;
  /** The current form's `credential_identifier`, one the token response gave (here, a configuration id). */
  credentialIdentifier?: string;
  /** The legacy form's format and types, which map to a configuration the token grants. */
  legacy?: LegacyCredentialTarget;
  /** The key proofs, when the request carries any: `jwt` proofs, or one key attestation (`attestation`). */
  proofs?: KeyProofs;
  responseEncryption?: ResponseEncryptionParameters;
}

/**
 * The key proofs of a request (OpenID4VCI 1.0 §8.2, App. F): one or more `jwt` proofs, each by the
 * key its credential is bound to, or one key attestation JWT whose `attested_keys` are those keys.
 */
export type KeyProofs = { type: 'jwt'; jwts: string[] } | { type: 'attestation'; attestation: string };

/** The most proofs a request may carry whatever the tenant allows: the ceiling of `batchSize`. */
export const MAX_BATCH_SIZE = 100;

const MAX_ID_LENGTH = 200;

const isName = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_ID_LENGTH;

/** A 400 with an OAuth error and the one parameter it is about. */
export function refusal(oauthError: OAuthErrorCode, message: string, param?: string, value?: unknown): DomainError {
  return new DomainError('BadRequest', message, {
    oauthError,
    ...(param === undefined
      ? {}
      : { details: [{ ...(value === undefined || typeof value === 'object' ? {} : { value }), msg: message, param, location: 'body' as const }] }),
  });
}

const malformed = (message: string, param?: string, value?: unknown): never => {
  throw refusal('invalid_credential_request', message, param, value);
};

/**
 * The key proofs of a request. OpenID4VCI 1.0 §8.3.1.2: a missing proof, an invalid one, or both
 * `proof` and `proofs` is `invalid_proof`. `proofs` holds one proof type: `jwt` (a non-empty array)
 * or `attestation` (exactly one JWT, App. F.3). How many the tenant takes is the endpoint's check
 * (`batch_credential_issuance`); past the ceiling of any tenant it is refused here, before any work.
 */
function proofsOf(body: Record<string, unknown>): KeyProofs | undefined {
  const { proof, proofs } = body;
  if (proof !== undefined && proofs !== undefined) throw refusal('invalid_proof', 'Send either proof or proofs, not both', 'proofs');
  if (proofs !== undefined) {
    if (!isPlainObject(proofs)) return malformed('proofs must be an object keyed by proof type', 'proofs');
    const types = Object.keys(proofs);
    if (types.length !== 1) return malformed('proofs must hold exactly one proof type', 'proofs');
    const type = types[0] as string;
    if (type !== 'jwt' && type !== 'attestation') throw refusal('invalid_proof', 'Only jwt and attestation proofs are accepted', 'proofs');
    const jwts = proofs[type];
    const param = `proofs.${type}`;
    if (!Array.isArray(jwts)) return malformed(`${param} must be an array of JWTs`, param);
    if (jwts.length === 0) throw refusal('invalid_proof', `${param} holds no proof`, param);
    if (type === 'attestation' && jwts.length !== 1) throw refusal('invalid_proof', 'proofs.attestation must hold exactly one key attestation', param);
    if (jwts.length > MAX_BATCH_SIZE) throw refusal('invalid_proof', `A request may carry at most ${MAX_BATCH_SIZE} proofs`, param);
    if (!jwts.every((jwt) => typeof jwt === 'string')) throw refusal('invalid_proof', 'Each proof must be a JWT string', param);
    return type === 'jwt' ? { type, jwts: jwts as string[] } : { type, attestation: jwts[0] as string };
  }
  if (proof !== undefined) {
    if (!isPlainObject(proof)) throw refusal('invalid_proof', 'proof must be an object with proof_type and jwt', 'proof');
    if (proof.proof_type !== 'jwt') throw refusal('invalid_proof', 'Only jwt proofs are accepted', 'proof.proof_type');
    if (typeof proof.jwt !== 'string') throw refusal('invalid_proof', 'proof.jwt must be a JWT string', 'proof.jwt');
    return { type: 'jwt', jwts: [proof.jwt] };
  }
  return undefined;
}

const badEncryption = (message: string, param: string) => refusal('invalid_encryption_parameters', message, param);

/**
 * `credential_response_encryption` (OpenID4VCI 1.0 §8.2): `{ jwk, enc, zip? }`, the algorithm
 * being the jwk's `alg`. Drafts sent `alg` beside `jwk`; it is taken when it agrees. ECDH-ES is
 * the only algorithm published, so a key without `alg` is used with it.
 */
export function responseEncryptionOf(value: unknown): ResponseEncryptionParameters | undefined {
  if (value === undefined) return undefined;
  const param = 'credential_response_encryption';
  if (!isPlainObject(value)) throw badEncryption(`${param} must be an object with jwk and enc`, param);
  const { jwk, enc, alg, zip } = value;
  if (!isPlainObject(jwk)) throw badEncryption('jwk must be the public JWK to encrypt the response to', `${param}.jwk`);
  if (typeof enc !== 'string' || !(JWE_ENCRYPTION_ALGORITHMS as readonly string[]).includes(enc)) {
    throw badEncryption(`enc must be one of ${JWE_ENCRYPTION_ALGORITHMS.join(', ')}`, `${param}.enc`);
  }
  if (zip !== undefined) throw badEncryption('Compressed responses (zip) are not supported', `${param}.zip`);
  const algs = [jwk.alg, alg].filter((a) => a !== undefined);
  if (algs.some((a) => a !== 'ECDH-ES')) throw badEncryption('The key management algorithm must be ECDH-ES', `${param}.jwk.alg`);
  return { jwk, alg: 'ECDH-ES', enc: enc as JweEncryption };
}

/**
 * Reads a credential request body, current (OpenID4VCI 1.0: `credential_configuration_id`,
 * `proofs`) or legacy (draft 13: `format`, `doctype`/`credential_definition`, `proof`). Unknown
 * fields are ignored, as OAuth has it. Whether a proof is required, and what it holds, is for the
 * endpoint to decide; what a legacy request names is its format handler's to read.
 */
export function parseCredentialRequest(body: unknown, formats: FormatRegistry): CredentialRequest {
  if (!isPlainObject(body)) return malformed('The credential request must be a JSON object');
  const { credential_configuration_id: id, credential_identifier: identifier, format } = body;
  if (identifier !== undefined) {
    if (id !== undefined) return malformed('Send either credential_configuration_id or credential_identifier, not both', 'credential_identifier');
    if (format !== undefined) return malformed('Send either credential_identifier (OpenID4VCI 1.0) or format (the deprecated request), not both', 'format');
    if (!isName(identifier))
      throw refusal('unknown_credential_identifier', 'credential_identifier must be one the token response gave', 'credential_identifier', identifier);
  }
  if (id !== undefined && format !== undefined) {
    return malformed('Send either credential_configuration_id (OpenID4VCI 1.0) or format (the deprecated request), not both', 'format');
  }
  const proofs = proofsOf(body);
  const responseEncryption = responseEncryptionOf(body.credential_response_encryption);
  const common = { ...(proofs === undefined ? {} : { proofs }), ...(responseEncryption ? { responseEncryption } : {}) };
  if (identifier !== undefined) return { form: 'current', credentialIdentifier: identifier as string, ...common };
  if (id !== undefined) {
    if (!isName(id)) return malformed('credential_configuration_id must be a configuration id', 'credential_configuration_id', id);
    return { form: 'current', configurationId: id, ...common };
  }
  if (format === undefined) return malformed('The request names no credential_configuration_id', 'credential_configuration_id');
  if (typeof format !== 'string' || !(CREDENTIAL_FORMATS as readonly string[]).includes(format)) {
    return malformed(`format must be one of ${CREDENTIAL_FORMATS.join(', ')}`, 'format', format);
  }
  const f = format as CredentialFormat;
  return { form: 'legacy', legacy: { format: f, types: formats.get(f).legacyRequestTypes(body) }, ...common };
}
