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
import { type EnvelopeSealer, sealedUnderDataKey } from './envelope.ts';
import type { Sealer } from './sealer.ts';

export interface KeyManagerOptions {
  keys: KeyRepository;
  /** The master key's sealer: it opens keys sealed directly under the master key (`v1`). */
  sealer: Sealer;
  /**
   * Tenants' data keys (docs/key-custody.md "Envelope encryption"): it opens keys sealed under them
   * (`v2`), and, with `sealUnderDataKeys`, seals every new key.
   */
  envelope?: EnvelopeSealer;
  /** Whether new keys are sealed under their tenant's data key (VELLUM_KEY_WRAPPING) rather than the master key. */
  sealUnderDataKeys?: boolean;
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
  const { keys, sealer, envelope, ids, clock } = options;
  const cacheSize = options.cacheSize ?? 1000;
  if (options.sealUnderDataKeys && !envelope) throw new Error('Sealing keys under data keys needs the envelope sealer');
  const sealNew = options.sealUnderDataKeys && envelope ? envelope : undefined;
  // Unsealed private keys by id, least recently used first. Every signature still reads the
  // stored row (which the server's store may cache for VELLUM_READ_CACHE_TTL_MS), so a destroyed
  // key stops signing here at once and on every other server within that time.
  const cache = new Map<string, { sealed: string; key: KeyObject }>();

  function cachedKeyOf(stored: StoredKey): KeyObject | undefined {
    const hit = cache.get(stored.id);
    if (!hit || hit.sealed !== stored.sealed) return undefined;
    cache.delete(stored.id);
    cache.set(stored.id, hit);
    return hit.key;
  }

  async function openKey(stored: StoredKey): Promise<KeyObject> {
    const data = associatedData(stored.tenantId, stored.id);
    let der: Uint8Array;
    if (sealedUnderDataKey(stored.sealed)) {
      if (!envelope) throw new Error(`The key ${stored.id} is sealed under a data key, and this KeyManager has no envelope sealer`);
      der = await envelope.open(stored.tenantId, stored.sealed, data);
    } else {
      der = sealer.open(stored.sealed, data);
    }
    const key = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
    der.fill(0);
    cache.set(stored.id, { sealed: stored.sealed, key });
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    return key;
  }

  return {
    async create(tenantId, algorithm) {
      const pair = algorithm === 'Ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const id = ids.uuid();
      const der = new Uint8Array(pair.privateKey.export({ format: 'der', type: 'pkcs8' }));
      const data = associatedData(tenantId, id);
      const sealed = sealNew ? await sealNew.seal(tenantId, der, data) : sealer.seal(der, data);
      der.fill(0);
      const stored: StoredKey = {
        id,
        tenantId,
        algorithm,
        publicJwk: publicJwkOf(pair.publicKey, algorithm),
        sealed,
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
      const key = cachedKeyOf(stored) ?? (await openKey(stored));
      const signature = stored.algorithm === 'Ed25519' ? sign(null, data, key) : signEs256(data, key);
      return new Uint8Array(signature);
    },

    async destroy(tenantId, id) {
      cache.delete(id);
      return keys.delete(tenantId, id);
    },
  };
}

export interface KeyResealerOptions {
  keys: Pick<KeyRepository, 'listSealedIn' | 'reseal'>;
  /** The master key's sealer, which opens the keys sealed under it. */
  sealer: Sealer;
  envelope: EnvelopeSealer;
}

/** The result of one pass of sealing master-key-sealed keys again under data keys. */
export interface ResealReport {
  resealed: number;
  failed: Array<{ tenantId: string; keyId: string; reason: string }>;
  more: boolean;
}

/**
 * Seals software keys that are still sealed directly under the master key (`v1`, every key made
 * before envelope encryption was turned on) again under their tenant's data key, up to `limit` a
 * pass. Each row is written with a compare-and-set on its old sealed form, so a pass racing another
 * writes each key once. The private key is the same; only where it is sealed changes.
 */
export function createKeyResealer(options: KeyResealerOptions): (limit: number) => Promise<ResealReport> {
  const { keys, sealer, envelope } = options;
  return async (limit) => {
    const rows = await keys.listSealedIn('v1', limit);
    const report: ResealReport = { resealed: 0, failed: [], more: rows.length >= limit };
    for (const row of rows) {
      try {
        const data = associatedData(row.tenantId, row.id);
        const der = sealer.open(row.sealed, data);
        const sealed = await envelope.seal(row.tenantId, der, data);
        der.fill(0);
        if (await keys.reseal(row.tenantId, row.id, row.sealed, sealed)) report.resealed++;
      } catch (error) {
        report.failed.push({ tenantId: row.tenantId, keyId: row.id, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return report;
  };
}
