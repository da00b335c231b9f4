// Users, offers, used nonces and tenant signing key records on Kysely. The single-use operations are
// one statement each (a conditional UPDATE … RETURNING, or an insert the primary key refuses), so two
// servers sharing a database never both accept one code or nonce.

import { canonicalJson, conflict, notFound, type RedeemOutcome, type Repositories, type UserFilter } from '@vellum/core';
import { type Expression, type Insertable, type Selectable, type SqlBool, sql } from 'kysely';
import { compiledOnce } from './compiled-once.ts';
import type { Executor, SqlDialectKind } from './database.ts';
import { refusingDuplicates, uniqueViolation } from './errors.ts';
import { deleteBatch } from './retention.table.ts';
import { atomically, compiledFindOwned, compiledFindOwnedBy, deleteOwned, findOwnedBy, pageOf, updateOwned } from './queries.ts';
import { claimsAfterIssuing, eraseExpiredClaimsOf } from './claims-at-rest.ts';
import {
  NO_CLAIMS,
  type NoncesTable,
  proofBits,
  type OffersTable,
  toNonceRow,
  toOffer,
  toOfferRow,
  toTenantSigningKey,
  toTenantSigningKeyRow,
  toUser,
  toUserRow,
  USER_COLUMNS,
  type UsersTable,
} from './users-offers.table.ts';

const SQLITE_FOREIGN_KEY = 'SQLITE_CONSTRAINT_FOREIGNKEY';
const PG_FOREIGN_KEY_VIOLATION = '23503';

/** Whether a driver error is a foreign key violation (here: an offer naming a user the tenant does not have). */
function foreignKeyViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === SQLITE_FOREIGN_KEY || code === PG_FOREIGN_KEY_VIOLATION;
}

/** The SQL for "the stored claim `key` equals `value`" (JSON equality), per dialect. */
function claimEquals(kind: SqlDialectKind, key: string, value: unknown): Expression<SqlBool> {
  const json = canonicalJson(value);
  return kind === 'postgres'
    ? sql<SqlBool>`(claims::jsonb -> ${key}::text) = ${json}::jsonb`
    : // A quoted label path reaches any key, dots and quotes included; json() spells both sides alike.
      sql<SqlBool>`claims -> ('$.' || json_quote(${key})) = json(${json})`;
}

// The queries of an issuance flow, built and compiled once per Kysely instance (compiled-once.ts).
// Each call passes every named parameter; the row mappers give every column (null, never undefined).

const insertUser = compiledOnce('users.insert', (db, row: Insertable<UsersTable>) => db.insertInto('users').values(row));

const userById = compiledFindOwned('users.get', 'users');

const insertOffer = compiledOnce('offers.insert', (db, row: Insertable<OffersTable>) => db.insertInto('offers').values(row));

const offerById = compiledFindOwned('offers.get', 'offers');

// The offer and the user behind a Pre-authorized token, in one statement: a one-row derived table
// with both left-joined to it, so either may be missing without hiding the other.
/** The one row of getWithUser's keys: tenant, offer and user ids. */
type Keys = { tid: string; oid: string; uid: string };

const offerWithUser = compiledOnce('offers.getWithUser', (db, p: { tenantId: string; id: string; userId: string }) =>
  db
    // The keys come in as the one row of `k`, not as parameters in the joins' ON clauses: SQLite
    // (better-sqlite3's build, STAT4) ran the same statement 4–5 times slower with them there
    // (about 40 against 8.5 µs on a table of 9,000 offers; docs/performance.md, issue 27).
    .selectFrom(sql<Keys>`(select cast(${p.tenantId} as text) as tid, cast(${p.id} as text) as oid, cast(${p.userId} as text) as uid)`.as('k'))
    .leftJoin('offers as o', (join) => join.onRef('o.tenant_id', '=', 'k.tid').onRef('o.id', '=', 'k.oid'))
    .leftJoin('users as u', (join) => join.onRef('u.tenant_id', '=', 'k.tid').onRef('u.id', '=', 'k.uid'))
    .selectAll('o')
    .select(USER_COLUMNS.map((c) => `u.${c} as u__${c}` as const)),
);

