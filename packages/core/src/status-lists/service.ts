// mDoc status lists (docs/status-lists.md, docs/limits.md; docs/status-lists.md): per-docType settings, an entry for every
// mDoc whose configuration sets includeStatus, revocation and suspension by the issuer, and the
// public distribution and token endpoints verifiers read.

import { durationSeconds } from '../configurations/duration.ts';
import type { CredentialFormat, Duration } from '../configurations/model.ts';
import { isPlainObject, Problems } from '../shared/body-problems.ts';
import { checkExpiresIn, checkKnownFields } from '../configurations/rules.ts';
import type { EventRecorder } from '../events/recorder.ts';
import { CREDENTIAL_PROFILES } from '../issuance/model.ts';
import type { IssuingChains } from '../mdoc-pki/signers.ts';
import type { IssuerSigners, X509Signer } from '../issuer-pki/model.ts';
import { issuerOf } from '../metadata/service.ts';
import { currentDidKey } from '../dids/model.ts';
import type { Store } from '../ports.ts';
import type { Clock, DomainEventSink, Ids } from '../shared/ports.ts';
import { bytesToBase64Url, base64UrlToBytes } from '../shared/encoding.ts';
import { conflict, DomainError, invalidField, isDomainError, notFound } from '../shared/errors.ts';
import { adminOperations, conflictAs, requireFound } from '../shared/admin-resource.ts';
import type { RequestContext, Tenant } from '../tenancy/model.ts';
import { packStatuses } from './bits.ts';
import {
  type CredentialStatus,
  CREDENTIAL_STATUSES,
  STATUS_BITS,
  STATUS_LIST_FORMATS,
  STATUS_LIST_SIZE,
  type StatusListConfiguration,
  type StatusListFormat,
  type StatusListKind,
  type ReferencedListForm,
  type ReferencedListSigner,
  type StatusEntry,
  type StoredStatusToken,
  type TokenListForm,
  X509_LIST_SIGNER_PREFIX,
  type StatusListRecord,
} from './model.ts';
import type { RevocationListSigner, StatusListTokenSigner, TokenStatusListSigner } from './ports.ts';
import { shuffledIndex, shuffleKeyWords } from './shuffle.ts';

/** Where the public status list endpoints are, under a tenant's origin (docs/status-lists.md). */
export const STATUS_LIST_PATHS = {
  distribution: '/v2/credentials/mobile/status-lists/distribution',
  token: (listId: string) => `/v2/credentials/mobile/status-lists/${listId}/token`,
} as const;

/** Where each referenced list is served, publicly: a Vellum decision (docs/status-lists.md). */
export const REFERENCED_LIST_PATHS: Readonly<Record<ReferencedListForm, (listId: string) => string>> = {
  'token-jwt': (listId) => `/v2/credentials/sd-jwt/status-lists/${listId}`,
  'token-cwt': (listId) => `/v2/credentials/compact/status-lists/${listId}`,
  'revocation-list': (listId) => `/v2/credentials/web-semantic/revocation-lists/${listId}`,
};

/** What each referenced list is served as. */
export const REFERENCED_LIST_MEDIA_TYPES: Readonly<Record<ReferencedListForm, string>> = {
  'token-jwt': 'application/statuslist+jwt',
  'token-cwt': 'application/statuslist+cwt',
  'revocation-list': 'application/json',
};

/** The formats whose credentials are revoked through `/v2/credentials/{profile}/{id}/revocation-status` (docs/status-lists.md). */
export type RevocationProfile = Exclude<(typeof CREDENTIAL_PROFILES)[CredentialFormat], 'mobile'>;
export const REVOCATION_PROFILES: Readonly<Record<RevocationProfile, Exclude<CredentialFormat, 'mso_mdoc'>>> = Object.fromEntries(
  Object.entries(CREDENTIAL_PROFILES)
    .filter(([format]) => format !== 'mso_mdoc')
    .map(([format, profile]) => [profile, format]),
) as Record<RevocationProfile, Exclude<CredentialFormat, 'mso_mdoc'>>;

/**
 * What a docType without its own configuration gets: draft 14, tokens valid a day and cacheable for
 * an hour, so a revocation reaches a verifier that follows `ttl` within the hour.
 */
