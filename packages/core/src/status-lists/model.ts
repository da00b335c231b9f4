// Status lists (docs/status-lists.md, docs/limits.md; docs/status-lists.md; IETF Token Status List, draft 14): which
// credentials a tenant has revoked or suspended, published as signed lists of bits.

import type { Duration } from '../configurations/model.ts';
import type { TenantRecord } from '../shared/ports.ts';

/** The two mDoc status list formats (docs/status-lists.md): the IETF draft 14 one and MATTR's legacy one. */
export const STATUS_LIST_FORMATS = ['draft-14', 'legacy'] as const;
export type StatusListFormat = (typeof STATUS_LIST_FORMATS)[number];

/** What a credential's entry says. `suspended` exists in legacy lists only; `invalid` is final. */
export const CREDENTIAL_STATUSES = ['valid', 'invalid', 'suspended'] as const;
export type CredentialStatus = (typeof CREDENTIAL_STATUSES)[number];

/** docs/limits.md: at most this many credentials per status list. */
export const STATUS_LIST_SIZE = 500_000;

/** Bits per entry (docs/status-lists.md): draft 14 has Valid (0) and Invalid (1); legacy adds Suspended (2). */
export const STATUS_BITS: Readonly<Record<StatusListFormat, 1 | 2>> = { 'draft-14': 1, legacy: 2 };

/** The value an entry's bits hold (IETF Token Status List §7.1: 0 valid, 1 invalid, 2 suspended). */
export const STATUS_VALUE: Readonly<Record<CredentialStatus, number>> = { valid: 0, invalid: 1, suspended: 2 };

/**
 * The kind of list an entry is in: one sequence of lists per kind and tenant. mDocs are listed per
 * format and docType (`mdoc:draft-14:org.iso.18013.5.1.mDL`), as their settings are per docType
 * (docs/status-lists.md); later kinds carry the other formats' status.
 */
export type StatusListKind = `mdoc:${StatusListFormat}:${string}` | `${ReferencedListForm}:${string}`;

/**
 * The lists of the other formats, one sequence per signing DID (the list is signed by the key that
 * signs the credentials it lists): IETF Token Status List tokens as a JWT (dc+sd-jwt) or a CWT (cwt,
 * cwt_vc), and W3C CCG RevocationList2020 credentials (ldp_vc). One bit per entry, valid or invalid.
 */
export const REFERENCED_LIST_FORMS = ['token-jwt', 'token-cwt', 'revocation-list'] as const;
export type ReferencedListForm = (typeof REFERENCED_LIST_FORMS)[number];

/** The referenced lists that are Token Status List tokens, the forms a certificate can sign (JOSE x5c, COSE x5chain). */
export type TokenListForm = Exclude<ReferencedListForm, 'revocation-list'>;

/**
 * Who signs a referenced list (docs/status-lists.md "Status list tokens signed with X.509 (issue
 * 29)"): a DID (the string), the key that signs its credentials; or the tenant's issuer CA `caId`,
 * through whichever of its status list leaves is current when a token is made, so the list stays
 * verifiable from the same trust anchor across leaf rotation. Its kind is `<form>:x509:<caId>`
 * (no DID starts with `x509:`).
 */
export type ReferencedListSigner = string | { kind: 'x509'; caId: string };

/** The part of a referenced list's kind after its form that says it is signed under an issuer CA. */
export const X509_LIST_SIGNER_PREFIX = 'x509:';

/** How a tenant's mDocs of one docType are listed (docs/status-lists.md); without one, draft 14 with the defaults. */
export interface StatusListConfiguration extends TenantRecord {
  id: string;
  docType: string;
  /** How long a verifier may keep a token before fetching a new one (the token's `ttl`). */
  timeToLiveDuration: Duration;
  /** How long a token is valid after it is signed (its `exp`). */
  expiryDuration: Duration;
  format: StatusListFormat;
}

