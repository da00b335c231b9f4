import type { EventRecorder } from '../events/recorder.ts';
import type { X509Authority } from '../mdoc-pki/ports.ts';
import { limitReached } from '../mdoc-pki/signers.ts';
import type { Store } from '../ports.ts';
import { adminOperations, type CollectionService, requireFound } from '../shared/admin-resource.ts';
import { invalidField, notFound } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { PageQuery } from '../shared/pagination.ts';
import type { Clock, Ids } from '../shared/ports.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { MAX_WALLET_PROVIDERS_PER_TENANT, type WalletProvider, type WalletProviderJwk, type WalletProviderTrustedFor } from './model.ts';
import { checkWalletProviderInput } from './rules.ts';

export interface WalletProviderDeps {
  store: Pick<Store, 'walletProviders'>;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
  /** Reads the certificates of `x509` anchors, to accept only CA certificates valid now. */
  x509: Pick<X509Authority, 'parseCertificate'>;
  /** Told after a tenant's providers changed through this process (the trust cache forgets them). */
  onChange?: (tenantId: string) => void;
}

/** A wallet provider as the API shows it (docs/dpop-and-attestation.md "Trusted wallet providers"). */
export interface WalletProviderView {
  id: string;
  name: string;
  trustedFor: WalletProviderTrustedFor[];
  x509?: string[];
  jwks?: { keys: WalletProviderJwk[] };
  trustedListUrl?: string;
  createdAt: string;
  updatedAt: string;
}

/** `/v1/openid/wallet-providers`: the wallet providers the tenant trusts. Permission `issuance-setup`. */
export type WalletProviderService = CollectionService<WalletProviderView>;

/** Renders a stored provider as the API shows it. */
export function walletProviderView(p: WalletProvider): WalletProviderView {
  return {
    id: p.id,
    name: p.name,
    trustedFor: [...p.trustedFor],
    ...(p.x509 ? { x509: [...p.x509] } : {}),
    ...(p.jwks ? { jwks: { keys: p.jwks.keys.map((k) => ({ ...k })) } } : {}),
    ...(p.trustedListUrl !== undefined ? { trustedListUrl: p.trustedListUrl } : {}),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

const missing = () => notFound('The tenant has no such wallet provider');
const atLimit = () => limitReached(MAX_WALLET_PROVIDERS_PER_TENANT, 'wallet providers', 'wallet providers', 'walletProviders');
/** Ids are UUIDs: anything else is a 400 naming the path's id, and is not sent to the store (PostgreSQL refuses NUL in text). */
function checkId(id: string): string {
  if (!isUuid(id)) throw invalidField('id', 'A wallet provider id (UUID)', id, 'params');
  return id;
}
const anchorKind = (v: WalletProviderView) => (v.x509 ? 'x509' : v.jwks ? 'jwks' : 'trustedListUrl');

/** Trusted wallet providers: create, list, read, replace, delete; each change forgets the tenant's cached trust. */
export function createWalletProviderService(deps: WalletProviderDeps): WalletProviderService {
  const { store, clock, ids, events, x509 } = deps;
  const { run, list } = adminOperations(events, 'issuance-setup');
  const meta = (v: WalletProviderView) => ({ id: v.id, anchors: anchorKind(v), trustedFor: v.trustedFor });
  const changed = (tenantId: string) => deps.onChange?.(tenantId);
  const find = (ctx: RequestContext, id: string) => requireFound(store.walletProviders.get(ctx.tenant.id, checkId(id)), missing);

  return {
    create(ctx, input) {
      return run(ctx, 'WALLET_PROVIDER_CREATE', { input, meta }, async () => {
        const now = clock.now();
        const settings = checkWalletProviderInput(input, { x509, now });
        const at = now.toISOString();
        const provider: WalletProvider = { ...settings, id: ids.uuid(), tenantId: ctx.tenant.id, createdAt: at, updatedAt: at };
        if (!(await store.walletProviders.insert(provider, MAX_WALLET_PROVIDERS_PER_TENANT))) throw atLimit();
        changed(ctx.tenant.id);
        return walletProviderView(provider);
      });
    },

    list: (ctx, query: PageQuery) => list(ctx, 'WALLET_PROVIDER_LIST', query, (page) => store.walletProviders.list(ctx.tenant.id, page), walletProviderView),

    get: (ctx, id) => run(ctx, 'WALLET_PROVIDER_RETRIEVE', { meta }, async () => walletProviderView(await find(ctx, id))),

    update(ctx, id, input) {
      return run(ctx, 'WALLET_PROVIDER_UPDATE', { input, meta }, async () => {
        const existing = await find(ctx, id);
        const now = clock.now();
        const settings = checkWalletProviderInput(input, { x509, now });
        const provider: WalletProvider = {
          ...settings,
          id: existing.id,
          tenantId: existing.tenantId,
          createdAt: existing.createdAt,
          updatedAt: now.toISOString(),
        };
        // Deleted between the read and the write.
        if (!(await store.walletProviders.update(provider))) throw missing();
        changed(ctx.tenant.id);
        return walletProviderView(provider);
      });
    },

    delete(ctx, id) {
      return run(ctx, 'WALLET_PROVIDER_DELETE', { meta: () => ({ id }) }, async () => {
        if (!(await store.walletProviders.delete(ctx.tenant.id, checkId(id)))) throw missing();
        changed(ctx.tenant.id);
      });
    },
  };
}
