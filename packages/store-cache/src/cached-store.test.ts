import { createMemoryStore } from '@vellum/storage-memory';
import { describeStoreContract } from '@vellum/testing';
import { cacheReads } from './read-cache.ts';

// The cache must keep every promise of the Store it wraps: the contract runs through a long time
// to live, so each read it repeats is served from the cache unless a write has emptied it.
describeStoreContract('memory behind cacheReads', async () => cacheReads(createMemoryStore(), { ttlMs: 60_000 }));
