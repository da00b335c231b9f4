// The tenant revokes refresh tokens (docs/refresh-tokens.md): every family of a user, or the family
// that issued one credential. A revoked family refreshes nothing more, and the access tokens already
// given under it issue nothing more; credentials already issued are not touched (their status is).

import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import { adminOperations } from '../shared/admin-resource.ts';
import { notFound, validationError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { Clock } from '../shared/ports.ts';
import type { RequestContext } from '../tenancy/model.ts';

export interface RefreshTokenServiceDeps {
  store: Store;
  clock: Clock;
  events: EventRecorder;
}

/** What a revocation did: how many families it revoked (families revoked before are not counted). */
export interface RefreshRevocation {
  revokedFamilies: number;
}

export interface RefreshTokenService {
  /** `POST /v1/users/{id}/refresh-tokens/revoke` (permission `users`): every family of the user; 404 for a user the tenant does not have. */
  revokeForUser(ctx: RequestContext, userId: string): Promise<RefreshRevocation>;
  /**
   * `POST /v2/credentials/{credentialId}/refresh-tokens/revoke` (permission `credentials`): the family
   * the credential was issued under, or started from; 404 for a credential the tenant did not issue.
   */
  revokeForCredential(ctx: RequestContext, credentialId: string): Promise<RefreshRevocation>;
}

const uuidParam = (param: string, value: string, what: string) => {
  if (!isUuid(value)) throw validationError([{ value, msg: `A ${what} id (UUID)`, param, location: 'params' }]);
  return value.toLowerCase();
};

export function createRefreshTokenService(deps: RefreshTokenServiceDeps): RefreshTokenService {
  const { store, clock, events } = deps;
  const users = adminOperations(events, 'users');
  const credentials = adminOperations(events, 'credentials');
  const meta = (r: RefreshRevocation) => ({ revokedFamilies: r.revokedFamilies });

  return {
    revokeForUser(ctx, userId) {
      return users.run(ctx, 'USER_REFRESH_TOKENS_REVOKE', { input: { userId }, meta }, async () => {
        const id = uuidParam('id', userId, 'user');
        if (!(await store.users.get(ctx.tenant.id, id))) throw notFound('The tenant has no such user');
        const now = clock.now().toISOString();
        return { revokedFamilies: await store.refreshTokens.revokeFamilies(ctx.tenant.id, { userId: id }, now) };
      });
    },
    revokeForCredential(ctx, credentialId) {
      return credentials.run(ctx, 'CREDENTIAL_REFRESH_TOKENS_REVOKE', { input: { credentialId }, meta }, async () => {
        const id = uuidParam('credentialId', credentialId, 'credential');
        const credential = await store.issuedCredentials.get(ctx.tenant.id, id);
        if (!credential) throw notFound('The tenant issued no such credential');
        if (credential.offerId === undefined) return { revokedFamilies: 0 };
        const now = clock.now().toISOString();
        // A credential issued under a refreshed access token names the refresh token issued with it;
        // one issued under the first token names the offer or authorization its family started from.
        const refreshed = await store.refreshTokens.get(ctx.tenant.id, credential.offerId);
        const filter = refreshed ? { familyId: refreshed.familyId } : { grantId: credential.offerId };
        return { revokedFamilies: await store.refreshTokens.revokeFamilies(ctx.tenant.id, filter, now) };
      });
    },
  };
}
