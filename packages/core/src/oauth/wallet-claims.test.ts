import { describe, expect, it } from 'vitest';
import type { WalletClaimsToIssue } from './ports.ts';
import { completeWalletClaims } from './wallet-claims.ts';

describe('completeWalletClaims', () => {
  const claims: WalletClaimsToIssue = {
    tenantId: 't1',
    issuer: 'https://acme.example',
    userId: 'u1',
    offerId: 'o1',
    configurationIds: ['cfg-a'],
    scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
  };

  it('issues at the current second (rounded down) and expires ttl seconds later', () => {
    const full = completeWalletClaims(claims, 300, new Date('2026-11-26T10:00:00.999Z'), 'jti-1');
    const second = Date.parse('2026-11-26T10:00:00Z') / 1000;
    expect(full).toEqual({ ...claims, jti: 'jti-1', issuedAt: second, expiresAt: second + 300 });
  });

  it('keeps its own copy of the configuration ids', () => {
    const ids = ['cfg-a'];
    const full = completeWalletClaims({ ...claims, configurationIds: ids }, 60, new Date(0), 'jti-2');
    ids.push('cfg-b');
    expect(full.configurationIds).toEqual(['cfg-a']);
  });
});
