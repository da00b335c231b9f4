import type { FlatClaimMappings, Duration, IssuerProfile, KeyResolution } from '../configurations/model.ts';
import { currentDidKey, type DidKey } from '../dids/model.ts';
import type { KeyAlgorithm } from '../keys/model.ts';
import type { Store } from '../ports.ts';
import { DomainError } from '../shared/errors.ts';
import type { ReferencedListForm } from '../status-lists/model.ts';
import type { ReferencedStatusAllocation, StatusListService } from '../status-lists/service.ts';
import type { FormatIssueRequest } from './port.ts';
import { claimsAndValidity, pinnedDid, referencedEntry } from './shared.ts';
import type { IssuerSigners, X509Signer } from '../issuer-pki/model.ts';
import type { Problems } from '../shared/body-problems.ts';

/** The DID and key a credential is signed with. */
export interface SigningDid {
  did: string;
  key: DidKey;
}

const noDid = (algorithm: KeyAlgorithm, pinned: string | undefined) =>
  new DomainError(
    'BadRequest',
    pinned === undefined
      ? `The tenant has no DID with a ${algorithm} key to sign this credential: create one with POST /v1/dids${algorithm === 'P-256' ? ' ({ "method": "key", "options": { "keyType": "P-256" } })' : ''}`
      : `The configuration's issuer DID ${pinned} is gone or holds no ${algorithm} key: create it again, or change issuer.id`,
    { details: [{ ...(pinned === undefined ? {} : { value: pinned }), msg: `No DID with a ${algorithm} key`, param: 'issuer.id', location: 'body' }] },
  );

const PAGE = 500;

/**
 * The key a credential is signed with (docs/decisions.md "Credential configurations"): the `algorithm` key of the DID the configuration
 * pins, or else of the tenant's most recently created DID that has one. None is a 400 saying what
 * to create.
 */
export async function signingDidOf(store: Pick<Store, 'dids'>, tenantId: string, pinned: string | undefined, algorithm: KeyAlgorithm): Promise<SigningDid> {
  const keyOf = (record: { did: string; keys: DidKey[] } | undefined) => {
    const key = record && currentDidKey(record, algorithm);
    return record && key ? { did: record.did, key } : undefined;
  };
  if (pinned !== undefined) {
    const found = keyOf(await store.dids.get(tenantId, pinned));
    if (!found) throw noDid(algorithm, pinned);
    return found;
  }
  // DIDs come in creation order; the newest suitable one is the last such of all pages.
  let newest: SigningDid | undefined;
  let after: number | undefined;
  for (;;) {
    const slice = await store.dids.list(tenantId, after === undefined ? { limit: PAGE } : { limit: PAGE, after });
    for (const record of slice.items) newest = keyOf(record) ?? newest;
    if (slice.items.length < PAGE || slice.last === undefined) break;
    after = slice.last;
  }
  if (!newest) throw noDid(algorithm, undefined);
  return newest;
}

/** What a DID-signed format has in hand before it signs. */
export interface SigningPlan extends SigningDid {
  claims: Record<string, unknown>;
  validFrom: Date;
  validUntil: Date;
  /** The status entry, when the configuration is revocable. */
  entry: ReferencedStatusAllocation | undefined;
}

/**
 * The steps every DID-signed format (cwt, cwt_vc, dc+sd-jwt, ldp_vc) takes before it signs, in this
 * order: the claims and the validity from the issuance time; the DID and `algorithm` key that sign;
 * then, for a revocable configuration, an entry in a status list of `form` that this DID signs.
 */
export async function planSigning(
  request: Pick<FormatIssueRequest, 'tenant' | 'subject' | 'now' | 'credentialIssuer'> & {
    configuration: { claimMappings: FlatClaimMappings; expiresIn: Duration; issuer?: IssuerProfile; revocable?: boolean };
  },
  deps: { store: Pick<Store, 'dids'>; statusLists?: Pick<StatusListService, 'allocateReferenced'> },
  algorithm: KeyAlgorithm,
  form: ReferencedListForm,
): Promise<SigningPlan> {
  const { tenant, configuration } = request;
  const { claims, validFrom, validUntil } = claimsAndValidity(request);
  const { did, key } = await signingDidOf(deps.store, tenant.id, pinnedDid(configuration), algorithm);
  const entry = await referencedEntry(deps.statusLists, configuration.revocable, form, { tenant, did, credentialIssuer: request.credentialIssuer });
  return { claims, validFrom, validUntil, did, key, entry };
}

