// The memory store's repositories for what the Authorization Code flow runs on (docs/authentication.md): the
// tenant's authentication provider, its OpenID settings, and claim sources.
import { type AuthenticationProvider, type ClaimSource, conflict, type OpenIdSettings, type Repositories } from '@vellum/core';
import { copy, deleteOwned, ownedById, ownedRow, type Row } from './rows.ts';

export interface AuthenticationState {
  /** By id; at most one per tenant (the SQL store's unique index on tenant_id). */
  providers: Map<string, AuthenticationProvider>;
  /** By tenant id. */
  openIdSettings: Map<string, OpenIdSettings>;
  /** By id, in creation order. */
  claimSources: Map<string, Row<ClaimSource>>;
}

export const emptyAuthenticationState = (): AuthenticationState => ({ providers: new Map(), openIdSettings: new Map(), claimSources: new Map() });

/** The three repositories over the state `get` returns; `next` hands out creation-order numbers. */
export function authenticationRepositories(
  get: () => AuthenticationState,
  next: () => number,
): Pick<Repositories, 'authenticationProviders' | 'openIdSettings' | 'claimSources'> {
  const providerOf = (tenantId: string, id: string) => {
    const p = get().providers.get(id);
    return p && p.tenantId === tenantId ? p : undefined;
  };
  const sourceOf = (tenantId: string, id: string) => ownedRow(get().claimSources, tenantId, id);

  return {
    authenticationProviders: {
      async insert(provider) {
        const s = get();
        if (s.providers.has(provider.id)) throw conflict('Authentication provider id exists');
        if ([...s.providers.values()].some((p) => p.tenantId === provider.tenantId)) throw conflict('The tenant already has an authentication provider');
        s.providers.set(provider.id, copy(provider));
      },
      async get(tenantId, id) {
        const p = providerOf(tenantId, id);
        return p && copy(p);
      },
      async current(tenantId) {
        const p = [...get().providers.values()].find((x) => x.tenantId === tenantId);
        return p && copy(p);
      },
      async update(provider) {
        const existing = providerOf(provider.tenantId, provider.id);
        if (!existing) return false;
        get().providers.set(provider.id, { ...copy(provider), createdAt: existing.createdAt });
        return true;
      },
      async delete(tenantId, id) {
        return providerOf(tenantId, id) !== undefined && get().providers.delete(id);
      },
    },

    openIdSettings: {
      async get(tenantId) {
        const settings = get().openIdSettings.get(tenantId);
        return settings && copy(settings);
      },
      async put(settings) {
        get().openIdSettings.set(settings.tenantId, copy(settings));
      },
    },

    claimSources: {
      ...ownedById(() => get().claimSources, next, 'Claim source id exists'),
      async update(source) {
        const r = sourceOf(source.tenantId, source.id);
        if (!r) return false;
        r.value = { ...copy(source), createdAt: r.value.createdAt };
        return true;
      },
      async delete(tenantId, id) {
        return deleteOwned(get().claimSources, tenantId, id);
      },
    },
  };
}
