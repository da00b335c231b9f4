import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids, SecretHasher } from '../shared/ports.ts';
import type { Page, PageQuery } from '../shared/pagination.ts';
import { adminOperations } from '../shared/admin-resource.ts';
import { checkAdminClientInput, type RequestContext } from './model.ts';
import { type ClientView, clientView, type CreatedClient, revokeClient, rotateClientSecret, type TenantAdmin } from './tenants.ts';

export interface AdminClientServiceDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  hasher: SecretHasher;
  events: EventRecorder;
  /** Creates clients exactly as `vellum clients create` does. */
  tenants: Pick<TenantAdmin, 'createClient'>;
}

export interface AdminClientInput {
  role: string;
  name?: string | undefined;
}

/** The tenant's own admin clients, managed through the API by its admins (docs/limits.md, Admin clients). */
export interface AdminClientService {
  /** Every client of the tenant, revoked ones included; never a secret or its hash. */
  list(ctx: RequestContext, query: PageQuery): Promise<Page<ClientView>>;
  /** A new client; its secret is in this answer only. */
  create(ctx: RequestContext, input: AdminClientInput): Promise<CreatedClient>;
  /** A new secret, in this answer only; the old secret and every token issued under it stop working. */
  rotateSecret(ctx: RequestContext, clientId: string): Promise<CreatedClient>;
  /** The client gets no more tokens and its tokens are refused at once; never the tenant's last admin client. */
  revoke(ctx: RequestContext, clientId: string): Promise<ClientView>;
}

/** Builds the admin client use cases; every one needs the `admin-clients` permission (role admin). */
export function createAdminClientService(deps: AdminClientServiceDeps): AdminClientService {
  const { run, list } = adminOperations(deps.events, 'admin-clients');
  // What the events keep of a created or rotated client: never the secret, at any logging level.
  const withoutSecret = { meta: (r: CreatedClient) => ({ adminClientId: r.client.clientId, role: r.client.role }), response: (r: CreatedClient) => r.client };

  return {
    list(ctx, query) {
      return list(ctx, 'ADMIN_CLIENT_LIST', query, (page) => deps.store.clients.list(ctx.tenant.id, page), clientView);
    },

    create(ctx, input) {
      return run(ctx, 'ADMIN_CLIENT_CREATE', { input, ...withoutSecret }, async () => {
        const { role, name } = checkAdminClientInput(input);
        return deps.tenants.createClient({ subdomain: ctx.tenant.subdomain, role, name });
      });
    },

    rotateSecret(ctx, clientId) {
      return run(ctx, 'ADMIN_CLIENT_ROTATE_SECRET', { input: { clientId }, ...withoutSecret }, () => rotateClientSecret(deps, ctx.tenant, clientId));
    },

    revoke(ctx, clientId) {
      return run(ctx, 'ADMIN_CLIENT_REVOKE', { input: { clientId }, meta: (v) => ({ adminClientId: v.clientId, role: v.role }) }, () =>
        revokeClient(deps, ctx.tenant, clientId),
      );
    },
  };
}