/** What an X.509-signed credential (keyResolution x5c) has in hand before it signs. */
export interface X509SigningPlan {
  claims: Record<string, unknown>;
  validFrom: Date;
  validUntil: Date;
  /** The leaf under the tenant's issuer CA that signs, named for the credential issuer. */
  signer: X509Signer;
  entry: ReferencedStatusAllocation | undefined;
}

/**
 * The steps of a format signing with `keyResolution: "x5c"` (docs/decisions.md "Issuer
 * certificates"): the claims and validity; the credential leaf for the credential issuer the
 * wallet used, lasting the credential's life where the CA allows; and, for a revocable
 * configuration, an entry in a list of `form` signed under the same issuer CA, so the verifier's
 * one trust anchor covers both (docs/status-lists.md "Status list tokens signed with X.509 (issue 29)").
 */
export async function planX509Signing(
  request: Pick<FormatIssueRequest, 'tenant' | 'subject' | 'now' | 'credentialIssuer'> & {
    configuration: { claimMappings: FlatClaimMappings; expiresIn: Duration; revocable?: boolean };
  },
  deps: { issuerSigners?: Pick<IssuerSigners, 'current'>; statusLists?: Pick<StatusListService, 'allocateReferenced'> },
  form: ReferencedListForm,
): Promise<X509SigningPlan> {
  const { tenant, configuration, credentialIssuer, now } = request;
  if (!deps.issuerSigners) throw new DomainError('BadRequest', 'This host signs no credentials with X.509 certificates (no issuer signers are configured)');
  const { claims, validFrom, validUntil } = claimsAndValidity(request);
  const signer = await deps.issuerSigners.current(tenant, 'credential', credentialIssuer, now, validUntil.getTime() - validFrom.getTime());
  const entry = await referencedEntry(deps.statusLists, configuration.revocable, form, { tenant, did: { kind: 'x509', caId: signer.caId }, credentialIssuer });
  return { claims, validFrom, validUntil, signer, entry };
}

/** Who signs a credential of a format that takes `keyResolution` (dc+sd-jwt, cwt, cwt_vc), and with what. */
export interface ResolvedSigning {
  /** The DID, or (x5c) the credential issuer identifier. */
  iss: string;
  /** The KeyManager key and the id a verifier knows it by: the DID URL, or the leaf's id in the JWT VC Issuer Metadata. */
  key: { tenantId: string; keyId: string; kid: string };
  /** With x5c: the leaf whose chain the format puts in its header (`x5c`, or COSE `x5chain`). */
  x509?: X509Signer;
  claims: Record<string, unknown>;
  validFrom: Date;
  validUntil: Date;
  entry: ReferencedStatusAllocation | undefined;
}

/**
 * planSigning or planX509Signing, as the configuration's `keyResolution` says (absent: `did`), in
 * one shape, so a format builds its payload and header once for both (docs/decisions.md "Issuer certificates").
 */
export async function planSigningBy(
  request: Pick<FormatIssueRequest, 'tenant' | 'subject' | 'now' | 'credentialIssuer'> & {
    configuration: { claimMappings: FlatClaimMappings; expiresIn: Duration; issuer?: IssuerProfile; revocable?: boolean; keyResolution?: KeyResolution };
  },
  deps: Parameters<typeof planSigning>[1] & Parameters<typeof planX509Signing>[1],
  form: 'token-jwt' | 'token-cwt',
): Promise<ResolvedSigning> {
  if (request.configuration.keyResolution === 'x5c') {
    const { signer, ...rest } = await planX509Signing(request, deps, form);
    return { ...rest, iss: request.credentialIssuer, key: { tenantId: signer.key.tenantId, keyId: signer.key.keyId, kid: signer.signerId }, x509: signer };
  }
  const { did, key, ...rest } = await planSigning(request, deps, 'P-256', form);
  return { ...rest, iss: did, key: { tenantId: request.tenant.id, keyId: key.kmsKeyId, kid: key.didDocumentKeyId } };
}

/** A body with `keyResolution: "x5c"` pins no DID: a leaf of the tenant's issuer CA signs. */
export function checkKeyResolution(body: Record<string, unknown>, problems: Problems): void {
  if (body.keyResolution !== 'x5c') return;
  const issuer = body.issuer;
  const pinned = issuer !== null && typeof issuer === 'object' && !Array.isArray(issuer) ? (issuer as { id?: unknown }).id : undefined;
  if (pinned !== undefined) problems.add('issuer.id', 'A DID to sign with has no place with keyResolution x5c: a leaf of the tenant’s issuer CA signs', pinned);
}
