import type { KeyAlgorithm, ManagedKey } from './model.ts';
import type { KeyCreateOptions, KeyManager } from './ports.ts';

/**
 * What `use` makes with new keys of `algorithms` (made in that order). When making a key or `use`
 * fails (the record that names the keys could not be stored, say), the keys already made are
 * destroyed again, so that none is left that no record names, and the error stands.
 */
export async function withNewKeys<T>(
  keys: KeyManager,
  tenantId: string,
  algorithms: readonly KeyAlgorithm[],
  use: (made: ManagedKey[]) => Promise<T>,
  options?: KeyCreateOptions,
): Promise<T> {
  const made: ManagedKey[] = [];
  try {
    for (const algorithm of algorithms) made.push(await keys.create(tenantId, algorithm, options));
    return await use(made);
  } catch (error) {
    for (const key of made) await keys.destroy(tenantId, key.id).catch(() => false);
    throw error;
  }
}

/** withNewKeys for one key. */
export function withNewKey<T>(
  keys: KeyManager,
  tenantId: string,
  algorithm: KeyAlgorithm,
  use: (key: ManagedKey) => Promise<T>,
  options?: KeyCreateOptions,
): Promise<T> {
  return withNewKeys(keys, tenantId, [algorithm], ([key]) => use(key as ManagedKey), options);
}
