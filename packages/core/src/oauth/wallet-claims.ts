import type { WalletAccessClaims, WalletClaimsToIssue } from './ports.ts';

/**
 * The whole claims of a token issued now: `iat` is the current second, `exp` is `ttlSeconds` later.
 * Every WalletTokens adapter (the signed one, the test stand-in) completes its claims this way.
 */
export function completeWalletClaims(claims: WalletClaimsToIssue, ttlSeconds: number, now: Date, jti: string): WalletAccessClaims {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return { ...claims, configurationIds: [...claims.configurationIds], jti, issuedAt, expiresAt: issuedAt + ttlSeconds };
}
