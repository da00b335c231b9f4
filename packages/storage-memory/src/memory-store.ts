import {
  type AdminClient,
  type AnalyticEvent,
  conflict,
  notFound,
  type CredentialConfiguration,
  type CustomDomain,
  type DataKeyRecord,
  type DataKeyWrapping,
  type DidRecord,
  type DocumentSignerRecord,
  type IacaRecord,
  type IacaRevocation,
  type IssuedCredentialRecord,
  type EventFilter,
  type PlatformKeyRecord,
  type Repositories,
  type Store,
  type StoredKey,
  type Tenant,
} from '@vellum/core';
import { emptyOfferState, offerRepositories, type OfferState } from './offers.ts';
import { emptyWebhookState, webhookRepositories, type WebhookState } from './webhooks.ts';
import { type AuthenticationState, authenticationRepositories, emptyAuthenticationState } from './authentication.ts';
import { type AuthorizationState, authorizationRepositories, emptyAuthorizationState } from './authorizations.ts';
import { type RefreshTokenState, refreshTokenRepositories } from './refresh-tokens.ts';
import { createMemoryRateLimits } from './rate-limits.ts';
import { type DeferredIssuanceState, deferredIssuanceRepositories, emptyDeferredIssuanceState } from './deferred-issuances.ts';
import { emptyWalletClientState, walletClientRepositories, type WalletClientState } from './wallet-clients.ts';
import { emptyWalletProviderState, walletProviderRepositories, type WalletProviderState } from './wallet-providers.ts';
import { emptyTrustedIssuerState, trustedIssuerRepositories, type TrustedIssuerState } from './trusted-issuers.ts';
import { emptyVerifierApplicationState, verifierApplicationRepositories, type VerifierApplicationState } from './verifier-applications.ts';
import { emptyPresentationSessionState, presentationSessionRepositories, type PresentationSessionState } from './presentation-sessions.ts';
import { emptyStatusListState, statusListRepositories, type StatusListState } from './status-lists.ts';
import { copy, deleteOwned, insertRow, ownedRow, ownedValue, type Row, slice, tenantPage, tenantValues } from './rows.ts';

interface State {
  seq: number;
  tenants: Map<string, Row<Tenant>>;
  clients: Map<string, Row<AdminClient>>;
  domains: Map<string, CustomDomain>;
  events: Row<AnalyticEvent>[];
  platformKeys: Map<string, PlatformKeyRecord>;
  keys: Map<string, StoredKey>;
  /** The tenants' data keys, by tenant id: one per tenant. */
  dataKeys: Map<string, DataKeyRecord>;
  /** By `${tenantId} ${did}`. */
  /** `keysRevision` counts the DID's key rotations (its stamp's revision is `<seq>.<keysRevision>`). */
  dids: Map<string, Row<DidRecord> & { keysRevision?: number }>;
  /** By id. */
  iacas: Map<string, Row<IacaRecord>>;
  /** By IACA id, in the order recorded. */
  iacaRevocations: Map<string, IacaRevocation[]>;
  /** By id. */
  documentSigners: Map<string, Row<DocumentSignerRecord>>;
  /** By id; `revision` changes with every write. */
  credentialConfigurations: Map<string, Row<CredentialConfiguration> & { revision: number }>;
  /** Users, offers, nonces and tenant signing key records (./offers.ts). */
  offers: OfferState;
  /** Webhooks, their deliveries and signing keys (./webhooks.ts). */
  webhooks: WebhookState;
  /** By id. */
  issuedCredentials: Map<string, Row<IssuedCredentialRecord>>;
  /** Credential requests held for review (./deferred-issuances.ts). */
  deferredIssuances: DeferredIssuanceState;
  /** Wallet (OAuth) clients (./wallet-clients.ts). */
  walletClients: WalletClientState;
  walletProviders: WalletProviderState;
  trustedIssuers: TrustedIssuerState;
  verifierApplications: VerifierApplicationState;
  presentationSessions: PresentationSessionState;
  /** Authentication providers, OpenID settings and claim sources (./authentication.ts). */
  authentication: AuthenticationState;
  /** Runs of the Authorization Code flow (./authorizations.ts). */
  authorizations: AuthorizationState;
  /** Refresh tokens (./refresh-tokens.ts). */
  refreshTokens: RefreshTokenState;
  /** Status lists, their entries and tokens, and their configurations (./status-lists.ts). */
  statusLists: StatusListState;
  /** Leases by name (LeaseRepository). */
  leases: Map<string, { holder: string; until: string }>;
}

