// Authorizations (runs of the Authorization Code flow) on Kysely (ports.ts: AuthorizationRepository):
// the row type, its mapping and the repository. Migration 0015_authorizations creates the table.
// The single-use operations are one statement each (a conditional UPDATE … RETURNING), so of racing
// callers, on one server or several sharing the database, exactly one moves an authorization on.

import type { AuthorizationRecord, AuthorizationStage, Repositories } from '@vellum/core';
import { type ColumnType, type Insertable, type Selectable, type SqlBool, sql } from 'kysely';
import { compiledOnce } from './compiled-once.ts';
import { type Executor, fromSqlBoolean, type Seq, type SqlBoolean, type SqlDialectKind, toSqlBoolean } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { deleteBatch } from './retention.table.ts';
import { atomically, compiledFindOwned, compiledFindOwnedBy } from './queries.ts';
import { claimsAfterIssuing, eraseExpiredClaimsOf } from './claims-at-rest.ts';
import { markedIds, NO_CLAIMS, storedClaims } from './users-offers.table.ts';

export interface AuthorizationsTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  issuer: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  /** JSON array of configuration ids, in the order asked for. */
  configuration_ids: string;
  by_authorization_details: SqlBoolean;
  offer_id: string | null;
  dpop_jkt: string | null;
  /** JSON object of parameter name to value. */
  forwarded_parameters: string;
  stage: string;
  /** SHA-256 of the current stage's handle; unique per tenant, null when no handle is open. */
  handle_digest: string | null;
  expires_at: string;
  provider_nonce: string | null;
  provider_code_verifier: string | null;
  user_id: string | null;
  /** Sealed by the core (AuthorizationRecord.sealedClaims); '' when there are none or they were erased (as offers.claims). */
  claims: string;
  /**
   * The configurations the authorization's access token has issued, each as `|id|` with the id
   * URI-encoded (so it holds no `|`), in the order issued; as offers.issued_configuration_ids.
   */
  issued_configuration_ids: ColumnType<string, string | undefined, string>;
  created_at: string;
}

/** How one configuration id is marked in issued_configuration_ids. */
const markOf = (configurationId: string) => `|${encodeURIComponent(configurationId)}|`;

/** A LIKE pattern matching `text` anywhere, its wildcards escaped (the queries say `escape '\'`). */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const issuedIds = (column: string): string[] => markedIds(column).map(decodeURIComponent);

/** Maps a stored authorization row to the domain type. */
export function toAuthorization(row: Selectable<AuthorizationsTable>): AuthorizationRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    issuer: row.issuer,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    ...(row.state !== null ? { state: row.state } : {}),
    codeChallenge: row.code_challenge,
    configurationIds: JSON.parse(row.configuration_ids) as string[],
    byAuthorizationDetails: fromSqlBoolean(row.by_authorization_details),
    ...(row.offer_id !== null ? { offerId: row.offer_id } : {}),
    ...(row.dpop_jkt !== null ? { dpopJkt: row.dpop_jkt } : {}),
    forwardedParameters: JSON.parse(row.forwarded_parameters) as Record<string, string>,
    stage: row.stage as AuthorizationStage,
    ...(row.handle_digest !== null ? { handleDigest: row.handle_digest } : {}),
    expiresAt: row.expires_at,
    ...(row.provider_nonce !== null ? { providerNonce: row.provider_nonce } : {}),
    ...(row.provider_code_verifier !== null ? { providerCodeVerifier: row.provider_code_verifier } : {}),
    ...(row.user_id !== null ? { userId: row.user_id } : {}),
    ...storedClaims(row.claims),
    issuedConfigurationIds: issuedIds(row.issued_configuration_ids),
    createdAt: row.created_at,
  };
}

/** Maps an authorization to the row that stores it. */
export function toAuthorizationRow(a: AuthorizationRecord, kind: SqlDialectKind): Insertable<AuthorizationsTable> {
  return {
    id: a.id,
    tenant_id: a.tenantId,
    issuer: a.issuer,
    client_id: a.clientId,
    redirect_uri: a.redirectUri,
    state: a.state ?? null,
    code_challenge: a.codeChallenge,
    configuration_ids: JSON.stringify(a.configurationIds),
    by_authorization_details: toSqlBoolean(kind, a.byAuthorizationDetails),
    offer_id: a.offerId ?? null,
    dpop_jkt: a.dpopJkt ?? null,
    forwarded_parameters: JSON.stringify(a.forwardedParameters),
    stage: a.stage,
    handle_digest: a.handleDigest ?? null,
    expires_at: a.expiresAt,
    provider_nonce: a.providerNonce ?? null,
    provider_code_verifier: a.providerCodeVerifier ?? null,
    user_id: a.userId ?? null,
    claims: a.sealedClaims ?? NO_CLAIMS,
    issued_configuration_ids: a.issuedConfigurationIds.map(markOf).join(''),
    created_at: a.createdAt,
  };
}