/** One status list of a tenant: up to `size` entries, handed out in a shuffled order. */
export interface StatusListRecord {
  id: string;
  tenantId: string;
  kind: StatusListKind;
  /** How many entries the list holds at most (STATUS_LIST_SIZE). */
  size: number;
  /**
   * Its place among the tenant's lists of its kind (0 for the first): of processes racing to open
   * the next list when one fills, only one can add generation n, and the others take from it.
   */
  generation: number;
  /** How many positions were taken; position p holds entry index `shuffle(p)`. */
  taken: number;
  /** The key of the list's index shuffle (base64url, 16 random bytes): indexes are not issuance order. */
  shuffleKey: string;
  /** Opaque; changes whenever an entry's status changes (a signed token of another revision is stale). */
  revision: number;
  createdAt: string;
}

/** A credential's entry in a status list. */
export interface StatusEntry {
  tenantId: string;
  listId: string;
  idx: number;
  /** The issued-credential record it belongs to. */
  credentialId: string;
  status: CredentialStatus;
  updatedAt: string;
}

/** A signed status list token kept for reuse until its list changes or it nears its expiry. */
export interface StoredStatusToken {
  tenantId: string;
  listId: string;
  /** The list revision it shows. */
  revision: number;
  /** The COSE_Sign1 bytes (CWT). */
  token: Uint8Array;
  issuedAt: string;
  expiresAt: string;
}

export interface StatusListConfigurationRepository {
  /** Throws DomainError `Conflict` when the tenant already has one for this docType. */
  insert(configuration: StatusListConfiguration): Promise<void>;
  get(tenantId: string, id: string): Promise<StatusListConfiguration | undefined>;
  findByDocType(tenantId: string, docType: string): Promise<StatusListConfiguration | undefined>;
  /** The tenant's configurations in creation order. */
  list(tenantId: string): Promise<StatusListConfiguration[]>;
  /** Returns false when there is none; `Conflict` when the docType is another's. */
  update(configuration: StatusListConfiguration): Promise<boolean>;
  delete(tenantId: string, id: string): Promise<boolean>;
}

export interface StatusListRepository {
  /**
   * Adds a list (taken 0, revision 0). Throws DomainError `Conflict` when the id exists, or when the
   * tenant already has a list of this kind and generation (a unique index is the rule).
   */
  insert(list: StatusListRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<StatusListRecord | undefined>;
  /** The tenant's lists of `kind` (of every kind when not given) in creation order. */
  list(tenantId: string, kind?: StatusListKind): Promise<StatusListRecord[]>;
  /**
   * Takes the next free position of the newest list of `kind` that is not full, in one atomic
   * step: of processes racing on one list, each gets a different position. Undefined when the
   * tenant has no list of that kind with room (the caller inserts one and asks again).
   */
  takePosition(tenantId: string, kind: StatusListKind): Promise<{ list: StatusListRecord; position: number } | undefined>;
  /** Records an entry. Throws `Conflict` when the list already has that index or the credential an entry. */
  insertEntry(entry: StatusEntry): Promise<void>;
  /** The entry of an issued credential. */
  entryOf(tenantId: string, credentialId: string): Promise<StatusEntry | undefined>;
  /**
   * Moves an entry from status `from` to `to` and changes its list's revision, together; false
   * (and nothing changed) when the credential has no entry or its status is no longer `from`.
   */
  setStatus(tenantId: string, credentialId: string, from: CredentialStatus, to: CredentialStatus, at: string): Promise<boolean>;
  /** The list's entries that are not valid, in index order: what its token's bits show. */
  nonValidEntries(tenantId: string, listId: string): Promise<Array<{ idx: number; status: CredentialStatus }>>;
  /** The kept token of a list, if any. */
  getToken(tenantId: string, listId: string): Promise<StoredStatusToken | undefined>;
  /** Keeps a token, replacing the list's previous one. */
  putToken(token: StoredStatusToken): Promise<void>;
}