const emptyState = (): State => ({
  seq: 0,
  tenants: new Map(),
  clients: new Map(),
  domains: new Map(),
  events: [],
  platformKeys: new Map(),
  keys: new Map(),
  dataKeys: new Map(),
  dids: new Map(),
  iacas: new Map(),
  iacaRevocations: new Map(),
  documentSigners: new Map(),
  credentialConfigurations: new Map(),
  offers: emptyOfferState(),
  webhooks: emptyWebhookState(),
  issuedCredentials: new Map(),
  deferredIssuances: emptyDeferredIssuanceState(),
  walletClients: emptyWalletClientState(),
  walletProviders: emptyWalletProviderState(),
  trustedIssuers: emptyTrustedIssuerState(),
  verifierApplications: emptyVerifierApplicationState(),
  presentationSessions: emptyPresentationSessionState(),
  authentication: emptyAuthenticationState(),
  authorizations: emptyAuthorizationState(),
  refreshTokens: new Map(),
  statusLists: emptyStatusListState(),
  leases: new Map(),
});

function matches(e: AnalyticEvent, f: EventFilter): boolean {
  return (
    (!f.ids || f.ids.includes(e.id)) &&
    (!f.requestIds || f.requestIds.includes(e.requestId)) &&
    (!f.categories || f.categories.includes(e.category)) &&
    (!f.types || f.types.includes(e.type)) &&
    (!f.dateFrom || e.timestamp >= f.dateFrom) &&
    (!f.dateTo || e.timestamp <= f.dateTo)
  );
}

/** Another configuration of the same tenant and format with the same type (the SQL store's unique index). */
function typeHolder(s: State, c: CredentialConfiguration): CredentialConfiguration | undefined {
  for (const r of s.credentialConfigurations.values()) {
    const v = r.value;
    if (v.id !== c.id && v.tenantId === c.tenantId && v.format === c.format && v.type === c.type) return v;
  }
  return undefined;
}

