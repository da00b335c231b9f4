import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import {
  type Clock,
  DomainError,
  type Ids,
  type KeyAlgorithm,
  type KeyManager,
  type KeyRepository,
  managedKeyOf,
  type PublicJwk,
  type StoredKey,
} from '@vellum/core';
import { signEs256 } from './ecdsa.ts';
import type { Sealer } from './sealer.ts';

export interface KeyManagerOptions {
  keys: KeyRepository;
  sealer: Sealer;
  ids: Ids;
  clock: Clock;
  /** How many unsealed private keys to keep in memory (default 1000). */
  cacheSize?: number;
}

// The sealed private key is bound to its owner and id: a row copied to another tenant or key
// cannot be opened there.
const associatedData = (tenantId: string, id: string) => `vellum-key:${tenantId}:${id}`;

function publicJwkOf(key: KeyObject, algorithm: KeyAlgorithm): PublicJwk {
  const jwk = key.export({ format: 'jwk' });
  return algorithm === 'Ed25519' ? { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string } : { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
}

/**
 * Keys held for tenants (ARCHITECTURE.md: KeyManager). Private keys are generated here, stored
 * only sealed (AES-256-GCM under the master key), and used here: nothing outside sees them.
 */
export function createKeyManager(options: KeyManagerOptions): KeyManager {
  const { keys, sealer, ids, clock } = options;
  const cacheSize = options.cacheSize ?? 1000;
  // Unsealed private keys by id, least recently used first. Every signature still reads the
  // stored row (which the server's store may cache for VELLUM_READ_CACHE_TTL_MS), so a destroyed
  // key stops signing here at once and on every other server within that time.
  const cache = new Map<string, { sealed: string; key: KeyObject }>();

  function privateKeyOf(stored: StoredKey): KeyObject {
    const hit = cache.get(stored.id);
    if (hit && hit.sealed === stored.sealed) {
      cache.delete(stored.id);
      cache.set(stored.id, hit);
      return hit.key;
    }
    const der = sealer.open(stored.sealed, associatedData(stored.tenantId, stored.id));
    const key = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
    cache.set(stored.id, { sealed: stored.sealed, key });
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    return key;
  }

  return {
    async create(tenantId, algorithm) {
      const pair = algorithm === 'Ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const id = ids.uuid();
      const der = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
      const stored: StoredKey = {
        id,
        tenantId,
        algorithm,
        publicJwk: publicJwkOf(pair.publicKey, algorithm),
        sealed: sealer.seal(new Uint8Array(der), associatedData(tenantId, id)),
        createdAt: clock.now().toISOString(),
      };
      await keys.insert(stored);
      return managedKeyOf(stored);
    },

    async get(tenantId, id) {
      const stored = await keys.get(tenantId, id);
      return stored && managedKeyOf(stored);
    },

    async sign(tenantId, id, data) {
      const stored = await keys.get(tenantId, id);
      if (!stored) {
        cache.delete(id);
        throw new DomainError('NotFound', 'The signing key does not exist or was destroyed');
      }
      // A key another custody holds (a PKCS#11 token's) has nothing sealed here to open.
      if ((stored.custody ?? 'software') !== 'software') {
        throw new DomainError(
          'ServiceUnavailable',
          `The key ${id} is held in ${stored.custody} custody, which this server has not configured (docs/key-custody.md)`,
        );
      }
      const key = privateKeyOf(stored);
      const signature = stored.algorithm === 'Ed25519' ? sign(null, data, key) : signEs256(data, key);
      return new Uint8Array(signature);
    },

    async destroy(tenantId, id) {
      cache.delete(id);
      return keys.delete(tenantId, id);
    },
  };
}
