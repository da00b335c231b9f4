import { fromBase64Url, toBase64Url } from '../shared/encoding.ts';

/** docs/decisions.md "Tenancy and admin authentication": operator roles. */
export const ROLES = ['admin', 'issuer', 'managed-issuer', 'verifier', 'dts-provider', 'dts-consumer', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Every permission an operation can require. The order is part of the token format: a permission's
 * index is its bit in the compact claim, so new permissions are only ever appended.
 */
export const PERMISSIONS = [
  'custom-domain',
  'webhooks',
  'offers',
  'dids',
  'configurations:read',
  'configurations:write',
  'iacas:create',
  'iacas:manage',
  'users',
  'credentials',
  'events:read',
  'analytics:write',
  // The tenant's own admin clients: list, create, rotate secrets, revoke (docs/limits.md).
  'admin-clients',
  // What the Authorization Code flow runs on: wallet clients, the authentication provider, the
  // interaction hook and claim sources (docs/authentication.md).
  'issuance-setup',
  // Verification: trusted issuers and the verify API (docs/verification.md).
  'verification',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const ISSUING: Permission[] = ['webhooks', 'offers', 'configurations:read', 'iacas:manage', 'users', 'credentials', 'issuance-setup'];

/** docs/decisions.md "Tenancy and admin authentication": which permissions each role holds. */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  admin: PERMISSIONS,
  issuer: ['custom-domain', 'dids', 'configurations:write', 'iacas:create', ...ISSUING],
  'managed-issuer': ['custom-domain', ...ISSUING],
  verifier: ['custom-domain', 'dids', 'verification'],
  'dts-provider': ['custom-domain', 'dids'],
  'dts-consumer': [],
  auditor: ['events:read'],
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * Packs a permission set into a short base64url bitmask, so a token stays small whatever the
 * role grants (docs/decisions.md "Tenancy and admin authentication").
 */
export function encodePermissions(permissions: Iterable<Permission>): string {
  const bytes = new Array<number>(Math.ceil(PERMISSIONS.length / 8)).fill(0);
  for (const p of permissions) {
    const i = PERMISSIONS.indexOf(p);
    bytes[i >> 3] = (bytes[i >> 3] ?? 0) | (1 << (i & 7));
  }
  return toBase64Url(String.fromCharCode(...bytes));
}

/** The inverse of encodePermissions; an unreadable claim grants nothing. */
export function decodePermissions(claim: unknown): Set<Permission> {
  const result = new Set<Permission>();
  const raw = typeof claim === 'string' ? fromBase64Url(claim) : undefined;
  if (raw === undefined) return result;
  PERMISSIONS.forEach((p, i) => {
    if ((raw.charCodeAt(i >> 3) || 0) & (1 << (i & 7))) result.add(p);
  });
  return result;
}
