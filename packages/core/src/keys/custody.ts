// One KeyManager over several custodies (docs/key-custody.md): software keys sealed in the store,
// and keys a PKCS#11 token holds. A key is made where its tenant's custody says, and used where its
// row says it lives, so that changing a tenant's custody leaves its older keys working.

import { DomainError, invalidField } from '../shared/errors.ts';
import type { KeyCustody } from './model.ts';
import type { KeyManager, KeyRepository } from './ports.ts';

export interface KeyCustodyRouterOptions {
  /** The store's keys: each row says where its private half lives. */
  keys: Pick<KeyRepository, 'get'>;
  /** The KeyManager of each custody this server has; `software` always. */
  managers: { software: KeyManager } & Partial<Record<KeyCustody, KeyManager>>;
  /** Where a tenant's new keys are made. */
  custodyFor(tenantId: string): KeyCustody | Promise<KeyCustody>;
}

/** The KeyManager of a custody, or a refusal that says this server has none. */
function managerOf(managers: KeyCustodyRouterOptions['managers'], custody: KeyCustody): KeyManager {
  const manager = managers[custody];
  if (!manager) {
    throw new DomainError('ServiceUnavailable', `This server has no ${custody} key custody configured (docs/key-custody.md)`);
  }
  return manager;
}

/**
 * A KeyManager that makes each tenant's new keys in that tenant's custody and signs with, and
 * destroys, each key in the custody its row names.
 */
export function routeKeysByCustody(options: KeyCustodyRouterOptions): KeyManager {
  const { keys, managers } = options;
  // With software keys alone, every key is the software KeyManager's (it refuses any other row
  // itself): no read of the key row here on top of its own.
  const only = Object.values(managers).filter((m) => m !== undefined).length === 1 ? managers.software : undefined;
  const ofKey = async (tenantId: string, id: string): Promise<KeyManager | undefined> => {
    if (only) return only;
    const stored = await keys.get(tenantId, id);
    return stored && managerOf(managers, stored.custody ?? 'software');
  };
  return {
    async create(tenantId, algorithm, at) {
      let custody: KeyCustody;
      if (at?.custody !== undefined) {
        // Asked for by name (a resource's `keyCustody`): one this server lacks is the caller's mistake.
        if (!managers[at.custody]) {
          throw invalidField(
            'keyCustody',
            `This server has no ${at.custody} key custody; it has ${Object.keys(managers).join(', ')} (docs/key-custody.md)`,
            at.custody,
          );
        }
        custody = at.custody;
      } else if (at?.sameCustodyAs !== undefined) {
        custody = only ? 'software' : ((await keys.get(tenantId, at.sameCustodyAs))?.custody ?? 'software');
      } else {
        custody = await options.custodyFor(tenantId);
      }
      return managerOf(managers, custody).create(tenantId, algorithm);
    },
    async get(tenantId, id) {
      return managers.software.get(tenantId, id);
    },
    async sign(tenantId, id, data) {
      const manager = await ofKey(tenantId, id);
      if (!manager) throw new DomainError('NotFound', 'The signing key does not exist or was destroyed');
      return manager.sign(tenantId, id, data);
    },
    async destroy(tenantId, id) {
      const manager = await ofKey(tenantId, id);
      return manager ? manager.destroy(tenantId, id) : false;
    },
  };
}
