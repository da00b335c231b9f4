// What the formats other than mso_mdoc share: the issuer profile, the legacy request's types, and
// the metadata members of a DID-signed credential.

import type { CredentialConfiguration, IssuerProfile } from '../configurations/model.ts';
import { isPlainObject } from '../shared/body-problems.ts';
import { MAX_VALIDITY_DAYS } from '../configurations/rules.ts';
import { DomainError } from '../shared/errors.ts';
import type { ReferencedListForm } from '../status-lists/model.ts';
import type { ReferencedStatusAllocation, StatusListService } from '../status-lists/service.ts';
import type { Tenant } from '../tenancy/model.ts';
import type { StatusEntryKind } from './port.ts';

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
  at: { tenant: Tenant; did: string; credentialIssuer: string },
): Promise<ReferencedStatusAllocation | undefined> {
  if (revocable !== true) return undefined;
  if (!statusLists) throw statusUnavailable(form === 'revocation-list' ? 'status-list-credential' : 'token-status-list');
  return statusLists.allocateReferenced(at.tenant, form, at.did, at.credentialIssuer);
}
