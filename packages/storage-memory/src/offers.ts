// Users, offers, nonces and tenant signing key records in memory (ports.ts: UserRepository,
// OfferRepository, NonceRepository, TenantSigningKeyRepository). Every check-then-write below runs
// without an await in between, so it is atomic as the SQL store's single statements are.

import {
  conflict,
  meetsWalletRequirements,
  notFound,
  type NonceRepository,
  type OfferRecord,
  type OfferRepository,
  type TenantSigningKeyRecord,
  type TenantSigningKeyRepository,
  type UserRecord,
  type UserRepository,
  userMatches,
} from '@vellum/core';
import { copy, ownedById, ownedRow, ownedValue, purgeWhere, type Row, tenantPage } from './rows.ts';

export interface OfferState {
  /** By id. */
  users: Map<string, Row<UserRecord>>;
  /** By id. */
  offers: Map<string, Row<OfferRecord>>;
  /** Offer id by `${tenantId} ${codeDigest}` (the SQL store's unique index). */
  offerCodes: Map<string, string>;
  /** Expiry of used nonces by `${tenantId} ${nonce}` (the SQL store's primary key). */
  nonces: Map<string, string>;
  /** By `${tenantId} ${purpose}`. */
  signingKeys: Map<string, TenantSigningKeyRecord>;
}

export const emptyOfferState = (): OfferState => ({
  users: new Map(),
  offers: new Map(),
  offerCodes: new Map(),
  nonces: new Map(),
  signingKeys: new Map(),
});

export interface OfferRepositories {
  users: UserRepository;
  offers: OfferRepository;
  nonces: NonceRepository;
  tenantSigningKeys: TenantSigningKeyRepository;
}

/** The record without its claims (docs/decisions.md "Claims at rest"). */
export function withoutClaims<T extends { sealedClaims?: string }>(record: T): T {
  const { sealedClaims: _erased, ...rest } = record;
  return rest as T;
}