const byId = compiledFindOwned('authorizations.get', 'authorizations');

const byHandle = compiledFindOwnedBy('authorizations.findByHandle', 'authorizations', 'handle_digest');

interface AdvanceParams {
  tenantId: string;
  id: string;
  from: string;
  handleDigest: string;
  now: string;
  stage: string;
  /** Null: no handle is open at the new stage. */
  nextHandleDigest: string | null;
  expiresAt: string;
  /** Null for each of these: keep the stored value. */
  providerNonce: string | null;
  providerCodeVerifier: string | null;
  userId: string | null;
  claims: string | null;
}

/**
 * One statement decides and writes: the row lock (PostgreSQL) or the write lock (SQLite) orders
 * racing callers, and the second sees the stage and handle the first left, which no longer match.
 */
const advanceUpdate = compiledOnce('authorizations.advance', (db, p: AdvanceParams) =>
  db
    .updateTable('authorizations')
    .set({
      stage: p.stage,
      handle_digest: p.nextHandleDigest,
      expires_at: p.expiresAt,
      provider_nonce: sql<string | null>`coalesce(${p.providerNonce}, provider_nonce)`,
      provider_code_verifier: sql<string | null>`coalesce(${p.providerCodeVerifier}, provider_code_verifier)`,
      user_id: sql<string | null>`coalesce(${p.userId}, user_id)`,
      claims: sql<string>`coalesce(${p.claims}, claims)`,
    })
    .where('tenant_id', '=', p.tenantId)
    .where('id', '=', p.id)
    .where('stage', '=', p.from)
    .where('handle_digest', '=', p.handleDigest)
    .where('expires_at', '>', p.now)
    .returningAll(),
);

// As offers.markIssued: one conditional update appends the mark unless it is there already, and
// erases the claims with the token's last credential.
const markIssuedUpdate = compiledOnce('authorizations.markIssued', (db, p: { tenantId: string; id: string; mark: string; pattern: string; granted: number }) =>
  db
    .updateTable('authorizations')
    .set({
      issued_configuration_ids: sql<string>`issued_configuration_ids || ${p.mark}`,
      claims: claimsAfterIssuing(p.granted),
    })
    .where('tenant_id', '=', p.tenantId)
    .where('id', '=', p.id)
    .where(sql<SqlBool>`issued_configuration_ids not like ${p.pattern} escape '\\'`),
);

const handleTaken = 'The tenant already has an authorization with this handle';

/** Builds the authorization repository on `db`, a Kysely instance or a transaction, for the given dialect. */
export function authorizationRepositoriesOn(db: Executor, kind: SqlDialectKind): Pick<Repositories, 'authorizations'> {
  return {
    authorizations: {
      async insert(record) {
        await refusingDuplicates(db.insertInto('authorizations').values(toAuthorizationRow(record, kind)).execute(), (violated) =>
          violated.includes('handle_digest') ? handleTaken : 'Authorization id exists',
        );
      },
      async get(tenantId, id) {
        const row = await byId.first(db, { tenantId, id });
        return row && toAuthorization(row);
      },
      async findByHandle(tenantId, handleDigest) {
        const row = await byHandle.first(db, { tenantId, value: handleDigest });
        return row && toAuthorization(row);
      },
      async advance(tenantId, id, from, handleDigest, now, to) {
        const params: AdvanceParams = {
          tenantId,
          id,
          from,
          handleDigest,
          now,
          stage: to.stage,
          nextHandleDigest: to.handleDigest ?? null,
          expiresAt: to.expiresAt,
          providerNonce: to.providerNonce ?? null,
          providerCodeVerifier: to.providerCodeVerifier ?? null,
          userId: to.userId ?? null,
          claims: to.sealedClaims ?? null,
        };
        // One statement. On SQLite it runs as a transaction so that a grouped commit takes it in
        // with the others (ImmediateSqliteDialect), as offers.redeem does.
        const update = (executor: Executor) => advanceUpdate.first(executor, params);
        const row = await refusingDuplicates(kind === 'sqlite' ? atomically(db, update) : update(db), handleTaken);
        return row && toAuthorization(row);
      },
      async markIssued(tenantId, id, configurationId, granted) {
        const mark = markOf(configurationId);
        return (await markIssuedUpdate.affectedRows(db, { tenantId, id, mark, pattern: containing(mark), granted })) > 0n;
      },
      async eraseExpiredClaims(now, limit) {
        return eraseExpiredClaimsOf(db, 'authorizations', now, limit);
      },
      async purgeExpired(before, limit) {
        return deleteBatch(db, 'authorizations', ['seq'], limit, sql<SqlBool>`expires_at <= ${before}`);
      },
    },
  };
}