const offerByCodeDigest = compiledFindOwnedBy('offers.findByCodeDigest', 'offers', 'code_digest');

interface RedeemParams {
  tenantId: string;
  codeDigest: string;
  now: string;
  maxTxAttempts: number;
  claimsUntil: string;
  /** The required proofs the request did not give (offers.required_proofs bits): an offer that requires one is not redeemed. */
  unproven: number;
}

/**
 * One statement decides and writes: the row lock (PostgreSQL) or the write lock (SQLite) orders
 * racing redeemers, and each sees the state the one before it left. `present` keeps to offers that
 * take a transaction code exactly when one was sent; `matches` says whether it is right. A lock
 * erases the claims; a redemption keeps them (sealed) until its access token expires.
 */
function redeemUpdate(db: Executor, p: RedeemParams, present: Expression<SqlBool>, matches: Expression<SqlBool>) {
  const locks = sql<SqlBool>`(not ${matches} and failed_tx_attempts + 1 >= ${p.maxTxAttempts})`;
  return db
    .updateTable('offers')
    .set({
      status: sql<string>`case when ${matches} then 'used' when ${locks} then 'locked' else 'open' end`,
      failed_tx_attempts: sql<number>`case when ${matches} then failed_tx_attempts else failed_tx_attempts + 1 end`,
      used_at: sql<string | null>`case when ${matches} then cast(${p.now} as text) else used_at end`,
      expires_at: sql<string>`case when ${matches} then cast(${p.claimsUntil} as text) else expires_at end`,
      claims: sql<string>`case when ${locks} then ${NO_CLAIMS} else claims end`,
    })
    .where('tenant_id', '=', p.tenantId)
    .where('code_digest', '=', p.codeDigest)
    .where('kind', '=', 'pre-authorized')
    .where('status', '=', 'open')
    .where('expires_at', '>', p.now)
    .where(present)
    .where(sql<SqlBool>`(required_proofs & cast(${p.unproven} as integer)) = 0`)
    .returningAll();
}

// The two variants of "the transaction code matches" are two shapes, so two queries. The code
// matches either of two stored forms (RedeemAttempt.txCodeDigests): the keyed digest, and the bare
// SHA-256 of offers made before it.
const redeemWithoutTxCode = compiledOnce('offers.redeem', (db, p: RedeemParams) =>
  redeemUpdate(db, p, sql<SqlBool>`tx_code_digest is null`, sql<SqlBool>`tx_code_digest is null`),
);

const redeemWithTxCode = compiledOnce('offers.redeem (transaction code)', (db, p: RedeemParams & { digest: string; otherDigest: string }) =>
  redeemUpdate(db, p, sql<SqlBool>`tx_code_digest is not null`, sql<SqlBool>`tx_code_digest in (${p.digest}, ${p.otherDigest})`),
);

// ON CONFLICT DO NOTHING (PostgreSQL and SQLite): a repeat inserts no row rather than raising, so it
// neither needs an exception nor ends the caller's PostgreSQL transaction.
const insertNonceIfAbsent = compiledOnce('nonces.markUsed', (db, row: Insertable<NoncesTable>) =>
  db
    .insertInto('nonces')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'nonce']).doNothing()),
);

// Written once per issued credential, in its transaction: one conditional update of the offer the
// token came from (its page is one the flow has just written), instead of a unique index of its own.
// The token's last credential erases the offer's claims in the same write.
const markIssuedOnOffer = compiledOnce('offers.markIssued', (db, p: { tenantId: string; id: string; mark: string; pattern: string; granted: number }) =>
  db
    .updateTable('offers')
    .set({ issued_configuration_ids: sql<string>`issued_configuration_ids || ${p.mark}`, claims: claimsAfterIssuing(p.granted) })
    .where('tenant_id', '=', p.tenantId)
    .where('id', '=', p.id)
    .where('issued_configuration_ids', 'not like', p.pattern),
);