export const DEFAULT_STATUS_LIST_SETTINGS: Readonly<Pick<StatusListConfiguration, 'format' | 'timeToLiveDuration' | 'expiryDuration'>> = Object.freeze({
  format: 'draft-14',
  timeToLiveDuration: { hours: 1 },
  expiryDuration: { days: 1 },
});

/** A token's `typ` and media type by list format (docs/status-lists.md). */
export const STATUS_LIST_MEDIA_TYPES: Readonly<Record<StatusListFormat, string>> = {
  'draft-14': 'application/statuslist+cwt',
  legacy: 'application/mattr-statuslist+cwt',
};

/** The status entry an mDoc carries, allocated before it is signed. */
export interface MdocStatusAllocation {
  /** The MSO field: `status` (draft 14) or `_status` (legacy). */
  field: 'status' | '_status';
  listId: string;
  idx: number;
  /** The token URI verifiers fetch. */
  uri: string;
}

export interface StatusListConfigurationInput {
  docType?: unknown;
  timeToLiveDuration?: unknown;
  expiryDuration?: unknown;
  format?: unknown;
}

export type StatusListConfigurationView = Omit<StatusListConfiguration, 'tenantId'>;

export interface StatusListService {
  createConfiguration(ctx: RequestContext, input: StatusListConfigurationInput): Promise<StatusListConfigurationView>;
  listConfigurations(ctx: RequestContext): Promise<{ data: StatusListConfigurationView[] }>;
  getConfiguration(ctx: RequestContext, id: string): Promise<StatusListConfigurationView>;
  updateConfiguration(ctx: RequestContext, id: string, input: StatusListConfigurationInput): Promise<StatusListConfigurationView>;
  deleteConfiguration(ctx: RequestContext, id: string): Promise<void>;
  /** `GET /v2/credentials/mobile/{credentialId}/status`. */
  getStatus(ctx: RequestContext, credentialId: string): Promise<{ status: CredentialStatus }>;
  /** `POST /v2/credentials/mobile/{credentialId}/status`: revoke (invalid, final), suspend (legacy lists only) or reinstate. */
  setStatus(ctx: RequestContext, credentialId: string, input: unknown): Promise<{ status: CredentialStatus }>;
  /** Public: the token URIs of the tenant's lists, draft 14 as strings, legacy (`format=legacy`) as `{ uri }`. */
  distribution(ctx: RequestContext, query: { format?: string | undefined }, basePath?: string): Promise<string[] | Array<{ uri: string }>>;
  /** Public: the signed token of a list, re-signed only when the list changed or its token nears expiry. */
  token(ctx: RequestContext, listId: string, basePath?: string): Promise<{ mediaType: string; body: Uint8Array; maxAgeSeconds: number }>;
  /** Issuance: an entry for one more mDoc of `docType` (the caller records it with the credential). */
  allocate(tenant: Tenant, docType: string, origin: string): Promise<MdocStatusAllocation>;
  /**
   * Issuance: an entry for one more credential of another format, in a list signed by `signer`: the
   * DID that signs the credential, or (Token Status List forms only) the issuer CA whose leaf signs it.
   */
  allocateReferenced(tenant: Tenant, form: ReferencedListForm, signer: ReferencedListSigner, origin: string): Promise<ReferencedStatusAllocation>;
  /**
   * Public: a referenced list (Token Status List JWT or CWT, or RevocationList2020 credential),
   * signed by the DID of its credentials, or with `x5c` by the current status list leaf of their issuer CA.
   */
  referencedList(
    ctx: RequestContext,
    form: ReferencedListForm,
    listId: string,
    basePath?: string,
  ): Promise<{ mediaType: string; body: Uint8Array; maxAgeSeconds: number }>;
  /** `GET /v2/credentials/{profile}/{id}/revocation-status`. */
  getRevocation(ctx: RequestContext, profile: RevocationProfile, credentialId: string): Promise<{ isRevoked: boolean }>;
  /** `POST /v2/credentials/{profile}/{id}/revocation-status` `{ isRevoked }`: revokes, or lifts a revocation. */
  setRevocation(ctx: RequestContext, profile: RevocationProfile, credentialId: string, input: unknown): Promise<{ isRevoked: boolean }>;
}

/** The status entry of a credential of another format. */
export interface ReferencedStatusAllocation {
  listId: string;
  idx: number;
  /** Where the list is served. */
  uri: string;
}

