// The KeyManager port on a PKCS#11 token (docs/key-custody.md): each key pair is made inside the
// token and never leaves it; the store keeps the key's row (its public JWK, `custody: 'pkcs11'`,
// nothing sealed), so that every server on the same store and token finds the same keys.

import { type Clock, DomainError, type Ids, type KeyManager, type KeyRepository, managedKeyOf, type StoredKey } from '@vellum/core';
import type { Pkcs11Token } from './token.ts';

export interface Pkcs11KeyManagerOptions {
  token: Pkcs11Token;
  keys: KeyRepository;
  ids: Ids;
  clock: Clock;
}

/** The token object's label: the key is found by its owner and id together (token.ts). */
export const pkcs11LabelOf = (tenantId: string, keyId: string) => `vellum:${tenantId}:${keyId}`;

export function createPkcs11KeyManager(options: Pkcs11KeyManagerOptions): KeyManager {
  const { token, keys, ids, clock } = options;
  return {
    async create(tenantId, algorithm) {
      if (!token.supports(algorithm)) {
        throw new DomainError('BadRequest', `The PKCS#11 token "${token.label}" that holds this tenant's keys cannot make ${algorithm} keys`);
      }
      const id = ids.uuid();
      const label = pkcs11LabelOf(tenantId, id);
      const publicJwk = await token.generate(algorithm, id, label);
      const stored: StoredKey = { id, tenantId, algorithm, publicJwk, sealed: '', custody: 'pkcs11', createdAt: clock.now().toISOString() };
      try {
        await keys.insert(stored);
      } catch (error) {
        // No row names the pair: it would be a key nobody can use or destroy.
        await token.destroy(id, label).catch(() => false);
        throw error;
      }
      return managedKeyOf(stored);
    },

    async get(tenantId, id) {
      const stored = await keys.get(tenantId, id);
      return stored && managedKeyOf(stored);
    },

    async sign(tenantId, id, data) {
      // The row first, as the software KeyManager does: a destroyed key stops signing at once here
      // and within the read cache's TTL on other servers.
      const stored = await keys.get(tenantId, id);
      if (!stored) throw new DomainError('NotFound', 'The signing key does not exist or was destroyed');
      if (stored.custody !== 'pkcs11') throw new Error(`The key ${id} is not held by a PKCS#11 token`);
      return token.sign(id, pkcs11LabelOf(tenantId, id), stored.algorithm, data);
    },

    async destroy(tenantId, id) {
      const stored = await keys.get(tenantId, id);
      if (!stored || stored.custody !== 'pkcs11') return false;
      // The row goes first, so that nothing signs with the key once this returns.
      const deleted = await keys.delete(tenantId, id);
      await token.destroy(id, pkcs11LabelOf(tenantId, id));
      return deleted;
    },
  };
}
