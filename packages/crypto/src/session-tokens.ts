// The core's SessionTokens port: the HS256 JWTs of the interaction hook hand-off (docs/authentication.md), signed
// with the tenant's hook secret.
import type { Clock, SessionTokens } from '@vellum/core';
import { jwtVerify, SignJWT } from 'jose';

export interface SessionTokensOptions {
  /** The time tokens are stamped and checked against (default: the system clock). */
  clock?: Clock;
}

/**
 * The HMAC key is the UTF-8 bytes of the secret string exactly as given: it is not decoded from
 * base64 or hex, so an issuer's hook uses the secret Vellum showed it as its key, byte for byte.
 */
const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** HS256 session tokens: `alg` must be HS256 and `exp` present and in the future; anything else verifies as undefined. */
export function createSessionTokens(options: SessionTokensOptions = {}): SessionTokens {
  const now = () => (options.clock ? options.clock.now() : new Date());
  return {
    async sign(secret, claims, ttlSeconds) {
      const iat = Math.floor(now().getTime() / 1000);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .sign(keyOf(secret));
    },
    async verify(secret, token) {
      try {
        const { payload } = await jwtVerify(token, keyOf(secret), { algorithms: ['HS256'], requiredClaims: ['exp'], currentDate: now() });
        return payload as Record<string, unknown>;
      } catch {
        return undefined;
      }
    },
  };
}
