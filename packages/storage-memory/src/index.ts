export { createMemoryStore } from './memory-store.ts';
export type { MemoryStoreOptions } from './memory-store.ts';
