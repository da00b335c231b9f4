// Races between two servers sharing one database: each race gets two stores on one fresh SQLite
// file, and (when VELLUM_TEST_DATABASE_URL is set; CI always sets it) on one fresh PostgreSQL database.
import type { Store } from '@vellum/core';
import { afterAll, describe, it } from 'vitest';
import { openSqlStore, type SqlStoreOptions } from '../src/index.ts';
import { freshDatabases, pgAdminUrl } from './postgres.ts';
import { tempFolder } from './temp-folder.ts';

export type Race = (a: Store, b: Store) => Promise<void>;

async function twoServers(options: SqlStoreOptions, race: Race): Promise<void> {
  const stores: Store[] = [await openSqlStore(options), await openSqlStore(options)];
  try {
    await race(stores[0] as Store, stores[1] as Store);
  } finally {
    for (const store of stores) await store.close();
  }
}

/** Runs each named race on SQLite (`<what> across two connections on one SQLite file`) and on PostgreSQL. */
export function describeRaces(what: string, races: ReadonlyArray<[string, Race]>): void {
  describe(`${what} across two connections on one SQLite file`, () => {
    const file = tempFolder('vellum-races-');
    it.each(races)('%s', async (_name, race) => {
      await twoServers({ kind: 'sqlite', filename: file(`${crypto.randomUUID()}.db`) }, race);
    });
  });

  // Skipped only when no PostgreSQL is configured; CI sets VELLUM_TEST_DATABASE_URL.
  describe.skipIf(pgAdminUrl === undefined)(`${what} across two servers sharing PostgreSQL`, () => {
    const databases = freshDatabases();
    afterAll(() => databases.dropAll());
    it.each(races)('%s', async (_name, race) => {
      await twoServers({ kind: 'postgres', connectionString: await databases.create() }, race);
    });
  });
}
