import type { Repositories, Store } from '@vellum/core';

/** How long a cached row may be served, and how many rows each kind keeps. */
export interface ReadCacheOptions {
  /** Milliseconds a row read from the store is reused (0 turns caching off). */
  ttlMs: number;
  /** Rows kept per kind; the oldest go first (default 10,000). */
  maxEntries?: number;
  /** Milliseconds since some fixed point; `performance.now` unless a test supplies its own. */
  now?: () => number;
}

/** The rows that are read on nearly every request and written rarely. */
type Kind = 'tenants' | 'customDomains' | 'configurations' | 'keys' | 'clients';

interface Entry {
  value: unknown;
  expires: number;
}

/** Freezes a row and everything in it, so callers sharing one cached row cannot change it for each other. */
function deepFreeze<T>(value: T): T {
  // Byte arrays cannot be frozen (Object.freeze throws on a view with elements); none is cached today.
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The repositories whose rows are cached, and the kind each one's rows are. */
type CachedRepository = 'tenants' | 'customDomains' | 'credentialConfigurations' | 'keys' | 'clients';
const KIND_OF: Record<CachedRepository, Kind> = {
  tenants: 'tenants',
  customDomains: 'customDomains',
  credentialConfigurations: 'configurations',
  keys: 'keys',
  clients: 'clients',
};
const CACHED = Object.keys(KIND_OF) as CachedRepository[];

/**
 * The methods of each cached repository that only read. Every other method counts as a write, so
 * a write method added to a port later empties the cache without anyone remembering to list it.
 */
const READS: Record<Kind, readonly string[]> = {
  tenants: ['findById', 'findBySubdomain', 'list'],
  customDomains: ['get', 'findVerified'],
  configurations: ['get', 'list', 'listAll', 'listStamps'],
  keys: ['get', 'listSealedIn'],
  clients: ['findByClientId', 'list'],
};

/** The repository with each method not in `reads` calling `wrote` once it has finished (or failed). */
function reportingWrites<R extends object>(repo: R, reads: readonly string[], wrote: () => void): R {
  const wrapped: Record<string, unknown> = { ...(repo as Record<string, unknown>) };
  for (const [name, method] of Object.entries(repo)) {
    if (typeof method !== 'function' || reads.includes(name)) continue;
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await (method as (...a: unknown[]) => Promise<unknown>).apply(repo, args);
      } finally {
        wrote();
      }
    };
  }
  return wrapped as R;
}

/**
 * Wraps a Store so the rows every request reads — the tenant by host, its custom domain, a
 * credential configuration, a key's stored row, the admin client behind a token — are read once per `ttlMs` instead of once per
 * request (docs/decisions.md, Per-process read cache).
 *
 * A write through this Store (or inside one of its transactions, once it commits) empties the
 * cache of that kind at once, so this process never serves a row it changed. Another process
 * sharing the database sees the change within `ttlMs`. Single-use values (codes, nonces, offers)
 * and everything else are never cached.
 */
export function cacheReads(store: Store, options: ReadCacheOptions): Store {
  if (options.ttlMs <= 0) return store;
  const max = options.maxEntries ?? 10_000;
  const now = options.now ?? (() => performance.now());
  const maps: Record<Kind, Map<string, Entry>> = {
    tenants: new Map(),
    customDomains: new Map(),
    configurations: new Map(),
    keys: new Map(),
    clients: new Map(),
  };
  // Bumped by every write of a kind: a read that began before the write does not store its row.
  const generation: Record<Kind, number> = { tenants: 0, customDomains: 0, configurations: 0, keys: 0, clients: 0 };

  const forget = (kind: Kind) => {
    generation[kind] += 1;
    maps[kind].clear();
  };

  async function cached<T>(kind: Kind, key: string, load: () => Promise<T>): Promise<T> {
    const map = maps[kind];
    const hit = map.get(key);
    const t = now();
    if (hit && hit.expires > t) return hit.value as T;
    const started = generation[kind];
    const value = deepFreeze(await load());
    if (generation[kind] === started) {
      map.delete(key);
      if (map.size >= max) map.delete(map.keys().next().value as string);
      map.set(key, { value, expires: t + options.ttlMs });
    }
    return value;
  }

  /** `name` of `repos`, its writes calling `wrote` with the kind it caches. */
  function reporting<K extends CachedRepository>(repos: Repositories, name: K, wrote: (kind: Kind) => void): Repositories[K] {
    const kind = KIND_OF[name];
    return reportingWrites(repos[name], READS[kind], () => wrote(kind));
  }

  /** Repositories whose writes to the cached kinds call `wrote` (right away, or when a transaction commits). */
  function writesReported(repos: Repositories, wrote: (kind: Kind) => void): Pick<Repositories, CachedRepository> {
    return Object.fromEntries(CACHED.map((name) => [name, reporting(repos, name, wrote)])) as Pick<Repositories, CachedRepository>;
  }

  /**
   * `tx` as it is, except that the cached kinds report their writes. Wrapping a repository copies it
   * and makes a closure per write method, and most transactions never touch these: each is wrapped
   * on first use. The other repositories are `tx`'s own, reached through the prototype.
   */
  function reportingView(tx: Repositories, wrote: (kind: Kind) => void): Repositories {
    const view = Object.create(tx) as Repositories;
    for (const name of CACHED) {
      let wrapped: Repositories[typeof name] | undefined;
      Object.defineProperty(view, name, { enumerable: true, get: () => (wrapped ??= reporting(tx, name, wrote)) });
    }
    return view;
  }

  const direct = writesReported(store, forget);
  return {
    ...store,
    ...direct,
    tenants: {
      ...direct.tenants,
      findById: (id) => cached('tenants', `id ${id}`, () => store.tenants.findById(id)),
      findBySubdomain: (subdomain) => cached('tenants', `sub ${subdomain}`, () => store.tenants.findBySubdomain(subdomain)),
    },
    customDomains: {
      ...direct.customDomains,
      get: (tenantId) => cached('customDomains', `tenant ${tenantId}`, () => store.customDomains.get(tenantId)),
      findVerified: (domain) => cached('customDomains', `domain ${domain}`, () => store.customDomains.findVerified(domain)),
    },
    credentialConfigurations: {
      ...direct.credentialConfigurations,
      get: (tenantId, id) => cached('configurations', `${tenantId} ${id}`, () => store.credentialConfigurations.get(tenantId, id)),
    },
    keys: {
      ...direct.keys,
      get: (tenantId, id) => cached('keys', `${tenantId} ${id}`, () => store.keys.get(tenantId, id)),
    },
    // Read on every admin request to refuse a revoked or rotated client: this process's own change
    // shows at once, another server's within the TTL (docs/limits.md, Admin clients).
    clients: {
      ...direct.clients,
      findByClientId: (clientId) => cached('clients', clientId, () => store.clients.findByClientId(clientId)),
    },
    async transaction(work) {
      // Reads inside a transaction go to the database; writes are reported once it has committed
      // (and also when it fails: forgetting too much costs only a read).
      const touched = new Set<Kind>();
      try {
        return await store.transaction((tx) => work(reportingView(tx, (kind) => touched.add(kind))));
      } finally {
        for (const kind of touched) forget(kind);
      }
    },
  };
}
