import type { EventRecorder } from '../events/recorder.ts';
import { issuerOf } from '../metadata/service.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids, SecretBox } from '../shared/ports.ts';
import { adminOperations, requireFound } from '../shared/admin-resource.ts';
import { conflict, DomainError, notFound } from '../shared/errors.ts';
import type { Page, PageQuery } from '../shared/pagination.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { AuthenticationProvider, InteractionHook, OpenIdSettings, ProviderAuthMethod } from './model.ts';
import type { ProviderSettings } from './ports.ts';
import { checkOpenIdSettingsInput, checkPathId, checkProviderInput } from './rules.ts';

export interface AuthenticationDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
  /** Seals the provider's client secret and the interaction hook's secret under the master key. */
  secrets: SecretBox;
}

/** The path the provider sends the browser back to, under the issuer (docs/authentication.md; the flow's AUTHENTICATION_CALLBACK_PATH). */
const CALLBACK_PATH = '/v1/oauth/authentication/callback';

/** The authentication provider as the API shows it: never its client secret. */
export interface AuthenticationProviderView {
  id: string;
  url: string;
  clientId: string;
  scope: string;
  tokenEndpointAuthMethod: ProviderAuthMethod;
  staticRequestParameters: Record<string, string>;
  forwardedRequestParameters: string[];
  claimsToPersist: string[];
  /** Where the provider must send the browser back: register it at the provider. */
  redirectUrl: string;
  createdAt: string;
  updatedAt: string;
}

export type ProviderListQuery = PageQuery;

/**
 * `/v1/users/authentication-providers` (docs/authentication.md): the tenant's one OpenID Connect provider.
 * `basePath` is where the API is mounted; the redirect URL carries it.
 */
export interface AuthenticationProviderService {
  /** Adds the tenant's provider; Conflict when it has one. */
  create(ctx: RequestContext, input: unknown, basePath?: string): Promise<AuthenticationProviderView>;
  /** A page of at most one provider. */
  list(ctx: RequestContext, query: ProviderListQuery, basePath?: string): Promise<Page<AuthenticationProviderView>>;
  get(ctx: RequestContext, id: string, basePath?: string): Promise<AuthenticationProviderView>;
  /** Replaces the provider (PUT); a missing `clientSecret` keeps the stored one. */
  update(ctx: RequestContext, id: string, input: unknown, basePath?: string): Promise<AuthenticationProviderView>;
  delete(ctx: RequestContext, id: string): Promise<void>;
}

/** The SecretBox context the provider's client secret is sealed under. */
export const providerSecretContext = (tenantId: string, id: string) => `authentication-provider:${tenantId}:${id}`;
/** The SecretBox context the interaction hook's secret is sealed under. */
export const interactionHookSecretContext = (tenantId: string) => `interaction-hook:${tenantId}`;

