import { describeStoreContract } from '@vellum/testing';
import { createMemoryStore } from './memory-store.ts';

describeStoreContract('memory', async () => createMemoryStore());