export interface StatusListDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
  /** The document signer that signs the tokens, as it signs the tenant's mDocs. */
  chains: IssuingChains;
  tokens: StatusListTokenSigner;
  /** Signs the Token Status List tokens of dc+sd-jwt (JWT), cwt and cwt_vc (CWT). */
  tokenStatusLists: TokenStatusListSigner;
  /** Signs the RevocationList2020 credentials of ldp_vc. */
  revocationLists: RevocationListSigner;
  /**
   * The status list leaves under the tenants' issuer CAs, for the lists of credentials signed with
   * x5c (docs/status-lists.md "Status list tokens signed with X.509 (issue 29)"); without them such
   * lists are neither opened nor served.
   */
  issuerSigners?: Pick<IssuerSigners, 'current' | 'published'>;
  /** Takes the `CredentialStatusUpdated` event inside the transaction that changes the status (the webhook outbox). */
  domainEvents: DomainEventSink;
  /** How many entries a list holds (default STATUS_LIST_SIZE; tests make small lists to fill them). */
  listSize?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOC_TYPE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
/** The longest a token may be valid or cached: a year. */
const MAX_TOKEN_DAYS = 366;

const kindOf = (format: StatusListFormat, docType: string): StatusListKind => `mdoc:${format}:${docType}`;
const formatOfKind = (kind: string): StatusListFormat => (kind.startsWith('mdoc:legacy:') ? 'legacy' : 'draft-14');
const docTypeOfKind = (kind: string): string => kind.slice(kind.indexOf(':', 5) + 1);

function checkId(param: string, id: string, what: string): string {
  if (!UUID.test(id)) throw invalidField(param, `A ${what} id (UUID)`, id, 'params');
  return id.toLowerCase();
}

const missingConfiguration = () => notFound('The tenant has no such status list configuration');

/** Checks a configuration body (docs/status-lists.md), reporting every problem in one 400. */
function checkConfiguration(input: unknown): { docType: string; timeToLiveDuration: Duration; expiryDuration: Duration; format: StatusListFormat } {
  const problems = new Problems();
  if (!isPlainObject(input)) {
    problems.add('body', 'A status list configuration object', input);
    problems.throwIfAny();
  }
  const body = input as Record<string, unknown>;
  checkKnownFields('', body, ['docType', 'timeToLiveDuration', 'expiryDuration', 'format'], problems);
  if (typeof body.docType !== 'string' || !DOC_TYPE.test(body.docType)) problems.add('docType', 'A docType such as org.iso.18013.5.1.mDL', body.docType);
  if (body.format !== undefined && !(STATUS_LIST_FORMATS as readonly unknown[]).includes(body.format))
    problems.add('format', `One of ${STATUS_LIST_FORMATS.join(', ')}`, body.format);
  for (const field of ['timeToLiveDuration', 'expiryDuration'] as const) {
    const problemsBefore = problems.details.length;
    checkExpiresIn(body[field] as Duration | undefined, MAX_TOKEN_DAYS, problems);
    for (const detail of problems.details.slice(problemsBefore)) detail.param = detail.param.replace(/^expiresIn/, field);
  }
  const ttl = (body.timeToLiveDuration as Duration | undefined) ?? DEFAULT_STATUS_LIST_SETTINGS.timeToLiveDuration;
  const expiry = (body.expiryDuration as Duration | undefined) ?? DEFAULT_STATUS_LIST_SETTINGS.expiryDuration;
  if (problems.details.length === 0 && durationSeconds(ttl) > durationSeconds(expiry)) {
    problems.add('timeToLiveDuration', 'No longer than expiryDuration: a verifier must not keep a token past its expiry', body.timeToLiveDuration);
  }
  problems.throwIfAny();
  return {
    docType: body.docType as string,
    timeToLiveDuration: ttl,
    expiryDuration: expiry,
    format: (body.format as StatusListFormat | undefined) ?? DEFAULT_STATUS_LIST_SETTINGS.format,
  };
}

/** A status change's body, `{ <field> }` and nothing else; the caller adds the field's own problems and throws them all. */
function statusChangeBody(input: unknown, field: string): { body: Record<string, unknown>; problems: Problems } {
  if (!isPlainObject(input)) throw invalidField('body', `A { ${field} } object`, input);
  const problems = new Problems();
  checkKnownFields('', input, [field], problems);
  return { body: input, problems };
}

