// Stand-ins for the Digests, WalletTokens and NonceCodec ports in tests of the core (no jose, no
// KeyManager, no platform keys).
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { type Clock, completeWalletClaims, DomainError, type Digests, type NonceCodec, type WalletAccessClaims, type WalletTokens } from '@vellum/core';

/** A fixed MAC key for tests: the real one is a random platform secret. */
const TEST_MAC_KEY = Buffer.alloc(32, 7);

/** SHA-256 and HMAC-SHA-256 (under a fixed test key) from node:crypto, as @vellum/crypto's createDigests computes them. */
export function fakeDigests(): Digests {
  return {
    sha256: (text) => createHash('sha256').update(text, 'utf8').digest('base64url'),
    mac: (text) => createHmac('sha256', TEST_MAC_KEY).update(text, 'utf8').digest('base64url'),
  };
}

/**
 * Unsigned wallet access tokens for tests of the core: `fakewt.<base64url JSON of the claims>`,
 * checked for tenant, issuer and expiry on the given clock as the real ones are. `issued` lists
 * every token made, newest last.
 */
export function fakeWalletTokens(clock: Clock): WalletTokens & { issued: WalletAccessClaims[] } {
  const issued: WalletAccessClaims[] = [];
  // Each tenant's rotations so far: the fake's kids are `fake-<n>`, and it keeps the real one's overlap rule.
  const rotations = new Map<string, { count: number; until?: Date }>();
  return {
    issued,
    async rotate(tenantId, previousUntil) {
      const before = rotations.get(tenantId) ?? { count: 0 };
      if (before.until && before.until > clock.now()) {
        throw new DomainError('Conflict', `The last rotation of the access-token key overlaps until ${before.until.toISOString()}`);
      }
      rotations.set(tenantId, { count: before.count + 1, until: previousUntil });
      return { activeKid: `fake-${before.count + 1}`, retiredKid: `fake-${before.count}`, retiredUntil: previousUntil.toISOString() };
    },
    async issue(claims, ttlSeconds) {
      const full = completeWalletClaims(claims, ttlSeconds, clock.now(), randomUUID());
      issued.push(full);
      return { token: `fakewt.${Buffer.from(JSON.stringify(full)).toString('base64url')}`, claims: full };
    },
    async verify(tenantId, issuer, token) {
      const [tag, body] = typeof token === 'string' ? token.split('.') : [];
      if (tag !== 'fakewt' || !body) return undefined;
      try {
        const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as WalletAccessClaims;
        const now = Math.floor(clock.now().getTime() / 1000);
        return claims.tenantId === tenantId && claims.issuer === issuer && claims.expiresAt > now ? claims : undefined;
      } catch {
        return undefined;
      }
    },
    async jwks() {
      return { keys: [{ kty: 'EC', crv: 'P-256', kid: 'fake', alg: 'ES256', use: 'sig' }] };
    },
  };
}

/**
 * A NonceCodec for tests of the core that remembers what it minted instead of signing it: it opens
 * only its own nonces, for their tenant, as the real codec does. Servers in a test share one, as real
 * ones share the key.
 */
export function fakeNonceCodec(): NonceCodec {
  const minted = new Map<string, { tenantId: string; expiresAt: Date }>();
  return {
    mint(tenantId, expiresAt) {
      const nonce = randomBytes(32).toString('base64url');
      // Kept to the second, rounded down, like the real codec.
      minted.set(nonce, { tenantId, expiresAt: new Date(Math.floor(expiresAt.getTime() / 1000) * 1000) });
      return nonce;
    },
    open(tenantId, nonce) {
      const found = typeof nonce === 'string' ? minted.get(nonce) : undefined;
      return found && found.tenantId === tenantId ? { expiresAt: new Date(found.expiresAt) } : undefined;
    },
  };
}
