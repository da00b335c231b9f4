import type { Clock, Ids, SecretHasher, Store } from '../ports.ts';
import { invalidField, notFound } from '../shared/errors.ts';
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
}

export interface CreatedClient {
  client: ClientView;
  /** Shown once, at creation; only its hash is stored. */
  clientSecret: string;
}

export interface TenantAdmin {
  createTenant(input: { subdomain: string; region: string; name?: string }): Promise<{ tenant: Tenant } & CreatedClient>;
  createClient(input: { subdomain: string; role: string; name?: string }): Promise<CreatedClient>;
  findTenant(subdomain: string): Promise<Tenant | undefined>;
  listTenants(page: PageRequest): Promise<Page<Tenant>>;
  listClients(subdomain: string, page: PageRequest): Promise<Page<ClientView>>;
}

export function clientView(c: AdminClient): ClientView {
  return { clientId: c.clientId, tenantId: c.tenantId, role: c.role, name: c.name, createdAt: c.createdAt };
}

/** Operator use cases: tenants and their admin clients (the `vellum tenants|clients` commands). */
export function createTenantAdmin(deps: TenantAdminDeps): TenantAdmin {
  const { store, clock, ids, hasher } = deps;

  async function newClient(tenant: Tenant, role: Role, name: string, tx: Pick<Store, 'clients'>): Promise<CreatedClient> {
    const clientSecret = ids.token(32);
    const client: AdminClient = {
      clientId: ids.token(16),
      tenantId: tenant.id,
      role,
      name,
      secretHash: await hasher.hash(clientSecret),
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
      return toPage(await store.tenants.list(page), (t) => t);
    },

    async listClients(subdomain, page) {
      const tenant = await tenantBySubdomain(subdomain);
      return toPage(await store.clients.list(tenant.id, page), clientView);
    },
  };
}
