import type { Store } from '../ports.ts';
import type { Clock, Ids, SecretHasher } from '../shared/ports.ts';
import { conflict, invalidField, notFound } from '../shared/errors.ts';
import type { Page } from '../shared/pagination.ts';
import { toPage, type PageRequest } from '../shared/pagination.ts';
import { checkTenantInput, type AdminClient, type Tenant } from './model.ts';
import { isRole, ROLES, type Role } from './permissions.ts';

export interface TenantAdminDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  hasher: SecretHasher;
}

/** An admin client as shown to the operator: never the secret, never its hash. */
export interface ClientView {
  clientId: string;
  tenantId: string;
  role: Role;
  name: string;
  createdAt: string;
  /** When its secret was last rotated. */
  rotatedAt?: string;
  /** When it was revoked: it gets no tokens, and the ones it had are refused. */
  revokedAt?: string;
}

export interface CreatedClient {
  client: ClientView;
  /** Shown once, at creation or rotation; only its hash is stored. */
  clientSecret: string;
}

export interface TenantAdmin {
  createTenant(input: { subdomain: string; region: string; name?: string }): Promise<{ tenant: Tenant } & CreatedClient>;
  createClient(input: { subdomain: string; role: string; name?: string }): Promise<CreatedClient>;
  findTenant(subdomain: string): Promise<Tenant | undefined>;
  listTenants(page: PageRequest): Promise<Page<Tenant>>;
  listClients(subdomain: string, page: PageRequest): Promise<Page<ClientView>>;
  /** `vellum clients rotate-secret`: a new secret, shown once; the old one and its tokens stop working. */
  rotateClientSecret(input: { subdomain: string; clientId: string }): Promise<CreatedClient>;
  /** `vellum clients revoke`: the client gets no more tokens and its tokens are refused at once. */
  revokeClient(input: { subdomain: string; clientId: string }): Promise<ClientView>;
}

export function clientView(c: AdminClient): ClientView {
  return {
    clientId: c.clientId,
    tenantId: c.tenantId,
    role: c.role,
    name: c.name,
    createdAt: c.createdAt,
    ...(c.rotatedAt !== undefined ? { rotatedAt: c.rotatedAt } : {}),
    ...(c.revokedAt !== undefined ? { revokedAt: c.revokedAt } : {}),
  };
}

const noClient = () => notFound('The tenant has no such admin client');

/**
 * Gives the tenant's client a new secret (shown once) and retires the old one with every token
 * issued under it. Used by the admin API and the `vellum clients rotate-secret` command.
 */
/**
 * Whether `clientId` cannot name any client: too long, or holding control characters (a NUL is
 * refused by PostgreSQL's text type, so such ids are answered before the store is asked).
 */
const namesNoClient = (clientId: string) => clientId.length > 200 || /[\x00-\x1f\x7f]/.test(clientId);

export async function rotateClientSecret(
  deps: Pick<TenantAdminDeps, 'store' | 'clock' | 'ids' | 'hasher'>,
  tenant: Tenant,
  clientId: string,
): Promise<CreatedClient> {
  if (namesNoClient(clientId)) throw noClient();
  const clientSecret = deps.ids.token(32);
  const rotated = await deps.store.clients.rotateSecret(tenant.id, clientId, await deps.hasher.hash(clientSecret), deps.clock.now().toISOString());
  if (rotated) return { client: clientView(rotated), clientSecret };
  const found = await deps.store.clients.findByClientId(clientId);
  if (found?.tenantId === tenant.id) throw conflict('The admin client is revoked; create a new one instead');
  throw noClient();
}

/**
 * Revokes the tenant's client: no more tokens, and those it has are refused at once. Revoking a
 * revoked client changes nothing; the tenant's last admin client is never revoked (no lock-out).
 */
export async function revokeClient(deps: Pick<TenantAdminDeps, 'store' | 'clock'>, tenant: Tenant, clientId: string): Promise<ClientView> {
  if (namesNoClient(clientId)) throw noClient();
  const outcome = await deps.store.clients.revoke(tenant.id, clientId, deps.clock.now().toISOString());
  if (outcome === 'not-found') throw noClient();
  if (outcome === 'last-admin') throw conflict('This is the tenant’s last admin client; create another admin client before revoking it');
  const client = await deps.store.clients.findByClientId(clientId);
  if (!client) throw noClient();
  return clientView(client);
}

/** Operator use cases: tenants and their admin clients (the `vellum tenants|clients` commands). */
export function createTenantAdmin(deps: TenantAdminDeps): TenantAdmin {
  const { store, clock, ids, hasher } = deps;

  /**
   * A client id operators can pass on a command line: base64url may begin with `-`, which argument
   * parsers read as an option (`vellum clients revoke --client -Xy…` failed one time in 64).
   */
  function newClientId(): string {
    for (;;) {
      const id = ids.token(16);
      if (!id.startsWith('-')) return id;
    }
  }

  async function newClient(tenant: Tenant, role: Role, name: string, tx: Pick<Store, 'clients'>): Promise<CreatedClient> {
    const clientSecret = ids.token(32);
    const client: AdminClient = {
      clientId: newClientId(),
      tenantId: tenant.id,
      role,
      name,
      secretHash: await hasher.hash(clientSecret),
      secretVersion: 1,
      createdAt: clock.now().toISOString(),
    };
    await tx.clients.insert(client);
    return { client: clientView(client), clientSecret };
  }

  async function tenantBySubdomain(subdomain: string): Promise<Tenant> {
    const tenant = await store.tenants.findBySubdomain(subdomain);
    if (!tenant) throw notFound(`No tenant with subdomain ${subdomain}`);
    return tenant;
  }

  return {
    async createTenant(input) {
      const checked = checkTenantInput(input);
      const tenant: Tenant = { id: ids.uuid(), ...checked, loggingLevel: 1, createdAt: clock.now().toISOString() };
      return store.transaction(async (tx) => {
        await tx.tenants.insert(tenant);
        const created = await newClient(tenant, 'admin', 'default', tx);
        return { tenant, ...created };
      });
    },

    async createClient(input) {
      if (!isRole(input.role)) throw invalidField('role', `One of ${ROLES.join(', ')}`, input.role);
      const tenant = await tenantBySubdomain(input.subdomain);
      return newClient(tenant, input.role, input.name ?? input.role, store);
    },

    findTenant: (subdomain) => store.tenants.findBySubdomain(subdomain),

    async listTenants(page) {
      return toPage(await store.tenants.list(page), page, (t) => t);
    },

    async listClients(subdomain, page) {
      const tenant = await tenantBySubdomain(subdomain);
      return toPage(await store.clients.list(tenant.id, page), page, clientView);
    },

    async rotateClientSecret(input) {
      return rotateClientSecret(deps, await tenantBySubdomain(input.subdomain), input.clientId);
    },

    async revokeClient(input) {
      return revokeClient(deps, await tenantBySubdomain(input.subdomain), input.clientId);
    },
  };
}