/** Builds the user, offer, nonce and tenant signing key repositories on `db`, a Kysely instance or a transaction. */
export function offerRepositoriesOn(db: Executor, kind: SqlDialectKind): Pick<Repositories, 'users' | 'offers' | 'nonces' | 'tenantSigningKeys'> {
  return {
    users: {
      async insert(user) {
        await refusingDuplicates(insertUser.execute(db, toUserRow(user)), 'User id exists');
      },
      async get(tenantId, id) {
        const row = await userById.first(db, { tenantId, id });
        return row && toUser(row);
      },
      async list(tenantId, page, filter: UserFilter = {}) {
        let query = db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId);
        if (filter.subjectId !== undefined) query = query.where('auth_subject_id', '=', filter.subjectId);
        for (const [key, value] of Object.entries(filter.claims ?? {})) query = query.where(claimEquals(kind, key, value));
        return pageOf(query, page, toUser);
      },
      async update(user) {
        const { claims, auth_provider_url, auth_subject_id, updated_at } = toUserRow(user);
        return updateOwned(db, 'users', user.tenantId, user.id, { claims, auth_provider_url, auth_subject_id, updated_at });
      },
      async mergeClaims(tenantId, id, claims, updatedAt) {
        return atomically(db, async (tx) => {
          // A write that changes nothing, first: it locks the row until the transaction ends
          // (PostgreSQL) or takes the database's write lock (SQLite), and returns the row. Reading
          // first would make SQLite in WAL mode fail the later write (SQLITE_BUSY_SNAPSHOT, no
          // waiting) whenever another process wrote in between.
          const row = await tx
            .updateTable('users')
            .set({ updated_at: sql<string>`updated_at` })
            .where('tenant_id', '=', tenantId)
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirst();
          if (!row) return undefined;
          const user = toUser(row);
          if (Object.keys(claims).length === 0) return user;
          const merged = { ...user, claims: { ...user.claims, ...claims }, updatedAt };
          const written = toUserRow(merged);
          await tx
            .updateTable('users')
            .set({ claims: written.claims, updated_at: written.updated_at })
            .where('tenant_id', '=', tenantId)
            .where('id', '=', id)
            .execute();
          return merged;
        });
      },
      async delete(tenantId, id) {
        // Its offers go with it (foreign key with on delete cascade).
        return deleteOwned(db, 'users', tenantId, id);
      },
    },

    offers: {
      async insert(offer) {
        try {
          await insertOffer.execute(db, toOfferRow(offer, kind));
        } catch (error) {
          const violated = uniqueViolation(error);
          if (violated !== undefined) throw conflict(violated.includes('code_digest') ? 'The tenant already has an offer with this code' : 'Offer id exists');
          if (foreignKeyViolation(error)) throw notFound('The tenant has no such user');
          throw error;
        }
      },
      async get(tenantId, id) {
        const row = await offerById.first(db, { tenantId, id });
        return row && toOffer(row);
      },
      async getWithUser(tenantId, id, userId) {
        const row = (await offerWithUser.first(db, { tenantId, id, userId })) as Record<string, unknown> | undefined;
        if (!row) return { offer: undefined, user: undefined };
        const user = Object.fromEntries(USER_COLUMNS.map((c) => [c, row[`u__${c}`]])) as unknown as Selectable<UsersTable>;
        return {
          offer: row.id === null || row.id === undefined ? undefined : toOffer(row as unknown as Selectable<OffersTable>),
          user: user.id === null || user.id === undefined ? undefined : toUser(user),
        };
      },
      async findByCodeDigest(tenantId, codeDigest) {
        const row = await offerByCodeDigest.first(db, { tenantId, value: codeDigest });
        return row && toOffer(row);
      },
      async redeem(tenantId, codeDigest, { txCodeDigests, now, maxTxAttempts, claimsUntil, proven }): Promise<RedeemOutcome> {
        const unproven = proofBits({ walletAttestation: proven?.walletAttestation !== true, dpop: proven?.dpop !== true });
        const params: RedeemParams = { tenantId, codeDigest, now, maxTxAttempts, claimsUntil, unproven };
        // One statement (redeemUpdate). On SQLite it runs as a transaction so that a grouped commit
        // takes it in with the others (ImmediateSqliteDialect).
        const [digest, otherDigest] = txCodeDigests ?? [];
        const update = (executor: Executor) =>
          digest === undefined
            ? redeemWithoutTxCode.first(executor, params)
            : redeemWithTxCode.first(executor, { ...params, digest, otherDigest: otherDigest ?? digest });
        const row = kind === 'sqlite' ? await atomically(db, update) : await update(db);
        if (!row) return { outcome: 'not-open' };
        const offer = toOffer(row);
        if (offer.status === 'used') return { outcome: 'redeemed', offer };
        return { outcome: 'wrong-tx-code', failedTxAttempts: offer.failedTxAttempts, locked: offer.status === 'locked' };
      },
      async markIssued(tenantId, id, configurationId, granted) {
        const mark = `|${configurationId}|`;
        return (await markIssuedOnOffer.affectedRows(db, { tenantId, id, mark, pattern: `%${mark}%`, granted })) > 0n;
      },
      async eraseExpiredClaims(now, limit) {
        return eraseExpiredClaimsOf(db, 'offers', now, limit);
      },
      async purgeExpired(before, limit) {
        return deleteBatch(db, 'offers', ['seq'], limit, sql<SqlBool>`expires_at <= ${before}`);
      },
      async markDeleted(tenantId, id, offerKind) {
        const result = await db
          .updateTable('offers')
          .set({ status: 'deleted', claims: NO_CLAIMS })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('kind', '=', offerKind)
          .where('status', '<>', 'deleted')
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
    },

    nonces: {
      async markUsed(record) {
        // Inserts the nonce or nothing (insertNonceIfAbsent): whether it inserted is whether it was unused.
        return (await insertNonceIfAbsent.affectedRows(db, toNonceRow(record))) > 0n;
      },
      async purgeExpired(before, limit) {
        return deleteBatch(db, 'nonces', ['tenant_id', 'nonce'], limit, sql<SqlBool>`expires_at <= ${before}`);
      },
    },

    tenantSigningKeys: {
      async get(tenantId, purpose) {
        return findOwnedBy(db, 'tenant_signing_keys', tenantId, 'purpose', purpose, toTenantSigningKey);
      },
      async insertIfAbsent(record) {
        // Insert-or-nothing, then read: whichever server's insert won, every racer reads the same row.
        await db
          .insertInto('tenant_signing_keys')
          .values(toTenantSigningKeyRow(record))
          .onConflict((oc) => oc.columns(['tenant_id', 'purpose']).doNothing())
          .execute();
        const row = await db
          .selectFrom('tenant_signing_keys')
          .selectAll()
          .where('tenant_id', '=', record.tenantId)
          .where('purpose', '=', record.purpose)
          .executeTakeFirstOrThrow();
        return toTenantSigningKey(row);
      },
      async rotate(tenantId, purpose, expectedKeyId, next) {
        // One compare-and-set on the key that signs: of two rotations at once, one changes the row.
        const result = await db
          .updateTable('tenant_signing_keys')
          .set({ key_id: next.keyId, previous_key_id: expectedKeyId, previous_until: next.previousUntil, created_at: next.rotatedAt })
          .where('tenant_id', '=', tenantId)
          .where('purpose', '=', purpose)
          .where('key_id', '=', expectedKeyId)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return undefined;
        return findOwnedBy(db, 'tenant_signing_keys', tenantId, 'purpose', purpose, toTenantSigningKey);
      },
    },
  };
}
