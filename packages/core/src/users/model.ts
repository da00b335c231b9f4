import type { TenantRecord } from '../shared/ports.ts';

/** Where a user signed in, when an authentication provider knows them (docs/authentication.md). */
export interface AuthenticationProviderRef {
  url: string;
  subjectId: string;
}

/**
 * A user of a tenant: the subject credentials are issued to. `claims` are the ones persisted for
 * later offers and issuance (`claimsToPersist`, docs/authentication.md; docs/decisions.md "Users, offers, the token and nonce endpoints").
 */
export interface UserRecord extends TenantRecord {
  id: string;
  claims: Record<string, unknown>;
  authenticationProvider?: AuthenticationProviderRef;
}

/** What a user search may ask for; every part given must hold (docs/decisions.md "Users, offers, the token and nonce endpoints" `POST /v1/users/search`). */
export interface UserFilter {
  /** Every key must be a claim of the user with an equal value (JSON equality, nested values included). */
  claims?: Record<string, unknown>;
  /** The user's `authenticationProvider.subjectId`. */
  subjectId?: string;
}

/**
 * JSON text of a value with object keys sorted at every depth, so that two equal values have one
 * spelling: what claim comparisons use (in memory, and in SQL against stored canonical text).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether a user matches a search filter (the rule every store implements). */
export function userMatches(user: UserRecord, filter: UserFilter): boolean {
  if (filter.subjectId !== undefined && user.authenticationProvider?.subjectId !== filter.subjectId) return false;
  for (const [key, value] of Object.entries(filter.claims ?? {})) {
    if (!Object.hasOwn(user.claims, key) || canonicalJson(user.claims[key]) !== canonicalJson(value)) return false;
  }
  return true;
}
