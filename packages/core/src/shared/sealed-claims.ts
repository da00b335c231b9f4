// Claims of offers and authorizations at rest (docs/decisions.md "Claims at rest"): sealed with the
// SecretBox while they may still be needed, and erased by the store once they are not.

import type { SecretBox } from './ports.ts';

/** The SecretBox context a pre-authorized offer's claims are sealed under. */
export const offerClaimsContext = (tenantId: string, offerId: string) => `offer-claims:${tenantId}:${offerId}`;

/** The SecretBox context the claims an authorization gathered (the interaction hook's) are sealed under. */
export const authorizationClaimsContext = (tenantId: string, authorizationId: string) => `authorization-claims:${tenantId}:${authorizationId}`;

/** `claims` sealed for the store under `context`; undefined when there are none, so nothing is stored. */
export function sealClaims(secrets: SecretBox, claims: Record<string, unknown>, context: string): string | undefined {
  return Object.keys(claims).length === 0 ? undefined : secrets.seal(JSON.stringify(claims), context);
}

/**
 * The claims `sealClaims` sealed under `context`; none when nothing is stored (there were none, or
 * they were erased). A row written before claims were sealed holds its claims as JSON text (an
 * object, so it starts with `{`; sealed text never does) and is read as it is until it is erased.
 * Throws when sealed claims cannot be opened: the master key is not the one they were sealed with.
 */
export function openClaims(secrets: SecretBox, stored: string | undefined, context: string): Record<string, unknown> {
  if (stored === undefined) return {};
  const text = stored.startsWith('{') ? stored : secrets.open(stored, context);
  if (text === undefined) throw new Error(`Cannot open the sealed claims (${context.split(':')[0]}): the master key does not match or the data is corrupt`);
  return JSON.parse(text) as Record<string, unknown>;
}
