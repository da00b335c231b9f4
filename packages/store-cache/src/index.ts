// The public surface of @vellum/store-cache.

// cacheReads: wraps any Store so the rows read on nearly every request are read once per TTL (docs/decisions.md, Per-process read cache).
export { cacheReads } from './read-cache.ts';
export type { ReadCacheOptions } from './read-cache.ts';