const view = ({ tenantId: _tenantId, ...rest }: StatusListConfiguration): StatusListConfigurationView => rest;

/** The status list use cases over the store, the document signers and the token signer. */
export function createStatusListService(deps: StatusListDeps): StatusListService {
  const { store, clock, ids, events, chains, tokens, tokenStatusLists, revocationLists, domainEvents, issuerSigners } = deps;
  const listSize = deps.listSize ?? STATUS_LIST_SIZE;
  const configurations = adminOperations(events, 'iacas:manage');
  const credentials = adminOperations(events, 'credentials');

  async function settingsFor(tenantId: string, docType: string) {
    return (await store.statusListConfigurations.findByDocType(tenantId, docType)) ?? DEFAULT_STATUS_LIST_SETTINGS;
  }

  const findConfiguration = async (ctx: RequestContext, id: string) =>
    requireFound(store.statusListConfigurations.get(ctx.tenant.id, checkId('id', id, 'status list configuration')), missingConfiguration);

  /** The entry of a credential of `format`: another format's credential is as good as absent at this format's path. */
  async function entryOf(ctx: RequestContext, format: CredentialFormat, credentialId: string): Promise<StatusEntry> {
    const id = checkId('credentialId', credentialId, 'credential');
    const record = await store.issuedCredentials.get(ctx.tenant.id, id);
    const entry = record?.format === format ? await store.statusLists.entryOf(ctx.tenant.id, id) : undefined;
    if (!entry)
      throw notFound(format === 'mso_mdoc' ? 'The tenant has no such mDoc with a status list entry' : `The tenant has no such revocable ${format} credential`);
    return entry;
  }

  /** An entry of a list of `kind`: the next position of the newest list with room, shuffled; a new list when none has room. */
  async function take(tenant: Tenant, kind: StatusListKind): Promise<{ listId: string; idx: number }> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const taken = await store.statusLists.takePosition(tenant.id, kind);
      if (taken) {
        const key = base64UrlToBytes(taken.list.shuffleKey);
        if (!key) throw new Error(`Status list ${taken.list.id} has a malformed shuffle key`);
        return { listId: taken.list.id, idx: shuffledIndex(taken.position, taken.list.size, shuffleKeyWords(key)) };
      }
      // No list of this kind with room: open the next generation. Of requests racing to open it
      // (in this process or another) one wins; the others' insert conflicts and they take from it.
      const existing = await store.statusLists.list(tenant.id, kind);
      // Opened meanwhile by another request: take from it rather than open one more.
      if (existing.some((l) => l.taken < l.size)) continue;
      const list: StatusListRecord = {
        id: ids.uuid(),
        tenantId: tenant.id,
        kind,
        size: listSize,
        generation: existing.length,
        taken: 0,
        shuffleKey: bytesToBase64Url(ids.bytes(16)),
        revision: 0,
        createdAt: clock.now().toISOString(),
      };
      try {
        await store.statusLists.insert(list);
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'Conflict') throw error;
      }
    }
    throw new DomainError('ServiceUnavailable', 'No status list entry could be taken: try again');
  }

  /**
   * Moves an entry to `status`, with its issued-credential record and a `CredentialStatusUpdated`
   * event, in one transaction; a change made meanwhile by someone else is a 409.
   */
  async function change(ctx: RequestContext, entry: StatusEntry, status: CredentialStatus): Promise<void> {
    const at = clock.now().toISOString();
    const record = await store.issuedCredentials.get(ctx.tenant.id, entry.credentialId);
    const changed = await store.transaction(async (tx) => {
      if (!(await tx.statusLists.setStatus(ctx.tenant.id, entry.credentialId, entry.status, status, at))) return false;
      await tx.issuedCredentials.setStatus(ctx.tenant.id, entry.credentialId, status);
      await domainEvents.publish(tx, {
        id: ids.uuid(),
        tenantId: ctx.tenant.id,
        type: 'CredentialStatusUpdated',
        occurredAt: at,
        payload: {
          credentialId: entry.credentialId,
          credentialConfigurationId: record?.credentialConfigurationId ?? '',
          format: record?.format ?? '',
          userId: record?.userId ?? '',
          status,
          previousStatus: entry.status,
        },
      });
      return true;
    });
    if (!changed) throw conflict('The credential’s status changed meanwhile: read it again', []);
  }

  /** The DID key a referenced list of `form` is signed with: the key of its DID that signs its credentials. */
  async function listSigner(tenantId: string, form: ReferencedListForm, did: string) {
    const algorithm = form === 'revocation-list' ? 'Ed25519' : 'P-256';
    const record = await store.dids.get(tenantId, did);
    const key = record && currentDidKey(record, algorithm);
    if (!key) throw notFound('The DID that signs this list is gone, so the list can no longer be served');
    return key;
  }

  /**
   * The leaf that signs a list of issuer CA `caId` for `issuer` now: the tenant's current status list
   * leaf (made or rotated under a managed CA to last `lifetimeMs`) when it is under that CA; else,
   * when another CA has been activated since, a valid leaf still under `caId`. An expired or revoked
   * leaf is never one of them (IssuerSigners), and none at all is a 503: the list cannot be signed.
   */
  async function x509ListLeaf(tenant: Tenant, caId: string, issuer: string, now: Date, lifetimeMs: number): Promise<X509Signer> {
    const unavailable = (why: string) => new DomainError('ServiceUnavailable', `This status list cannot be signed now: ${why}`);
    if (!issuerSigners) throw unavailable('this host signs no status lists with X.509 certificates');
    try {
      const current = await issuerSigners.current(tenant, 'status-list', issuer, now, lifetimeMs);
      if (current.caId === caId) return current;
    } catch (error) {
      // No active issuer CA, or an imported one without a status list leaf: an earlier CA may still sign.
      if (!isDomainError(error) || error.code !== 'BadRequest') throw error;
    }
    const earlier = (await issuerSigners.published(tenant, 'status-list', issuer, now)).find((leaf) => leaf.caId === caId);
    if (!earlier) throw unavailable('the issuer CA that signs it has no valid status list signer certificate for this issuer');
    return earlier;
  }

  /** A list served publicly, of a kind starting with `kindPrefix`; any other id is as good as absent. */
  async function publicList(ctx: RequestContext, listId: string, kindPrefix: string): Promise<StatusListRecord> {
    const list = UUID.test(listId) ? await store.statusLists.get(ctx.tenant.id, listId.toLowerCase()) : undefined;
    if (!list || !list.kind.startsWith(kindPrefix)) throw notFound('The tenant has no such status list');
    return list;
  }

  /** The list's statuses, `bits` per entry, as its non-valid entries say. */
  async function statusesOf(list: StatusListRecord, bits: 1 | 2): Promise<Uint8Array> {
    return packStatuses(list.size, bits, await store.statusLists.nonValidEntries(list.tenantId, list.id));
  }

  /**
   * The list's signed form as kept in the store while it shows the list as it is (and, when it
   * `expires`, outlives any verifier's cached copy of it by its ttl, and `keep` accepts it);
   * otherwise signed anew and kept. A token never outlives `notAfter` (its signer's certificate),
   * nor its ttl its expiry. `maxAgeSeconds` is what HTTP caches may keep it for: its ttl, and never
   * past its `exp`.
   */
  async function keptOrSigned(
    ctx: RequestContext,
    list: StatusListRecord,
    settings: Pick<StatusListConfiguration, 'timeToLiveDuration' | 'expiryDuration'>,
    expires: boolean,
    sign: (at: { now: Date; issuedAt: Date; expiresAt: Date; ttlSeconds: number }) => Promise<Uint8Array>,
    bounds: { keep?: (kept: StoredStatusToken) => boolean; notAfter?: Date } = {},
  ): Promise<{ body: Uint8Array; maxAgeSeconds: number }> {
    const configuredTtl = durationSeconds(settings.timeToLiveDuration);
    const now = clock.now();
    const maxAge = (expiresAt: number) => (expires ? Math.max(0, Math.min(configuredTtl, Math.floor((expiresAt - now.getTime()) / 1000))) : configuredTtl);
    const kept = await store.statusLists.getToken(ctx.tenant.id, list.id);
    if (
      kept &&
      kept.revision === list.revision &&
      (!expires || Date.parse(kept.expiresAt) - now.getTime() > configuredTtl * 1000) &&
      (bounds.keep === undefined || bounds.keep(kept))
    )
      return { body: kept.token, maxAgeSeconds: maxAge(Date.parse(kept.expiresAt)) };
    const issuedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
    let expiresAt = new Date(issuedAt.getTime() + durationSeconds(settings.expiryDuration) * 1000);
    if (bounds.notAfter !== undefined && bounds.notAfter < expiresAt) expiresAt = new Date(Math.floor(bounds.notAfter.getTime() / 1000) * 1000);
    if (expires && expiresAt <= issuedAt) throw new DomainError('ServiceUnavailable', 'This status list cannot be signed now: its signer certificate ends');
    // A verifier may cache a token for its ttl but never use it past its exp (IETF Token Status List §5.1, §13.7).
    const ttlSeconds = expires ? Math.min(configuredTtl, (expiresAt.getTime() - issuedAt.getTime()) / 1000) : configuredTtl;
    const body = await sign({ now, issuedAt, expiresAt, ttlSeconds });
    await store.statusLists.putToken({
      tenantId: ctx.tenant.id,
      listId: list.id,
      revision: list.revision,
      token: body,
      issuedAt: issuedAt.toISOString(),
      expiresAt: expiresAt.toISOString(),
    });
    return { body, maxAgeSeconds: maxAge(expiresAt.getTime()) };
  }

  /**
   * A Token Status List of credentials signed under issuer CA `caId` (docs/status-lists.md "Status
   * list tokens signed with X.509 (issue 29)"): signed with `x5c` (JWT) or `x5chain` (CWT) by the
   * CA's current status list leaf, whose SAN names the credential issuer, `iss`. A kept token is
   * served again only while the leaf that signed it is still the one that signs now.
   */
  async function x509TokenList(ctx: RequestContext, form: TokenListForm, list: StatusListRecord, caId: string, basePath: string | undefined) {
    const settings = DEFAULT_STATUS_LIST_SETTINGS;
    const issuer = issuerOf(ctx, basePath);
    const uri = `${issuer}${REFERENCED_LIST_PATHS[form](list.id)}`;
    const leaf = await x509ListLeaf(ctx.tenant, caId, issuer, clock.now(), durationSeconds(settings.expiryDuration) * 1000);
    const { body, maxAgeSeconds } = await keptOrSigned(
      ctx,
      list,
      settings,
      true,
      async ({ issuedAt, expiresAt, ttlSeconds }) => {
        const signed = await tokenStatusLists.sign({
          tenantId: leaf.key.tenantId,
          form: form === 'token-jwt' ? 'jwt' : 'cwt',
          keyId: leaf.key.keyId,
          x5c: { x5c: leaf.x5c, x5chain: leaf.x5chain },
          issuer,
          uri,
          issuedAt,
          expiresAt,
          ttlSeconds,
          statuses: await statusesOf(list, 1),
        });
        return typeof signed === 'string' ? new TextEncoder().encode(signed) : signed;
      },
      // A token of another leaf (rotated away, revoked or expired since) is signed anew, not served again.
      { keep: (kept) => tokenStatusLists.leafOf(form === 'token-jwt' ? 'jwt' : 'cwt', kept.token) === leaf.x5c[0], notAfter: leaf.notAfter },
    );
    return { mediaType: REFERENCED_LIST_MEDIA_TYPES[form], body, maxAgeSeconds };
  }

  const docTypeTaken = (docType: string) =>
    conflict('The tenant already has a status list configuration for this docType', [
      { value: docType, msg: 'Already configured', param: 'docType', location: 'body' },
    ]);

  return {
    createConfiguration(ctx, input) {
      return configurations.run(ctx, 'MOBILE_STATUS_LIST_CONFIGURATION_CREATE', { input }, async () => {
        const now = clock.now().toISOString();
        const configuration: StatusListConfiguration = {
          id: ids.uuid(),
          tenantId: ctx.tenant.id,
          ...checkConfiguration(input),
          createdAt: now,
          updatedAt: now,
        };
        await conflictAs(store.statusListConfigurations.insert(configuration), () => docTypeTaken(configuration.docType));
        return view(configuration);
      });
    },

    listConfigurations(ctx) {
      return configurations.run(ctx, 'MOBILE_STATUS_LIST_CONFIGURATION_LIST', {}, async () => ({
        data: (await store.statusListConfigurations.list(ctx.tenant.id)).map(view),
      }));
    },

    getConfiguration(ctx, id) {
      return configurations.run(ctx, 'MOBILE_STATUS_LIST_CONFIGURATION_RETRIEVE', {}, async () => view(await findConfiguration(ctx, id)));
    },

    updateConfiguration(ctx, id, input) {
      return configurations.run(ctx, 'MOBILE_STATUS_LIST_CONFIGURATION_UPDATE', { input }, async () => {
        const existing = await findConfiguration(ctx, id);
        const configuration: StatusListConfiguration = { ...existing, ...checkConfiguration(input), updatedAt: clock.now().toISOString() };
        if (!(await conflictAs(store.statusListConfigurations.update(configuration), () => docTypeTaken(configuration.docType)))) throw missingConfiguration();
        return view(configuration);
      });
    },

    deleteConfiguration(ctx, id) {
      return configurations.run(ctx, 'MOBILE_STATUS_LIST_CONFIGURATION_DELETE', {}, async () => {
        const existing = await findConfiguration(ctx, id);
        if (!(await store.statusListConfigurations.delete(ctx.tenant.id, existing.id))) throw missingConfiguration();
      });
    },

    getStatus(ctx, credentialId) {
      return credentials.run(ctx, 'MOBILE_CREDENTIAL_STATUS_RETRIEVE', {}, async () => ({ status: (await entryOf(ctx, 'mso_mdoc', credentialId)).status }));
    },

    setStatus(ctx, credentialId, input) {
      return credentials.run(ctx, 'MOBILE_CREDENTIAL_STATUS_UPDATE', { input, meta: (r) => ({ credentialId, status: r.status }) }, async () => {
        const { body, problems } = statusChangeBody(input, 'status');
        problems.throwIfAny();
        const to = body.status;
        if (typeof to !== 'string' || !(CREDENTIAL_STATUSES as readonly string[]).includes(to))
          throw invalidField('status', `One of ${CREDENTIAL_STATUSES.join(', ')}`, to);
        const status = to as CredentialStatus;
        const entry = await entryOf(ctx, 'mso_mdoc', credentialId);
        const list = await store.statusLists.get(ctx.tenant.id, entry.listId);
        if (status === 'suspended' && (!list || formatOfKind(list.kind) !== 'legacy')) {
          throw invalidField('status', 'Suspension exists in legacy status lists only (draft 14 lists have valid and invalid)', to);
        }
        if (entry.status === status) return { status };
        if (entry.status === 'invalid')
          throw conflict('The credential is revoked (invalid), which is final', [{ value: to, msg: 'Revocation is final', param: 'status', location: 'body' }]);
        await change(ctx, entry, status);
        return { status };
      });
    },

    async distribution(ctx, query, basePath) {
      const format = query.format ?? 'draft-14';
      if (!(STATUS_LIST_FORMATS as readonly string[]).includes(format))
        throw invalidField('format', `One of ${STATUS_LIST_FORMATS.join(', ')}`, format, 'query');
      const lists = await store.statusLists.list(ctx.tenant.id);
      const uris = lists.filter((l) => l.kind.startsWith(`mdoc:${format}:`)).map((l) => `${issuerOf(ctx, basePath)}${STATUS_LIST_PATHS.token(l.id)}`);
      return format === 'legacy' ? uris.map((uri) => ({ uri })) : uris;
    },

    async token(ctx, listId, basePath) {
      const list = await publicList(ctx, listId, 'mdoc:');
      const format = formatOfKind(list.kind);
      const settings = await settingsFor(ctx.tenant.id, docTypeOfKind(list.kind));
      const { body, maxAgeSeconds } = await keptOrSigned(ctx, list, settings, true, async ({ now, issuedAt, expiresAt, ttlSeconds }) => {
        const chain = await chains.current(ctx.tenant, now, expiresAt.getTime() - now.getTime());
        return tokens.sign({
          tenantId: ctx.tenant.id,
          format,
          uri: `${issuerOf(ctx, basePath)}${STATUS_LIST_PATHS.token(list.id)}`,
          issuedAt,
          expiresAt,
          ttlSeconds,
          bits: STATUS_BITS[format],
          statuses: await statusesOf(list, STATUS_BITS[format]),
          signer: { keyId: chain.signer.keyId, x5chain: chain.x5chain },
        });
      });
      return { mediaType: STATUS_LIST_MEDIA_TYPES[format], body, maxAgeSeconds };
    },

    async allocate(tenant, docType, origin) {
      const { format } = await settingsFor(tenant.id, docType);
      const { listId, idx } = await take(tenant, kindOf(format, docType));
      return { field: format === 'legacy' ? '_status' : 'status', listId, idx, uri: `${origin}${STATUS_LIST_PATHS.token(listId)}` };
    },

    async allocateReferenced(tenant, form, signer, origin) {
      if (typeof signer !== 'string') {
        if (form === 'revocation-list')
          throw new DomainError('InternalServerError', 'A RevocationList2020 credential is signed by a DID, never under an issuer CA');
        if (!issuerSigners) throw new DomainError('BadRequest', 'This host signs no status lists with X.509 certificates (no issuer signers are configured)');
      }
      const { listId, idx } = await take(tenant, `${form}:${typeof signer === 'string' ? signer : `${X509_LIST_SIGNER_PREFIX}${signer.caId}`}`);
      return { listId, idx, uri: `${origin}${REFERENCED_LIST_PATHS[form](listId)}` };
    },

    async referencedList(ctx, form, listId, basePath) {
      const list = await publicList(ctx, listId, `${form}:`);
      const settings = DEFAULT_STATUS_LIST_SETTINGS;
      const did = list.kind.slice(form.length + 1);
      const uri = `${issuerOf(ctx, basePath)}${REFERENCED_LIST_PATHS[form](list.id)}`;
      if (form !== 'revocation-list' && did.startsWith(X509_LIST_SIGNER_PREFIX))
        return x509TokenList(ctx, form, list, did.slice(X509_LIST_SIGNER_PREFIX.length), basePath);
      // A RevocationList2020 credential has no expiry: it is signed anew only when the list changes.
      const { body, maxAgeSeconds } = await keptOrSigned(ctx, list, settings, form !== 'revocation-list', async ({ issuedAt, expiresAt, ttlSeconds }) => {
        const key = await listSigner(ctx.tenant.id, form, did);
        const statuses = await statusesOf(list, 1);
        if (form === 'revocation-list') {
          const credential = await revocationLists.sign({
            tenantId: ctx.tenant.id,
            keyId: key.kmsKeyId,
            verificationMethod: key.didDocumentKeyId,
            issuer: did,
            proofType: 'Ed25519Signature2018',
            url: uri,
            issuedAt,
            statuses,
            size: list.size,
          });
          return new TextEncoder().encode(JSON.stringify(credential));
        }
        const signed = await tokenStatusLists.sign({
          tenantId: ctx.tenant.id,
          form: form === 'token-jwt' ? 'jwt' : 'cwt',
          keyId: key.kmsKeyId,
          kid: key.didDocumentKeyId,
          issuer: did,
          uri,
          issuedAt,
          expiresAt,
          ttlSeconds,
          statuses,
        });
        return typeof signed === 'string' ? new TextEncoder().encode(signed) : signed;
      });
      return { mediaType: REFERENCED_LIST_MEDIA_TYPES[form], body, maxAgeSeconds };
    },

    getRevocation(ctx, profile, credentialId) {
      return credentials.run(ctx, 'CREDENTIAL_REVOCATION_STATUS_RETRIEVE', {}, async () => ({
        isRevoked: (await entryOf(ctx, REVOCATION_PROFILES[profile], credentialId)).status === 'invalid',
      }));
    },

    setRevocation(ctx, profile, credentialId, input) {
      return credentials.run(
        ctx,
        'CREDENTIAL_REVOCATION_STATUS_UPDATE',
        { input, meta: (r) => ({ credentialId, profile, isRevoked: r.isRevoked }) },
        async () => {
          const { body, problems } = statusChangeBody(input, 'isRevoked');
          if (typeof body.isRevoked !== 'boolean') problems.add('isRevoked', 'true or false', body.isRevoked);
          problems.throwIfAny();
          const entry = await entryOf(ctx, REVOCATION_PROFILES[profile], credentialId);
          const status: CredentialStatus = body.isRevoked ? 'invalid' : 'valid';
          // These lists have one bit: a revocation can be lifted (docs/status-lists.md `{ isRevoked }`), unlike an mDoc's.
          if (entry.status !== status) await change(ctx, entry, status);
          return { isRevoked: status === 'invalid' };
        },
      );
    },
  };
}
