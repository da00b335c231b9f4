// The Store contract for the tenant's authentication provider, OpenID settings and claim sources
// (authentication/model.ts: AuthenticationProviderRepository, OpenIdSettingsRepository;
// claim-sources/model.ts: ClaimSourceRepository), run inside describeStoreContract against every adapter.
import type { AuthenticationProvider, ClaimSource, OpenIdSettings, Store, Tenant } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectWriteRolledBack, inserting, iso, tenantMakers, unique, uuid } from './store-contract-support.ts';

/** A provider of `tenantId` with every field set. */
export function makeAuthenticationProvider(tenantId: string, over: Partial<AuthenticationProvider> = {}): AuthenticationProvider {
  const now = iso();
  return {
    id: uuid(),
    tenantId,
    url: `https://${unique('idp')}.example.com`,
    clientId: 'vellum',
    sealedClientSecret: 'sealed-secret',
    scope: 'openid profile email',
    tokenEndpointAuthMethod: 'client_secret_basic',
    staticRequestParameters: { prompt: 'login', ui_locales: 'en' },
    forwardedRequestParameters: ['login_hint'],
    claimsToPersist: ['email', 'given_name'],
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

/** A claim source of `tenantId` with an API key. */
export function makeClaimSource(tenantId: string, over: Partial<ClaimSource> = {}): ClaimSource {
  const now = iso();
  return {
    id: uuid(),
    tenantId,
    name: 'CRM',
    url: `https://${unique('crm')}.example.com/claims`,
    requestMethod: 'GET',
    requestParameters: { email: { mapFrom: 'claims.email' }, tier: { defaultValue: 3 }, flag: { defaultValue: false } },
    authorization: { type: 'api-key', sealedValue: 'sealed-key' },
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

/** A repository of rows a tenant owns under an id, which `update` replaces whole but for tenant, id and creation time. */
interface Replaceable<T> {
  get(tenantId: string, id: string): Promise<T | undefined>;
  update(value: T): Promise<boolean>;
  delete(tenantId: string, id: string): Promise<boolean>;
}

/**
 * Replaces `stored` (of `owner`) by `replaced`, which only its owner may do and which keeps the
 * creation time, then deletes it, which again only its owner may do, once.
 */
async function expectReplacedThenDeleted<T extends { tenantId: string; id: string; createdAt: string }>(
  repo: Replaceable<T>,
  [owner, other]: [Tenant, Tenant],
  stored: T,
  replaced: T,
): Promise<void> {
  expect(await repo.update({ ...replaced, tenantId: other.id })).toBe(false);
  expect(await repo.update(replaced)).toBe(true);
  expect(await repo.get(owner.id, stored.id)).toEqual({ ...replaced, createdAt: stored.createdAt });
  expect(await repo.update({ ...replaced, id: uuid() })).toBe(false);
  expect(await repo.delete(other.id, stored.id)).toBe(false);
  expect(await repo.delete(owner.id, stored.id)).toBe(true);
  expect(await repo.delete(owner.id, stored.id)).toBe(false);
  expect(await repo.get(owner.id, stored.id)).toBeUndefined();
}

/** The authentication part of the Store contract; `store` is read when the tests run. */
export function describeAuthenticationContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const provider = inserting(makeAuthenticationProvider, (p) => store().authenticationProviders.insert(p));
  const claimSource = inserting(makeClaimSource, (c) => store().claimSources.insert(c));

  describe('authentication providers', () => {
    it('stores one per tenant, finds it by id and as the current one, within the tenant only', async () => {
      const [a, b] = await tenants();
      expect(await store().authenticationProviders.current(a.id)).toBeUndefined();
      const p = await provider(a.id);
      expect(await store().authenticationProviders.get(a.id, p.id)).toEqual(p);
      expect(await store().authenticationProviders.current(a.id)).toEqual(p);
      expect(await store().authenticationProviders.get(b.id, p.id)).toBeUndefined();
      expect(await store().authenticationProviders.current(b.id)).toBeUndefined();
      // Another tenant has its own.
      const q = await provider(b.id);
      expect(await store().authenticationProviders.current(b.id)).toEqual(q);
    });

    it('refuses a second provider for the tenant, and a taken id, with Conflict', async () => {
      const [a, b] = await tenants();
      const p = await provider(a.id);
      await expectDomainError(store().authenticationProviders.insert(makeAuthenticationProvider(a.id)), 'Conflict');
      await expectDomainError(store().authenticationProviders.insert(makeAuthenticationProvider(b.id, { id: p.id })), 'Conflict');
      expect(await store().authenticationProviders.current(a.id)).toEqual(p);
    });

    it('lets only one of two racing creates through', async () => {
      const a = await tenant();
      const results = await Promise.allSettled(
        [makeAuthenticationProvider(a.id), makeAuthenticationProvider(a.id)].map((p) => store().authenticationProviders.insert(p)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'Conflict' } });
    });

    it('replaces every field but tenant, id and creation time; deletes within the tenant only', async () => {
      const [a, b] = await tenants();
      const p = await provider(a.id);
      const replaced: AuthenticationProvider = {
        ...p,
        url: 'https://other.example.com/realms/x',
        clientId: 'other',
        sealedClientSecret: 'sealed-2',
        scope: 'openid',
        tokenEndpointAuthMethod: 'client_secret_post',
        staticRequestParameters: {},
        forwardedRequestParameters: [],
        claimsToPersist: ['sub'],
        createdAt: '2000-01-01T00:00:00.000Z',
        updatedAt: iso(),
      };
      await expectReplacedThenDeleted(store().authenticationProviders, [a, b], p, replaced);
      expect(await store().authenticationProviders.current(a.id)).toBeUndefined();
      // Once deleted, the tenant may add a provider again.
      await store().authenticationProviders.insert(makeAuthenticationProvider(a.id));
    });

    it('rolls back with the transaction', async () => {
      const a = await tenant();
      await expectWriteRolledBack(store(), 'boom', {
        write: (tx) => tx.authenticationProviders.insert(makeAuthenticationProvider(a.id)),
        read: (r) => r.authenticationProviders.current(a.id),
      });
    });
  });

  describe('OpenID settings', () => {
    it('has none at first, then keeps the last put whole, per tenant', async () => {
      const [a, b] = await tenants();
      expect(await store().openIdSettings.get(a.id)).toBeUndefined();
      const first: OpenIdSettings = {
        tenantId: a.id,
        interactionHook: { url: 'https://hook.example.com/step', claims: ['email'], sessionTimeoutInSec: 600, disabled: false, sealedSecret: 'sealed-hook' },
        updatedAt: iso(),
      };
      await store().openIdSettings.put(first);
      expect(await store().openIdSettings.get(a.id)).toEqual(first);
      expect(await store().openIdSettings.get(b.id)).toBeUndefined();
      const second: OpenIdSettings = { tenantId: a.id, updatedAt: iso() };
      await store().openIdSettings.put(second);
      expect(await store().openIdSettings.get(a.id)).toEqual(second);
    });

    it('survives two puts at once with one of them whole', async () => {
      const a = await tenant();
      const hook = (url: string): OpenIdSettings => ({
        tenantId: a.id,
        interactionHook: { url, claims: [], sessionTimeoutInSec: 60, disabled: true, sealedSecret: url },
        updatedAt: iso(),
      });
      const [x, y] = [hook('https://x.example.com/'), hook('https://y.example.com/')];
      await Promise.all([store().openIdSettings.put(x), store().openIdSettings.put(y)]);
      expect([x, y]).toContainEqual(await store().openIdSettings.get(a.id));
    });
  });

  describe('claim sources', () => {
    it('stores, finds, lists in creation order and pages, within the tenant only', async () => {
      const [a, b] = await tenants();
      const made = [
        makeClaimSource(a.id),
        makeClaimSource(a.id, {
          requestMethod: 'POST',
          authorization: {
            type: 'oauth-client-credentials',
            tokenEndpoint: 'https://auth.example.com/token',
            clientId: 'c',
            sealedClientSecret: 's',
            audience: 'crm',
            tokenEndpointAuthMethod: 'client_secret_post',
          },
        }),
        makeClaimSource(a.id, { requestParameters: {} }),
      ];
      for (const s of made) await store().claimSources.insert(s);
      await store().claimSources.insert(makeClaimSource(b.id));
      expect(await store().claimSources.get(a.id, made[1]!.id)).toEqual(made[1]);
      expect(await store().claimSources.get(b.id, made[1]!.id)).toBeUndefined();
      const first = await store().claimSources.list(a.id, { limit: 2 });
      expect(first.items).toEqual(made.slice(0, 2));
      const rest = await store().claimSources.list(a.id, { limit: 2, after: first.last as number });
      expect(rest.items).toEqual(made.slice(2));
      expect((await store().claimSources.list(a.id, { limit: 2, after: rest.last as number })).items).toEqual([]);
      await expectDomainError(store().claimSources.insert(makeClaimSource(b.id, { id: made[0]!.id })), 'Conflict');
    });

    it('replaces every field but tenant, id and creation time; deletes within the tenant only', async () => {
      const [a, b] = await tenants();
      const s = await claimSource(a.id);
      const replaced: ClaimSource = {
        ...s,
        name: 'Other',
        url: 'https://other.example.com/x',
        requestMethod: 'POST',
        requestParameters: { id: { mapFrom: 'authenticationProvider.subjectId', defaultValue: 'none' } },
        authorization: {
          type: 'oauth-client-credentials',
          tokenEndpoint: 'https://auth.example.com/token',
          clientId: 'c',
          sealedClientSecret: 's',
          tokenEndpointAuthMethod: 'client_secret_basic',
        },
        createdAt: '2000-01-01T00:00:00.000Z',
        updatedAt: iso(),
      };
      await expectReplacedThenDeleted(store().claimSources, [a, b], s, replaced);
    });

    it('rolls back with the transaction', async () => {
      const a = await tenant();
      const s = makeClaimSource(a.id);
      await expectWriteRolledBack(store(), 'boom', { write: (tx) => tx.claimSources.insert(s), read: (r) => r.claimSources.get(a.id, s.id) });
    });
  });
}