function repositories(get: () => State): Repositories {
  const next = () => (get().seq += 1);
  const iacaOf = (tenantId: string, id: string) => ownedRow(get().iacas, tenantId, id);
  const signerOf = (tenantId: string, id: string) => ownedRow(get().documentSigners, tenantId, id);
  return {
    ...webhookRepositories(() => get().webhooks, next),
    ...offerRepositories(() => get().offers, next),
    ...walletClientRepositories(() => get().walletClients, next),
    ...walletProviderRepositories(() => get().walletProviders, next),
    ...trustedIssuerRepositories(() => get().trustedIssuers, next),
    ...verifierApplicationRepositories(() => get().verifierApplications, next),
    ...presentationSessionRepositories(() => get().presentationSessions, next),
    ...authenticationRepositories(() => get().authentication, next),
    ...authorizationRepositories(() => get().authorizations),
    ...refreshTokenRepositories(() => get().refreshTokens),
    ...statusListRepositories(() => get().statusLists, next),
    ...deferredIssuanceRepositories(() => get().deferredIssuances, next),
    iacas: {
      async insert(iaca, limit) {
        const s = get();
        if (s.iacas.has(iaca.id)) throw conflict('IACA id exists');
        const mine = [...s.iacas.values()].filter((r) => r.value.tenantId === iaca.tenantId);
        if (mine.filter((r) => r.value.profile === iaca.profile).length >= limit) return false;
        if (mine.some((r) => r.value.fingerprint === iaca.fingerprint)) throw conflict('The tenant already holds this IACA certificate');
        s.iacas.set(iaca.id, { seq: next(), value: copy(iaca) });
        return true;
      },
      async get(tenantId, id) {
        return ownedValue(get().iacas, tenantId, id);
      },
      async list(tenantId, page, filter = {}) {
        const profile = filter.profile === 'issuer' ? 'issuer' : undefined;
        return tenantPage(get().iacas, tenantId, page, (i) => i.profile === profile && (!filter.activeOnly || i.active));
      },
      async update(iaca) {
        const r = iacaOf(iaca.tenantId, iaca.id);
        if (!r) return false;
        const { active, activatedAt, updatedAt } = iaca;
        r.value = { ...r.value, active, updatedAt, ...(activatedAt !== undefined ? { activatedAt } : {}) };
        if (activatedAt === undefined) delete r.value.activatedAt;
        return true;
      },
      async delete(tenantId, id) {
        const s = get();
        if (!iacaOf(tenantId, id)) return false;
        s.iacas.delete(id);
        s.iacaRevocations.delete(id);
        for (const [signerId, r] of s.documentSigners) if (r.value.iacaId === id) s.documentSigners.delete(signerId);
        return true;
      },
      async addRevocation(tenantId, iacaId, revocation) {
        const s = get();
        if (!iacaOf(tenantId, iacaId)) throw notFound('The tenant has no such IACA');
        const list = s.iacaRevocations.get(iacaId) ?? [];
        if (!list.some((r) => r.serialNumber === revocation.serialNumber)) list.push(copy(revocation));
        s.iacaRevocations.set(iacaId, list);
      },
      async listRevocations(tenantId, iacaId) {
        return iacaOf(tenantId, iacaId) ? copy(get().iacaRevocations.get(iacaId) ?? []) : [];
      },
    },
    documentSigners: {
      async insert(signer, limit) {
        const s = get();
        if (!iacaOf(signer.tenantId, signer.iacaId)) throw notFound('The tenant has no such IACA');
        if (s.documentSigners.has(signer.id)) throw conflict('Document signer id exists');
        if (limit !== undefined) {
          const family = (d: DocumentSignerRecord) => d.use === undefined;
          const requested = [...s.documentSigners.values()].filter(
            (r) => r.value.tenantId === signer.tenantId && !r.value.isManaged && family(r.value) === family(signer),
          ).length;
          if (requested >= limit) return false;
        }
        s.documentSigners.set(signer.id, { seq: next(), value: copy(signer) });
        return true;
      },
      async get(tenantId, id) {
        return ownedValue(get().documentSigners, tenantId, id);
      },
      async list(tenantId, page, filter = {}) {
        const issuer = filter.profile === 'issuer';
        return tenantPage(
          get().documentSigners,
          tenantId,
          page,
          (d) => (d.use !== undefined) === issuer && (filter.iacaId === undefined || d.iacaId === filter.iacaId),
        );
      },
      async listByIaca(tenantId, iacaId) {
        return tenantValues(get().documentSigners, tenantId, (d) => d.iacaId === iacaId);
      },
      async update(signer) {
        const r = signerOf(signer.tenantId, signer.id);
        if (!r) return false;
        // Only the mutable fields change: the IACA, the key and the kind stay as inserted.
        const { id, tenantId, iacaId, isManaged, keyId, publicJwk, csrPem, createdAt, use } = r.value;
        r.value = { ...copy(signer), id, tenantId, iacaId, isManaged, keyId, publicJwk, createdAt, ...(csrPem !== undefined ? { csrPem } : {}) };
        if (use === undefined) delete r.value.use;
        else r.value.use = use;
        return true;
      },
      async delete(tenantId, id) {
        return deleteOwned(get().documentSigners, tenantId, id);
      },
    },
    tenants: {
      async insert(t) {
        const s = get();
        if ([...s.tenants.values()].some((r) => r.value.subdomain === t.subdomain)) throw conflict(`Subdomain ${t.subdomain} is taken`);
        s.tenants.set(t.id, { seq: next(), value: copy(t) });
      },
      async findById(id) {
        const r = get().tenants.get(id);
        return r && copy(r.value);
      },
      async findBySubdomain(subdomain) {
        const r = [...get().tenants.values()].find((x) => x.value.subdomain === subdomain);
        return r && copy(r.value);
      },
      async list(page) {
        return slice([...get().tenants.values()], page);
      },
      async setLoggingLevel(id, level) {
        const r = get().tenants.get(id);
        if (!r) return false;
        r.value.loggingLevel = level;
        return true;
      },
      async setRetention(id, retention) {
        const r = get().tenants.get(id);
        if (!r) return false;
        const { eventRetentionDays: _events, webhookDeliveryRetentionDays: _deliveries, ...rest } = r.value;
        const { eventRetentionDays: events, webhookDeliveryRetentionDays: deliveries } = retention;
        r.value = {
          ...rest,
          ...(events !== undefined ? { eventRetentionDays: events } : {}),
          ...(deliveries !== undefined ? { webhookDeliveryRetentionDays: deliveries } : {}),
        };
        return true;
      },
      async setIssuerDisplay(id, display) {
        const r = get().tenants.get(id);
        if (!r) return false;
        const { issuerDisplay: _old, ...rest } = r.value;
        r.value = display.length > 0 ? { ...rest, issuerDisplay: copy([...display]) } : rest;
        return true;
      },
      async setBatchSize(id, batchSize) {
        const r = get().tenants.get(id);
        if (!r) return false;
        const { batchSize: _old, ...rest } = r.value;
        r.value = batchSize > 1 ? { ...rest, batchSize } : rest;
        return true;
      },
      async setKeyCustody(id, keyCustody) {
        const r = get().tenants.get(id);
        if (!r) return false;
        r.value = { ...r.value, keyCustody };
        return true;
      },
    },
    clients: {
      async insert(c) {
        insertRow(get().clients, c.clientId, c, next, 'Client id exists');
      },
      async findByClientId(clientId) {
        const r = get().clients.get(clientId);
        return r && copy(r.value);
      },
      async list(tenantId, page) {
        return tenantPage(get().clients, tenantId, page);
      },
      async rotateSecret(tenantId, clientId, secretHash, rotatedAt) {
        const r = get().clients.get(clientId);
        if (!r || r.value.tenantId !== tenantId || r.value.revokedAt !== undefined) return undefined;
        r.value = { ...r.value, secretHash, secretVersion: r.value.secretVersion + 1, rotatedAt };
        return copy(r.value);
      },
      async revoke(tenantId, clientId, revokedAt) {
        const s = get();
        const r = s.clients.get(clientId);
        if (!r || r.value.tenantId !== tenantId) return 'not-found';
        if (r.value.revokedAt !== undefined) return 'already-revoked';
        if (r.value.role === 'admin') {
          const others = [...s.clients.values()].some(
            (o) => o.value.tenantId === tenantId && o.value.role === 'admin' && o.value.revokedAt === undefined && o.value.clientId !== clientId,
          );
          if (!others) return 'last-admin';
        }
        r.value = { ...r.value, revokedAt };
        return 'revoked';
      },
    },
    customDomains: {
      async get(tenantId) {
        const d = get().domains.get(tenantId);
        return d && copy(d);
      },
      async insert(d) {
        const s = get();
        if (s.domains.has(d.tenantId)) throw conflict('The tenant already has a custom domain');
        s.domains.set(d.tenantId, copy(d));
      },
      async update(d) {
        const s = get();
        if (!s.domains.has(d.tenantId)) return false;
        s.domains.set(d.tenantId, copy(d));
        return true;
      },
      async delete(tenantId) {
        return get().domains.delete(tenantId);
      },
      async markVerified(tenantId, verifiedAt) {
        const s = get();
        const d = s.domains.get(tenantId);
        if (!d) return false;
        const owner = [...s.domains.values()].find((x) => x.isVerified && x.domain === d.domain && x.tenantId !== tenantId);
        if (owner) throw conflict('This domain is verified by another tenant');
        d.isVerified = true;
        d.verifiedAt = verifiedAt;
        return true;
      },
      async findVerified(domain) {
        const d = [...get().domains.values()].find((x) => x.isVerified && x.domain === domain);
        return d && copy(d);
      },
    },
    events: {
      async insertMany(events) {
        const s = get();
        // All copied before any is kept: a batch lands whole or not at all, as in SQL.
        const copies = events.map(copy);
        for (const value of copies) s.events.push({ seq: next(), value });
      },
      async list(tenantId, filter, page) {
        return slice(
          get().events.filter((r) => r.value.tenantId === tenantId && matches(r.value, filter)),
          page,
          'desc',
        );
      },
      async purgeBefore(tenantId, before, limit) {
        const s = get();
        let removed = 0;
        s.events = s.events.filter((r) => {
          const purge = removed < limit && r.value.tenantId === tenantId && r.value.timestamp < before;
          if (purge) removed += 1;
          return !purge;
        });
        return removed;
      },
    },
    leases: {
      async acquire(name, holder, until, now) {
        const held = get().leases.get(name);
        if (held && held.holder !== holder && held.until > now) return false;
        get().leases.set(name, { holder, until });
        return true;
      },
      async release(name, holder) {
        if (get().leases.get(name)?.holder === holder) get().leases.delete(name);
      },
    },
    keys: {
      async insert(key) {
        const s = get();
        if (s.keys.has(key.id)) throw conflict('Key id exists');
        // As the SQL stores read it back: `software`, the default, is not kept as a field.
        const { custody, ...rest } = key;
        s.keys.set(key.id, copy(custody === undefined || custody === 'software' ? rest : key));
      },
      async get(tenantId, id) {
        const k = get().keys.get(id);
        return k && k.tenantId === tenantId ? copy(k) : undefined;
      },
      async delete(tenantId, id) {
        const s = get();
        const k = s.keys.get(id);
        return k !== undefined && k.tenantId === tenantId && s.keys.delete(id);
      },
      async listSealedIn(format, limit) {
        // The map keeps insertion order, which is creation order: a key is never inserted twice.
        const software = [...get().keys.values()].filter((k) => (k.custody ?? 'software') === 'software' && k.sealed.startsWith(`${format}.`));
        return software.slice(0, limit).map(copy);
      },
      async reseal(tenantId, id, from, to) {
        const k = get().keys.get(id);
        if (k === undefined || k.tenantId !== tenantId || k.sealed !== from) return false;
        k.sealed = to;
        return true;
      },
    },
    dids: {
      async insert(record) {
        insertRow(get().dids, `${record.tenantId} ${record.did}`, record, next, 'The tenant already has this DID');
      },
      async get(tenantId, did) {
        const r = get().dids.get(`${tenantId} ${did}`);
        return r && copy(r.value);
      },
      async list(tenantId, page) {
        return tenantPage(get().dids, tenantId, page);
      },
      async delete(tenantId, did) {
        return get().dids.delete(`${tenantId} ${did}`);
      },
      async listStamps(tenantId) {
        return [...get().dids.values()]
          .filter((r) => r.value.tenantId === tenantId)
          .map((r) => ({ did: r.value.did, revision: `${r.seq}.${r.keysRevision ?? 0}` }));
      },
      async replaceKeys(tenantId, did, from, to) {
        const r = get().dids.get(`${tenantId} ${did}`);
        if (!r || JSON.stringify(r.value.keys) !== JSON.stringify(from)) return false;
        r.value = { ...r.value, keys: copy(to) };
        r.keysRevision = (r.keysRevision ?? 0) + 1;
        return true;
      },
    },
    credentialConfigurations: {
      async insert(c) {
        const s = get();
        if (s.credentialConfigurations.has(c.id)) throw conflict('Configuration id exists');
        if (typeHolder(s, c)) throw conflict(`The tenant already has a ${c.format} configuration of this type`);
        const seq = next();
        s.credentialConfigurations.set(c.id, { seq, value: copy(c), revision: seq });
      },
      async get(tenantId, id) {
        return ownedValue(get().credentialConfigurations, tenantId, id);
      },
      async list(tenantId, filter, page) {
        return tenantPage(
          get().credentialConfigurations,
          tenantId,
          page,
          (c) => c.format === filter.format && (filter.type === undefined || c.type === filter.type),
        );
      },
      async listAll(tenantId) {
        return tenantValues(get().credentialConfigurations, tenantId);
      },
      async listStamps(tenantId) {
        return [...get().credentialConfigurations.values()]
          .filter((r) => r.value.tenantId === tenantId)
          .map((r) => ({ id: r.value.id, revision: String(r.revision) }));
      },
      async update(c) {
        const s = get();
        const r = s.credentialConfigurations.get(c.id);
        if (!r || r.value.tenantId !== c.tenantId || r.value.format !== c.format) return false;
        if (typeHolder(s, c)) throw conflict(`The tenant already has a ${c.format} configuration of this type`);
        r.value = copy(c);
        r.revision = next();
        return true;
      },
      async delete(tenantId, id) {
        return deleteOwned(get().credentialConfigurations, tenantId, id);
      },
    },
    issuedCredentials: {
      async insert(record) {
        insertRow(get().issuedCredentials, record.id, record, next, 'Issued credential id exists');
      },
      async get(tenantId, id) {
        return ownedValue(get().issuedCredentials, tenantId, id);
      },
      async list(tenantId, filter, page) {
        return tenantPage(
          get().issuedCredentials,
          tenantId,
          page,
          (v) =>
            (filter.format === undefined || v.format === filter.format) &&
            (filter.userId === undefined || v.userId === filter.userId) &&
            (filter.credentialConfigurationId === undefined || v.credentialConfigurationId === filter.credentialConfigurationId),
        );
      },
      async findByNotificationId(tenantId, notificationId) {
        const r = [...get().issuedCredentials.values()].find((x) => x.value.tenantId === tenantId && x.value.notificationId === notificationId);
        return r && copy(r.value);
      },
      async recordNotificationFor(tenantId, notificationId, notification) {
        const rows = [...get().issuedCredentials.values()].filter((x) => x.value.tenantId === tenantId && x.value.notificationId === notificationId);
        for (const r of rows) r.value.notification = copy(notification);
        return rows.length;
      },
      async recordNotification(tenantId, id, notification) {
        const r = ownedRow(get().issuedCredentials, tenantId, id);
        if (!r) return false;
        r.value.notification = copy(notification);
        return true;
      },
      async setStatus(tenantId, id, status) {
        const r = ownedRow(get().issuedCredentials, tenantId, id);
        if (!r) return false;
        r.value.status = status;
        return true;
      },
    },
    platformKeys: {
      async get(name) {
        const r = get().platformKeys.get(name);
        return r && copy(r);
      },
      async insertIfAbsent(record) {
        const s = get();
        const existing = s.platformKeys.get(record.name);
        if (existing) return copy(existing);
        s.platformKeys.set(record.name, copy(record));
        return copy(record);
      },
      async replace(expectedSealed, record) {
        const s = get();
        const existing = s.platformKeys.get(record.name);
        if (!existing || existing.sealed !== expectedSealed) return false;
        s.platformKeys.set(record.name, copy(record));
        return true;
      },
    },
    dataKeys: {
      async get(tenantId) {
        const r = get().dataKeys.get(tenantId);
        return r && copy(r);
      },
      async insertIfAbsent(record) {
        const s = get();
        const existing = s.dataKeys.get(record.tenantId);
        if (existing) return copy(existing);
        s.dataKeys.set(record.tenantId, copy(record));
        return copy(record);
      },
      async listStale(current, limit) {
        const stale = (k: DataKeyRecord) =>
          k.wrappingKeyId !== current.wrappingKeyId || (current.recoveryKeyId !== undefined && k.recoveryKeyId !== current.recoveryKeyId);
        const rows = [...get().dataKeys.values()].filter(stale).sort((a, b) => (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0));
        return rows.slice(0, limit).map(copy);
      },
      async replaceWrapping(tenantId, id, expected, next) {
        const s = get();
        const k = s.dataKeys.get(tenantId);
        if (k === undefined || k.id !== id || k.wrappingKeyId !== expected.wrappingKeyId || k.recoveryKeyId !== expected.recoveryKeyId) return false;
        const { wrapped, wrappingKeyId, recoveryWrapped, recoveryKeyId, updatedAt } = next;
        // Only what `next` names: a recovery form it leaves out is gone, as the SQL store's null.
        s.dataKeys.set(tenantId, {
          tenantId,
          id,
          wrapped,
          wrappingKeyId,
          ...(recoveryWrapped !== undefined ? { recoveryWrapped } : {}),
          ...(recoveryKeyId !== undefined ? { recoveryKeyId } : {}),
          createdAt: k.createdAt,
          updatedAt,
        });
        return true;
      },
      async countByWrapping() {
        const counts = new Map<string, DataKeyWrapping>();
        for (const { wrappingKeyId, recoveryKeyId } of get().dataKeys.values()) {
          const key = JSON.stringify([wrappingKeyId, recoveryKeyId ?? null]);
          const group = counts.get(key) ?? { wrappingKeyId, ...(recoveryKeyId !== undefined ? { recoveryKeyId } : {}), count: 0 };
          group.count += 1;
          counts.set(key, group);
        }
        return [...counts.values()];
      },
    },
  };
}

export interface MemoryStoreOptions {
  /** Told once when the store is opened outside a test run: it keeps nothing across restarts. */
  warn?: (message: string) => void;
}

/**
 * The Store port in memory: for unit tests and embedding. Transactions run one at a time and roll
 * back by restoring a snapshot, so the same atomicity rules hold as in the SQL store.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  let state = emptyState();
  let queue: Promise<unknown> = Promise.resolve();
  const direct = repositories(() => state);
  if (options.warn && !process.env.VITEST) options.warn('Using the in-memory store: nothing is kept when the process ends.');

  return {
    ...direct,
    // Outside the snapshot that a failed transaction restores: a counted attempt stays counted.
    rateLimits: createMemoryRateLimits(),
    transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T> {
      const run = queue.then(async () => {
        const snapshot = structuredClone(state);
        try {
          return await work(direct);
        } catch (error) {
          state = snapshot;
          throw error;
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    async ping() {},
    async close() {},
  };
}
