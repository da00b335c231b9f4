// Presentation sessions on Kysely (ports.ts: PresentationSessionRepository; docs/verification.md
// "Presentation sessions"): the row type, its mapping and the repository. Migration
// 0029_presentation_sessions creates the table.

import type { PresentationResult, PresentationSession, Repositories } from '@vellum/core';
import { type Insertable, type Selectable, type SqlBool, sql } from 'kysely';
import type { Executor } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { findOwned } from './queries.ts';
import { deleteBatch } from './retention.table.ts';

export interface PresentationSessionsTable {
  id: string;
  tenant_id: string;
  application_id: string;
  client_id: string;
  response_mode: string;
  redirect_uri: string | null;
  state: string;
  nonce: string;
  /** JSON text of the DCQL query. */
  dcql_query: string;
  /** JSON text of the ephemeral public JWK (direct_post.jwt). */
  encryption_jwk: string | null;
  /** The private half, sealed; null once the session ended or expired. */
  sealed_key: string | null;
  status: string;
  /** JSON text of the result, once answered. */
  result: string | null;
  response_code_digest: string | null;
  expires_at: string;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Maps a stored row to the domain type. */
export function toPresentationSession(row: Selectable<PresentationSessionsTable>): PresentationSession {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    applicationId: row.application_id,
    clientId: row.client_id,
    responseMode: row.response_mode as PresentationSession['responseMode'],
    ...(row.redirect_uri !== null ? { redirectUri: row.redirect_uri } : {}),
    state: row.state,
    nonce: row.nonce,
    dcqlQuery: JSON.parse(row.dcql_query) as Record<string, unknown>,
    ...(row.encryption_jwk !== null ? { encryptionJwk: JSON.parse(row.encryption_jwk) as Record<string, unknown> } : {}),
    ...(row.sealed_key !== null ? { sealedKey: row.sealed_key } : {}),
    status: row.status as PresentationSession['status'],
    ...(row.result !== null ? { result: JSON.parse(row.result) as PresentationResult } : {}),
    ...(row.response_code_digest !== null ? { responseCodeDigest: row.response_code_digest } : {}),
    expiresAt: row.expires_at,
    ...(row.completed_at !== null ? { completedAt: row.completed_at } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a domain session to the row that stores it. */
export function toPresentationSessionRow(s: PresentationSession): Insertable<PresentationSessionsTable> {
  return {
    id: s.id,
    tenant_id: s.tenantId,
    application_id: s.applicationId,
    client_id: s.clientId,
    response_mode: s.responseMode,
    redirect_uri: s.redirectUri ?? null,
    state: s.state,
    nonce: s.nonce,
    dcql_query: JSON.stringify(s.dcqlQuery),
    encryption_jwk: s.encryptionJwk ? JSON.stringify(s.encryptionJwk) : null,
    sealed_key: s.sealedKey ?? null,
    status: s.status,
    result: s.result ? JSON.stringify(s.result) : null,
    response_code_digest: s.responseCodeDigest ?? null,
    expires_at: s.expiresAt,
    completed_at: s.completedAt ?? null,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** Builds the presentation session repository on `db`, a Kysely instance or a transaction. */
export function presentationSessionRepositoriesOn(db: Executor): Pick<Repositories, 'presentationSessions'> {
  return {
    presentationSessions: {
      async insert(session) {
        await refusingDuplicates(db.insertInto('presentation_sessions').values(toPresentationSessionRow(session)).execute(), 'Presentation session id exists');
      },
      async get(tenantId, id) {
        return findOwned(db, 'presentation_sessions', tenantId, id, toPresentationSession);
      },
      async complete(tenantId, id, completion, now) {
        // One conditional write: of racing answers (in one process or several sharing the database) one matches.
        const row = await db
          .updateTable('presentation_sessions')
          .set({
            status: completion.status,
            result: JSON.stringify(completion.result),
            response_code_digest: completion.responseCodeDigest ?? null,
            completed_at: completion.completedAt,
            updated_at: completion.completedAt,
            sealed_key: null,
          })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .where('expires_at', '>', now)
          .returningAll()
          .executeTakeFirst();
        return row ? toPresentationSession(row) : undefined;
      },
      async eraseExpiredKeys(now, limit) {
        const due = sql<SqlBool>`sealed_key is not null and expires_at <= ${now}`;
        const picked = db.selectFrom('presentation_sessions').select('id').where(due).limit(limit);
        const result = await db.updateTable('presentation_sessions').set({ sealed_key: null }).where('id', 'in', picked).where(due).executeTakeFirst();
        return Number(result.numUpdatedRows);
      },
      async purgeExpired(before, limit) {
        return deleteBatch(db, 'presentation_sessions', ['id'], limit, sql<SqlBool>`expires_at <= ${before}`);
      },
    },
  };
}
