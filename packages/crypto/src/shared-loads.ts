/**
 * Loads of a per-tenant value that callers asking at once share: while one load for a key is under
 * way, every caller for that key gets its promise, and the value it loaded is cached for the tenant.
 * `load(tenantId, create)` may say there is none (undefined), which is not cached.
 */
export function sharedLoads<V>(load: (tenantId: string, create: boolean) => Promise<V | undefined>) {
  const cache = new Map<string, V>();
  const loading = new Map<string, Promise<V | undefined>>();
  return {
    cache,
    /** Loads the tenant's value (sharing a load under way), caches and returns it. */
    async load(tenantId: string, create: boolean): Promise<V | undefined> {
      const flight = `${tenantId} ${create}`;
      let pending = loading.get(flight);
      if (!pending) {
        pending = load(tenantId, create).finally(() => loading.delete(flight));
        loading.set(flight, pending);
      }
      const value = await pending;
      if (value !== undefined) cache.set(tenantId, value);
      return value;
    },
  };
}
