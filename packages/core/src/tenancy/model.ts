import type { Static } from '@sinclair/typebox';
import type { KeyCustody } from '../keys/model.ts';
import type { IssuerDisplay } from '../metadata/issuer-display.ts';
import type { TenantRetention } from '../retention/policy.ts';
import { Problems } from '../shared/body-problems.ts';
import { invalidField, type ErrorDetail, validationError } from '../shared/errors.ts';
import type { Permission, Role } from './permissions.ts';
import { AdminClientBody } from './schema.ts';

/** docs/decisions.md "Tenancy and admin authentication": the region codes a tenant may live in. */
export const REGIONS = ['au01', 'ca01', 'eu01', 'us01'] as const;
export type Region = (typeof REGIONS)[number];

/** docs/decisions.md "Analytic events": how much an analytic event keeps (1 basic, 2 metadata, 3 full payloads). */
export type LoggingLevel = 1 | 2 | 3;

/** A tenant; its retention periods (docs/retention.md), when absent, are the defaults. */
export interface Tenant extends TenantRetention {
  id: string;
  subdomain: string;
  region: Region;
  name: string;
  loggingLevel: LoggingLevel;
  createdAt: string;
  /**
   * The issuer's `display` in its metadata (OpenID4VCI 1.0 §12.2.4), per locale; absent or empty: none.
   * Kept on the tenant, which every request reads anyway, so the metadata costs no other read.
   */
  issuerDisplay?: IssuerDisplay[];
  /**
   * The most credentials one credential request may ask for (OpenID4VCI 1.0 §12.2.4
   * `batch_credential_issuance.batch_size`), 2 to 100; absent: 1, one proof per request.
   */
  batchSize?: number;
  /**
   * Where the tenant's new signing keys are made (docs/key-custody.md); absent: where the platform
   * makes them (`VELLUM_KEY_CUSTODY` on the reference server). Keys made before stay where they are.
   */
  keyCustody?: KeyCustody;
}

/** An administrative API client of one tenant. The secret is only ever kept as a slow hash. */
export interface AdminClient {
  clientId: string;
  tenantId: string;
  role: Role;
  name: string;
  secretHash: string;
  /**
   * Goes up by one with every secret rotation. Admin tokens carry the version they were issued
   * under, so rotating the secret retires every token issued before it.
   */
  secretVersion: number;
  createdAt: string;
  /** When the secret was last rotated (absent: never). */
  rotatedAt?: string;
  /** When the client was revoked: it gets no more tokens and its tokens are refused. */
  revokedAt?: string;
}

/** Who is calling: the admin client behind a verified bearer token. */
export interface Requestor {
  clientId: string;
  role: Role;
  permissions: ReadonlySet<Permission>;
}

/** Everything a use case knows about the request that reached it; passed explicitly, never ambient. */
export interface RequestContext {
  tenant: Tenant;
  /** The public origin the request arrived on (tenant host, verified custom domain or default URL). */
  origin: string;
  requestor?: Requestor;
  requestId: string;
  ip: string;
  userAgent?: string;
}

const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** docs/decisions.md "Tenancy and admin authentication": lowercase a-z, 0-9 and hyphens, 1 to 63 characters. */
export function checkTenantInput(input: { subdomain: string; region: string; name?: string | undefined }): {
  subdomain: string;
  region: Region;
  name: string;
} {
  const details: ErrorDetail[] = [];
  if (!SUBDOMAIN.test(input.subdomain)) {
    details.push({ value: input.subdomain, msg: 'Lowercase letters, digits and inner hyphens, 1 to 63 characters', param: 'subdomain', location: 'body' });
  }
  if (!(REGIONS as readonly string[]).includes(input.region)) {
    details.push({ value: input.region, msg: `One of ${REGIONS.join(', ')}`, param: 'region', location: 'body' });
  }
  const name = input.name ?? input.subdomain;
  if (name.length < 1 || name.length > 200) details.push({ value: name, msg: '1 to 200 characters', param: 'name', location: 'body' });
  if (details.length > 0) throw validationError(details);
  return { subdomain: input.subdomain, region: input.region as Region, name };
}

/** Checks an admin client create body (docs/limits.md, Admin clients), reporting every problem; the name is the role when left out. */
export function checkAdminClientInput(input: unknown): { role: Role; name: string } {
  const p = new Problems();
  p.checkShape(AdminClientBody, input);
  p.throwIfAny(AdminClientBody);
  const body = input as Static<typeof AdminClientBody>;
  return { role: body.role, name: body.name ?? body.role };
}

export function checkLoggingLevel(level: number): LoggingLevel {
  if (level !== 1 && level !== 2 && level !== 3) throw invalidField('loggingLevel', 'One of 1, 2, 3', level);
  return level;
}