/** The repositories over `get()`'s state; `next` hands out creation-order positions. */
export function offerRepositories(get: () => OfferState, next: () => number): OfferRepositories {
  const userOf = (tenantId: string, id: string) => ownedRow(get().users, tenantId, id);
  const offerOf = (tenantId: string, id: string) => ownedRow(get().offers, tenantId, id);

  return {
    users: {
      ...ownedById(() => get().users, next, 'User id exists'),
      async list(tenantId, page, filter) {
        return tenantPage(get().users, tenantId, page, (u) => !filter || userMatches(u, filter));
      },
      async update(user) {
        const r = userOf(user.tenantId, user.id);
        if (!r) return false;
        r.value = { ...r.value, claims: copy(user.claims), updatedAt: user.updatedAt };
        if (user.authenticationProvider) r.value.authenticationProvider = copy(user.authenticationProvider);
        else delete r.value.authenticationProvider;
        return true;
      },
      async mergeClaims(tenantId, id, claims, updatedAt) {
        const r = userOf(tenantId, id);
        if (!r) return undefined;
        if (Object.keys(claims).length > 0) r.value = { ...r.value, claims: { ...r.value.claims, ...copy(claims) }, updatedAt };
        return copy(r.value);
      },
      async delete(tenantId, id) {
        const s = get();
        if (!userOf(tenantId, id)) return false;
        s.users.delete(id);
        // The SQL store's cascade: a user's offers go with it.
        for (const [offerId, o] of s.offers) {
          if (o.value.tenantId === tenantId && o.value.userId === id) {
            s.offers.delete(offerId);
            s.offerCodes.delete(`${tenantId} ${o.value.codeDigest}`);
          }
        }
        return true;
      },
    },

    offers: {
      async insert(offer) {
        const s = get();
        const codeKey = `${offer.tenantId} ${offer.codeDigest}`;
        if (s.offers.has(offer.id)) throw conflict('Offer id exists');
        if (s.offerCodes.has(codeKey)) throw conflict('The tenant already has an offer with this code');
        if (offer.userId !== undefined && !userOf(offer.tenantId, offer.userId)) throw notFound('The tenant has no such user');
        s.offers.set(offer.id, { seq: next(), value: copy(offer) });
        s.offerCodes.set(codeKey, offer.id);
      },
      async get(tenantId, id) {
        return ownedValue(get().offers, tenantId, id);
      },
      async getWithUser(tenantId, id, userId) {
        return { offer: ownedValue(get().offers, tenantId, id), user: ownedValue(get().users, tenantId, userId) };
      },
      async findByCodeDigest(tenantId, codeDigest) {
        const id = get().offerCodes.get(`${tenantId} ${codeDigest}`);
        const r = id === undefined ? undefined : offerOf(tenantId, id);
        return r && copy(r.value);
      },
      async redeem(tenantId, codeDigest, { txCodeDigests, now, maxTxAttempts, claimsUntil, proven }) {
        const id = get().offerCodes.get(`${tenantId} ${codeDigest}`);
        const r = id === undefined ? undefined : offerOf(tenantId, id);
        const o = r?.value;
        if (!r || !o || o.kind !== 'pre-authorized' || o.status !== 'open' || !(o.expiresAt > now)) return { outcome: 'not-open' };
        // A transaction code missing, or sent for an offer that has none, counts for nothing; so does a
        // request that does not meet the offer's wallet requirements.
        if ((o.txCode === undefined) !== (txCodeDigests === undefined)) return { outcome: 'not-open' };
        if (!meetsWalletRequirements(o.walletRequirements, proven)) return { outcome: 'not-open' };
        if (o.txCode === undefined || txCodeDigests?.includes(o.txCode.digest)) {
          r.value = { ...o, status: 'used', usedAt: now, expiresAt: claimsUntil };
          return { outcome: 'redeemed', offer: copy(r.value) };
        }
        const failedTxAttempts = o.failedTxAttempts + 1;
        const locked = failedTxAttempts >= maxTxAttempts;
        r.value = locked ? withoutClaims({ ...o, failedTxAttempts, status: 'locked' }) : { ...o, failedTxAttempts };
        return { outcome: 'wrong-tx-code', failedTxAttempts, locked };
      },
      async markDeleted(tenantId, id, kind) {
        const r = offerOf(tenantId, id);
        if (!r || r.value.kind !== kind || r.value.status === 'deleted') return false;
        r.value = withoutClaims({ ...r.value, status: 'deleted' });
        return true;
      },
      async markIssued(tenantId, id, configurationId, granted) {
        const r = offerOf(tenantId, id);
        const issued = r?.value.issuedConfigurationIds ?? [];
        if (!r || issued.includes(configurationId)) return false;
        r.value = { ...r.value, issuedConfigurationIds: [...issued, configurationId] };
        if (issued.length + 1 >= granted) r.value = withoutClaims(r.value);
        return true;
      },
      async purgeExpired(before, limit) {
        const s = get();
        return purgeWhere(
          s.offers,
          limit,
          (r) => r.value.expiresAt <= before,
          (r) => {
            s.offerCodes.delete(`${r.value.tenantId} ${r.value.codeDigest}`);
          },
        );
      },
      async eraseExpiredClaims(now, limit) {
        let erased = 0;
        for (const r of get().offers.values()) {
          if (erased >= limit) break;
          if (r.value.sealedClaims === undefined || r.value.expiresAt > now) continue;
          r.value = withoutClaims(r.value);
          erased += 1;
        }
        return erased;
      },
    },

    nonces: {
      async markUsed(n) {
        const key = `${n.tenantId} ${n.nonce}`;
        if (get().nonces.has(key)) return false;
        get().nonces.set(key, n.expiresAt);
        return true;
      },
      async purgeExpired(before, limit) {
        return purgeWhere(get().nonces, limit, (expiresAt) => expiresAt <= before);
      },
    },

    tenantSigningKeys: {
      async get(tenantId, purpose) {
        const r = get().signingKeys.get(`${tenantId} ${purpose}`);
        return r && copy(r);
      },
      async insertIfAbsent(record) {
        const key = `${record.tenantId} ${record.purpose}`;
        const existing = get().signingKeys.get(key);
        if (existing) return copy(existing);
        get().signingKeys.set(key, copy(record));
        return copy(record);
      },
      async rotate(tenantId, purpose, expectedKeyId, next) {
        const key = `${tenantId} ${purpose}`;
        const existing = get().signingKeys.get(key);
        if (!existing || existing.keyId !== expectedKeyId) return undefined;
        const rotated = { ...existing, keyId: next.keyId, previousKeyId: expectedKeyId, previousUntil: next.previousUntil, createdAt: next.rotatedAt };
        get().signingKeys.set(key, rotated);
        return copy(rotated);
      },
    },
  };
}
