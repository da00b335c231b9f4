import type { KeyManager } from '../keys/ports.ts';
import type { Store } from '../ports.ts';
import type { Clock } from '../shared/ports.ts';
import { conflict, isDomainError } from '../shared/errors.ts';
import type { WebhookSigningKey } from './model.ts';

/** A public key of the webhook JWKS (RFC 7517), `kid` being the `keyid` of the signatures. */
export interface WebhookJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface WebhookJwks {
  keys: WebhookJwk[];
}

export interface WebhookSigningKeysDeps {
  store: Store;
  keys: KeyManager;
  clock: Clock;
}

/** Tenants' Ed25519 keys for webhook signatures (RFC 9421), made on first use and rotated on request. */
export interface WebhookSigningKeys {
  /** The tenant's active key, created when it has none; racing servers end up with one and the same key. */
  ensureActive(tenantId: string): Promise<WebhookSigningKey>;
  /** The keys receivers verify with: the active one, and retired ones that pending deliveries still sign with. */
  jwks(tenantId: string): Promise<WebhookJwks>;
  /** Makes a new active key; the old one stays published while a pending delivery signs with it. */
  rotate(tenantId: string): Promise<{ active: WebhookSigningKey; retired: WebhookSigningKey }>;
  /** Destroys up to `limit` retired keys no pending delivery needs any more; returns how many. */
  pruneSpent(limit?: number): Promise<number>;
}

/** The JWK receivers see for a signing key. */
export function webhookJwk(key: WebhookSigningKey): WebhookJwk {
  return { kty: 'OKP', crv: 'Ed25519', x: key.publicJwk.x, kid: key.keyId, alg: 'EdDSA', use: 'sig' };
}

/** Builds the webhook signing keys over the store and the KeyManager. */
export function createWebhookSigningKeys(deps: WebhookSigningKeysDeps): WebhookSigningKeys {
  const { store, keys, clock } = deps;

  async function makeKey(tenantId: string): Promise<WebhookSigningKey> {
    const made = await keys.create(tenantId, 'Ed25519');
    return { tenantId, keyId: made.id, publicJwk: made.publicJwk, status: 'active', createdAt: made.createdAt };
  }

  return {
    async ensureActive(tenantId) {
      const existing = await store.webhookKeys.active(tenantId);
      if (existing) return existing;
      const candidate = await makeKey(tenantId);
      const stored = await store.webhookKeys.insertActive(candidate);
      // Another server made the tenant's key first: ours was never used, so it goes.
      if (stored.keyId !== candidate.keyId) await keys.destroy(tenantId, candidate.keyId);
      return stored;
    },

    async jwks(tenantId) {
      let published = await store.webhookKeys.listPublished(tenantId);
      if (!published.some((k) => k.status === 'active')) published = [...published, await this.ensureActive(tenantId)];
      // The active key first: a receiver that takes the first key gets the one new deliveries use.
      const ordered = [...published.filter((k) => k.status === 'active'), ...published.filter((k) => k.status !== 'active').reverse()];
      return { keys: ordered.map(webhookJwk) };
    },

    async rotate(tenantId) {
      const current = await this.ensureActive(tenantId);
      const next = await makeKey(tenantId);
      const at = clock.now().toISOString();
      try {
        await store.webhookKeys.rotate(tenantId, current.keyId, next, at);
      } catch (error) {
        await keys.destroy(tenantId, next.keyId);
        if (isDomainError(error) && error.code === 'Conflict')
          throw conflict('Another rotation of the webhook signing key happened at the same time; try again');
        throw error;
      }
      return { active: next, retired: { ...current, status: 'retired', retiredAt: at } };
    },

    async pruneSpent(limit = 100) {
      const spent = await store.webhookKeys.listSpent(limit);
      let pruned = 0;
      for (const key of spent) {
        // Forget the record first: a key no longer listed is never picked to sign again.
        if (await store.webhookKeys.deleteRetired(key.tenantId, key.keyId)) {
          await keys.destroy(key.tenantId, key.keyId);
          pruned += 1;
        }
      }
      return pruned;
    },
  };
}
