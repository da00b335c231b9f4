// What the formats other than mso_mdoc share: the issuer profile, the legacy request's types, and
// the metadata members of a DID-signed credential.

import { resolveFlatClaims } from '../configurations/claims.ts';
import type { Duration, FlatClaimMappings, IssuerProfile } from '../configurations/model.ts';
import { isPlainObject, type Problems } from '../shared/body-problems.ts';
import { checkBoolean, checkIssuerProfile, MAX_VALIDITY_DAYS } from '../configurations/rules.ts';
import { DomainError } from '../shared/errors.ts';
import type { ReferencedListForm, ReferencedListSigner } from '../status-lists/model.ts';
import type { ReferencedStatusAllocation, StatusListService } from '../status-lists/service.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { Tenant } from '../tenancy/model.ts';
import type { FormatIssueRequest, IssuedCredential, StatusEntryKind } from './port.ts';
import { validityOf } from './validity.ts';

/** The W3C VC Data Model 1.1 base context. */
export const VC_CONTEXT = 'https://www.w3.org/2018/credentials/v1';
/** ES256 as a COSE algorithm identifier (RFC 9053 §2.1). */
export const COSE_ES256 = -7;
/** What the key proof of a DID-bound or JWK-bound credential may be signed with. */
export const HOLDER_PROOF_ALGORITHMS = ['ES256', 'EdDSA'] as const;

const isName = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200;

/**
 * The types a deprecated (draft 13) request names for a non-mDoc format: `credential_definition`'s
 * `type`/`types`, or `types`, `type` or `vct` at the top.
 */
export function namedTypes(body: Record<string, unknown>): string[] {
  const definition = isPlainObject(body.credential_definition) ? body.credential_definition : undefined;
  const candidates = [definition?.type, definition?.types, body.types, body.type, body.vct];
  return candidates.flatMap((c) => (Array.isArray(c) ? c.filter(isName) : isName(c) ? [c] : []));
}

/** Every format but mDocs may be valid up to the general limit. */
export const generalValidity = (): number => MAX_VALIDITY_DAYS;

/**
 * What the handlers of the DID-signed formats (cwt, cwt_vc, dc+sd-jwt, ldp_vc) share: the holder's
 * key proofs, the general validity limit, and the types a legacy request names.
 */
export const DID_SIGNED_HANDLER = {
  proofAlgorithms: HOLDER_PROOF_ALGORITHMS,
  maxValidityDays: generalValidity,
  legacyRequestTypes: namedTypes,
};

/** Checks the fields every DID-signed format has: the issuer profile (with `didRequired`, it must pin a DID) and `revocable`. */
export function checkSignedFields(body: Record<string, unknown>, didRequired: boolean, problems: Problems): void {
  checkIssuerProfile(body.issuer, didRequired, problems);
  checkBoolean('revocable', body.revocable, problems);
}

/** The mapped claims and the issuer profile of a DID-signed format's configuration body, once checkSignedFields passed it. */
export function signedConfigurationOf<C extends { claimMappings: FlatClaimMappings; issuer?: IssuerProfile }>(
  body: Record<string, unknown>,
): Pick<C, 'claimMappings' | 'issuer'> {
  return { claimMappings: body.claimMappings, issuer: body.issuer } as Pick<C, 'claimMappings' | 'issuer'>;
}

/** What a DID-signed credential states of its subject, the claims its configuration maps, and its validity from the issuance time. */
export function claimsAndValidity(
  request: Pick<FormatIssueRequest, 'subject' | 'now'> & { configuration: { claimMappings: FlatClaimMappings; expiresIn: Duration } },
) {
  const { configuration, now } = request;
  return { claims: resolveFlatClaims(configuration.claimMappings, request.subject), ...validityOf(now, configuration.expiresIn, now) };
}

/**
 * The key a credential is bound to: none for a configuration with `holderBinding: false` (even when
 * the caller passes one), else the holder key, which a bound credential cannot go without (400).
 */
export function bindingKeyOf(request: Pick<FormatIssueRequest, 'holderKey'> & { configuration: { holderBinding?: false } }): PublicJwk | undefined {
  if (request.configuration.holderBinding === false) return undefined;
  if (!request.holderKey) {
    throw new DomainError('BadRequest', 'This credential is bound to a key of the holder: a key proof is required', {
      oauthError: 'invalid_proof',
      details: [{ msg: 'A key proof is required', param: 'proofs', location: 'body' }],
    });
  }
  return request.holderKey;
}

/** The key proofs a DID-signed format's metadata takes (OpenID4VCI 1.0 `proof_types_supported`): a JWT by the holder's key. */
export const holderProofTypes = () => ({ jwt: { proof_signing_alg_values_supported: [...HOLDER_PROOF_ALGORITHMS] } });

/** What issuing returns: the credential, its validity as it writes it, and its status entry when it has one. */
export function issuedCredential(
  credential: IssuedCredential['credential'],
  validity: { validFrom: Date; validUntil: Date },
  entry: ReferencedStatusAllocation | undefined,
): IssuedCredential {
  return {
    credential,
    validFrom: validity.validFrom.toISOString(),
    validUntil: validity.validUntil.toISOString(),
    ...(entry ? { statusEntry: { listId: entry.listId, idx: entry.idx } } : {}),
  };
}

/** The pinned issuer DID of a configuration, if it pins one. */
export const pinnedDid = (c: { issuer?: IssuerProfile }): string | undefined => c.issuer?.id;

/** A revocable configuration's credentials carry a status entry of `kind`. */
export const revocableStatus =
  (kind: StatusEntryKind) =>
  (c: { revocable?: boolean }): StatusEntryKind | undefined =>
    c.revocable === true ? kind : undefined;

/**
 * The 400 for issuing a configuration whose credentials must carry a status entry, which Vellum
 * cannot write yet (issue 15): it never issues a credential without the status it promises.
 */
export function statusUnavailable(kind: StatusEntryKind): DomainError {
  const field = kind === 'mdoc-status-list' ? 'includeStatus' : 'revocable';
  return new DomainError(
    'BadRequest',
    `Status lists are not available yet: this credential configuration sets ${field}, and Vellum does not issue a credential without the status entry it promises. Set ${field} to false to issue it without one.`,
    { details: [{ value: true, msg: 'Not available yet', param: field, location: 'body' }] },
  );
}

/**
 * The status list entry of a credential of a revocable configuration (none otherwise). Without
 * status lists wired (an embedding host that builds a handler alone), a revocable configuration is
 * refused rather than issued without the entry it promises.
 */
export async function referencedEntry(
  statusLists: Pick<StatusListService, 'allocateReferenced'> | undefined,
  revocable: boolean | undefined,
  form: ReferencedListForm,
  /** `did`: who signs the list, the credential's DID or (token lists) `{ kind: 'x509', caId }`, its issuer CA. */
  at: { tenant: Tenant; did: ReferencedListSigner; credentialIssuer: string },
): Promise<ReferencedStatusAllocation | undefined> {
  if (revocable !== true) return undefined;
  if (!statusLists) throw statusUnavailable(form === 'revocation-list' ? 'status-list-credential' : 'token-status-list');
  return statusLists.allocateReferenced(at.tenant, form, at.did, at.credentialIssuer);
}