/** Renders a stored provider as the API shows it. */
export function authenticationProviderView(p: AuthenticationProvider, issuer: string): AuthenticationProviderView {
  return {
    id: p.id,
    url: p.url,
    clientId: p.clientId,
    scope: p.scope,
    tokenEndpointAuthMethod: p.tokenEndpointAuthMethod,
    staticRequestParameters: { ...p.staticRequestParameters },
    forwardedRequestParameters: [...p.forwardedRequestParameters],
    claimsToPersist: [...p.claimsToPersist],
    redirectUrl: `${issuer}${CALLBACK_PATH}`,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

/** The provider as the identity provider adapter needs it, its client secret opened; undefined when the secret cannot be opened. */
export function providerSettings(provider: AuthenticationProvider, secrets: SecretBox): ProviderSettings | undefined {
  const clientSecret = secrets.open(provider.sealedClientSecret, providerSecretContext(provider.tenantId, provider.id));
  if (clientSecret === undefined) return undefined;
  const { sealedClientSecret: _sealed, ...settings } = provider;
  return { ...settings, clientSecret };
}

/** The tenant's interaction hook with its secret opened; undefined when there is none or the secret cannot be opened. */
export function openInteractionHook(settings: OpenIdSettings | undefined, secrets: SecretBox): (InteractionHook & { secret: string }) | undefined {
  const hook = settings?.interactionHook;
  if (!settings || !hook) return undefined;
  const secret = secrets.open(hook.sealedSecret, interactionHookSecretContext(settings.tenantId));
  return secret === undefined ? undefined : { ...hook, claims: [...hook.claims], secret };
}

const noProvider = () => notFound('The tenant has no such authentication provider');

/** Builds the authentication provider use cases. Permission `issuance-setup`. */
export function createAuthenticationProviderService(deps: AuthenticationDeps): AuthenticationProviderService {
  const { store, clock, ids, events, secrets } = deps;

  const { run, list } = adminOperations(events, 'issuance-setup');
  const meta = (v: AuthenticationProviderView) => ({ id: v.id, tokenEndpointAuthMethod: v.tokenEndpointAuthMethod });

  const find = async (ctx: RequestContext, id: string) =>
    requireFound(store.authenticationProviders.get(ctx.tenant.id, checkPathId(id, 'An authentication provider')), noProvider);

  return {
    create(ctx, input, basePath) {
      return run(ctx, 'USER_AUTHENTICATION_PROVIDER_CREATE', { input, meta }, async () => {
        const { clientSecret, ...checked } = checkProviderInput(input, true);
        if (await store.authenticationProviders.current(ctx.tenant.id)) {
          throw conflict('The tenant already has an authentication provider; replace it with PUT or delete it first');
        }
        const id = ids.uuid();
        const now = clock.now().toISOString();
        const provider: AuthenticationProvider = {
          id,
          tenantId: ctx.tenant.id,
          ...checked,
          sealedClientSecret: secrets.seal(clientSecret as string, providerSecretContext(ctx.tenant.id, id)),
          createdAt: now,
          updatedAt: now,
        };
        // Two creates at once: the store's one-per-tenant rule answers the second with Conflict.
        await store.authenticationProviders.insert(provider);
        return authenticationProviderView(provider, issuerOf(ctx, basePath));
      });
    },

    list(ctx, query, basePath) {
      return list(
        ctx,
        'USER_AUTHENTICATION_PROVIDER_LIST',
        query,
        async (page) => {
          const current = await store.authenticationProviders.current(ctx.tenant.id);
          // One provider at most: it sits at position 1, so its cursor ends the list.
          return { items: current && (page.after === undefined || page.after < 1) ? [current] : [], last: 1 };
        },
        (p) => authenticationProviderView(p, issuerOf(ctx, basePath)),
      );
    },

    get(ctx, id, basePath) {
      return run(ctx, 'USER_AUTHENTICATION_PROVIDER_RETRIEVE', { meta }, async () => authenticationProviderView(await find(ctx, id), issuerOf(ctx, basePath)));
    },

    update(ctx, id, input, basePath) {
      return run(ctx, 'USER_AUTHENTICATION_PROVIDER_UPDATE', { input, meta }, async () => {
        const { clientSecret, ...checked } = checkProviderInput(input, false);
        const existing = await find(ctx, id);
        const provider: AuthenticationProvider = {
          ...existing,
          ...checked,
          sealedClientSecret:
            clientSecret === undefined ? existing.sealedClientSecret : secrets.seal(clientSecret, providerSecretContext(existing.tenantId, existing.id)),
          updatedAt: clock.now().toISOString(),
        };
        // Deleted between the read and the write.
        if (!(await store.authenticationProviders.update(provider))) throw noProvider();
        return authenticationProviderView(provider, issuerOf(ctx, basePath));
      });
    },

    delete(ctx, id) {
      return run(ctx, 'USER_AUTHENTICATION_PROVIDER_DELETE', { meta: () => ({ id }) }, async () => {
        if (!(await store.authenticationProviders.delete(ctx.tenant.id, checkPathId(id, 'An authentication provider')))) throw noProvider();
      });
    },
  };
}

/** The interaction hook as the API shows it: with its secret, the tenant's own shared key (docs/authentication.md). */
export interface InteractionHookView {
  url: string;
  claims: string[];
  sessionTimeoutInSec: number;
  disabled: boolean;
  /** The HS256 key both session tokens of the hand-off are signed with. */
  secret: string;
}

/** `GET`/`PUT /v1/openid/configuration`: `{}` when nothing is configured. */
export interface OpenIdSettingsView {
  interactionHook?: InteractionHookView;
}

/** The tenant's OpenID settings (docs/authentication.md): for now, the interaction hook. */
export interface OpenIdSettingsService {
  get(ctx: RequestContext): Promise<OpenIdSettingsView>;
  /**
   * Replaces the settings. The hook's secret is made when a hook is first set and kept across
   * later PUTs; a PUT without `interactionHook` removes the hook and its secret.
   */
  update(ctx: RequestContext, input: unknown): Promise<OpenIdSettingsView>;
}

/** Builds the OpenID settings use cases. Permission `issuance-setup`. */
export function createOpenIdSettingsService(deps: AuthenticationDeps): OpenIdSettingsService {
  const { store, clock, ids, events, secrets } = deps;

  const { run } = adminOperations(events, 'issuance-setup');
  const meta = (v: OpenIdSettingsView) => ({
    interactionHook: v.interactionHook !== undefined,
    ...(v.interactionHook ? { disabled: v.interactionHook.disabled } : {}),
  });

  function view(settings: OpenIdSettings | undefined): OpenIdSettingsView {
    const hook = settings?.interactionHook;
    if (!hook) return {};
    const opened = openInteractionHook(settings, secrets);
    if (!opened) {
      throw new DomainError(
        'ServiceUnavailable',
        'The interaction hook secret cannot be read with the current master key; PUT the configuration again to make a new secret',
      );
    }
    return {
      interactionHook: {
        url: hook.url,
        claims: [...hook.claims],
        sessionTimeoutInSec: hook.sessionTimeoutInSec,
        disabled: hook.disabled,
        secret: opened.secret,
      },
    };
  }

  return {
    get(ctx) {
      return run(ctx, 'OPENID_CONFIGURATION_RETRIEVE', { meta }, async () => view(await store.openIdSettings.get(ctx.tenant.id)));
    },

    update(ctx, input) {
      return run(ctx, 'OPENID_CONFIGURATION_UPDATE', { input, meta }, async () => {
        const checked = checkOpenIdSettingsInput(input);
        const tenantId = ctx.tenant.id;
        const context = interactionHookSecretContext(tenantId);
        return store.transaction(async (tx) => {
          const existing = await tx.openIdSettings.get(tenantId);
          const settings: OpenIdSettings = { tenantId, updatedAt: clock.now().toISOString() };
          if (checked.interactionHook) {
            const kept = existing?.interactionHook?.sealedSecret;
            // A secret the master key can no longer open is replaced rather than kept broken.
            const sealedSecret = kept !== undefined && secrets.open(kept, context) !== undefined ? kept : secrets.seal(ids.token(32), context);
            settings.interactionHook = { ...checked.interactionHook, sealedSecret };
          }
          await tx.openIdSettings.put(settings);
          return view(settings);
        });
      });
    },
  };
}
