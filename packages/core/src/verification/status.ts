// Status while verifying (docs/verification.md "Status while verifying"): a credential that names a
// Token Status List entry is checked against the list its issuer publishes. The list must be signed
// under the same trusted issuer that vouches for the credential; a list that cannot be fetched or
// trusted fails the check, so a revocation never hides behind an outage
// (docs/decisions.md "Status lists while verifying (issue 31)").

import type { StatusListDecoder, StatusListLookup, StatusListReference } from '../shared/token-status-lists.ts';
import type { VerificationCheck, VerificationResult } from './model.ts';

export type CheckedStatus = { status: NonNullable<VerificationResult['status']>; check: VerificationCheck };

/** Reads the entry and names it: 0 valid, 1 revoked, 2 suspended; any other value fails the check as not valid. */
export async function credentialStatus(
  lookup: StatusListLookup | undefined,
  reference: StatusListReference,
  options: { accept: string; cacheKey: string; decode: StatusListDecoder; at: Date },
): Promise<CheckedStatus> {
  if (!lookup) return { status: 'not-checked', check: { check: 'status', ok: false, reason: 'This server cannot read status lists' } };
  const found = await lookup.lookup(reference, options);
  if (!found.ok) return { status: 'not-checked', check: { check: 'status', ok: false, reason: found.reason.slice(0, 200) } };
  if (found.value === 0) return { status: 'valid', check: { check: 'status', ok: true } };
  if (found.value === 2) return { status: 'suspended', check: { check: 'status', ok: false, reason: 'The issuer has suspended the credential' } };
  return {
    status: 'revoked',
    check: {
      check: 'status',
      ok: false,
      reason: found.value === 1 ? 'The issuer has revoked the credential' : `The status list marks the credential ${found.value} (not valid)`,
    },
  };
}
