// The presentation session repository of the memory store (ports.ts: PresentationSessionRepository;
// docs/verification.md "Presentation sessions").
import { conflict, type PresentationSession, type Repositories } from '@vellum/core';
import { copy, ownedRow, ownedValue, type Row } from './rows.ts';

/** By id (a UUID, unique across tenants as the SQL store's primary key is). */
export type PresentationSessionState = Map<string, Row<PresentationSession>>;

export const emptyPresentationSessionState = (): PresentationSessionState => new Map();

/** The presentation session repository over the state `get` returns; `next` hands out creation-order numbers. */
export function presentationSessionRepositories(get: () => PresentationSessionState, next: () => number): Pick<Repositories, 'presentationSessions'> {
  return {
    presentationSessions: {
      async insert(session) {
        const s = get();
        if (s.has(session.id)) throw conflict('Presentation session id exists');
        s.set(session.id, { seq: next(), value: copy(session) });
      },
      async get(tenantId, id) {
        return ownedValue(get(), tenantId, id);
      },
      async complete(tenantId, id, completion, now) {
        const r = ownedRow(get(), tenantId, id);
        // Checked and written in one step: nothing runs in between in one process.
        if (!r || r.value.status !== 'pending' || r.value.expiresAt <= now) return undefined;
        const { sealedKey: _erased, ...rest } = r.value;
        r.value = {
          ...rest,
          status: completion.status,
          result: copy(completion.result),
          ...(completion.responseCodeDigest !== undefined ? { responseCodeDigest: completion.responseCodeDigest } : {}),
          completedAt: completion.completedAt,
          updatedAt: completion.completedAt,
        };
        return copy(r.value);
      },
      async eraseExpiredKeys(now, limit) {
        let erased = 0;
        for (const r of get().values()) {
          if (erased >= limit) break;
          if (r.value.sealedKey === undefined || r.value.expiresAt > now) continue;
          const { sealedKey: _erased, ...rest } = r.value;
          r.value = rest;
          erased += 1;
        }
        return erased;
      },
      async purgeExpired(before, limit) {
        const s = get();
        let purged = 0;
        for (const [id, r] of s) {
          if (purged >= limit) break;
          if (r.value.expiresAt > before) continue;
          s.delete(id);
          purged += 1;
        }
        return purged;
      },
    },
  };
}
