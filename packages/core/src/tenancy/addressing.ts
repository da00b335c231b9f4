import type { Store } from '../ports.ts';
import type { Tenant } from './model.ts';

/** How tenants are addressed (docs/decisions.md "Tenancy and admin authentication"). */
export interface AddressingOptions {
  /**
   * Tenants live at `https://{subdomain}.{region}.{platformDomain}`; under `localhost` (development),
   * with the scheme and port of `publicUrl` instead.
   */
  platformDomain: string;
  /** Single-tenant mode: hosts that name no tenant reach this one, at `publicUrl`. */
  defaultTenant?: string;
  /** The origin of the default tenant, e.g. `http://localhost:3000`. */
  publicUrl: string;
}

export interface ResolvedTenant {
  tenant: Tenant;
  /** The origin the request arrived on. */
  origin: string;
}

export interface Addressing {
  /** Finds the tenant a `Host` value belongs to, or undefined when it names none. */
  resolveHost(host: string): Promise<ResolvedTenant | undefined>;
  /** Every origin the tenant answers on; admin tokens must be for one of them. */
  originsOf(tenant: Tenant): Promise<string[]>;
  /** The origin the tenant presents itself under: its verified custom domain, else its own host. */
  publicOrigin(tenant: Tenant): Promise<string>;
}

/** Lowercases a Host header value and strips the port and any trailing dot. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  const name = h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d*$/, '');
  return name.replace(/\.$/, '');
}

/** The scheme and port (`:3000`, or empty) of tenants' own origins under `platform`. */
function ownScheme(platform: string, publicUrl: string): { scheme: string; port: string } {
  const loopback = platform === 'localhost' || platform.endsWith('.localhost');
  if (!loopback || !URL.canParse(publicUrl)) return { scheme: 'https', port: '' };
  const url = new URL(publicUrl);
  return { scheme: url.protocol.slice(0, -1), port: url.port ? `:${url.port}` : '' };
}

export function createAddressing(store: Pick<Store, 'tenants' | 'customDomains'>, options: AddressingOptions): Addressing {
  const platform = options.platformDomain.toLowerCase().replace(/\.$/, '');
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  // `localhost` and names under it always mean this machine (RFC 6761 §6.3): a platform domain there
  // is development, and tenants' own origins take the scheme and port of `publicUrl`
  // (`http://acme.eu01.vellum.localhost:3000`), which a browser on this machine opens. Anywhere
  // else they are https on the default port.
  const own = ownScheme(platform, publicUrl);
  const ownOrigin = (t: Tenant) => `${own.scheme}://${t.subdomain}.${t.region}.${platform}${own.port}`;

  return {
    async resolveHost(host) {
      const name = hostName(host);
      if (name.endsWith(`.${platform}`)) {
        const labels = name.slice(0, -(platform.length + 1)).split('.');
        if (labels.length === 2) {
          const tenant = await store.tenants.findBySubdomain(labels[0] ?? '');
          if (tenant && tenant.region === labels[1]) return { tenant, origin: `${own.scheme}://${name}${own.port}` };
        }
        // A host under the platform domain that names no tenant never falls back to the default.
        return undefined;
      }
      const custom = await store.customDomains.findVerified(name);
      if (custom) {
        const tenant = await store.tenants.findById(custom.tenantId);
        if (tenant) return { tenant, origin: `https://${custom.domain}` };
      }
      if (options.defaultTenant) {
        const tenant = await store.tenants.findBySubdomain(options.defaultTenant);
        if (tenant) return { tenant, origin: publicUrl };
      }
      return undefined;
    },

    async originsOf(tenant) {
      const origins = [ownOrigin(tenant)];
      const custom = await store.customDomains.get(tenant.id);
      if (custom?.isVerified) origins.push(`https://${custom.domain}`);
      if (options.defaultTenant === tenant.subdomain) origins.push(publicUrl);
      return origins;
    },

    async publicOrigin(tenant) {
      const custom = await store.customDomains.get(tenant.id);
      if (custom?.isVerified) return `https://${custom.domain}`;
      return options.defaultTenant === tenant.subdomain ? publicUrl : ownOrigin(tenant);
    },
  };
}
