// SQLite shared by several processes (`vellum serve` with VELLUM_WORKERS > 1): each process has its
// own connection. The stores here run in child processes, because better-sqlite3 waits for a lock
// synchronously: two connections in one thread cannot both hold a transaction open and wait.
import { spawn } from 'node:child_process';
import type { Store } from '@vellum/core';
import Database from 'better-sqlite3';
import { makeDelivery, makeTenant, makeUser, makeWebhook } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { Kysely } from 'kysely';
import type { VellumDatabase } from './database.ts';
import { createSqlStoreFromKysely, ImmediateSqliteDialect, openSqlStore } from './index.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import { tempFolder } from '../test/temp-folder.ts';

const STORE_MODULE = new URL('./index.ts', import.meta.url).href;

/**
 * A child process with its own Store on `file`. It opens the store, says "ready", waits for "go" on
 * stdin (so that the children start their work together), runs `job`, and prints its JSON result.
 * `job` is the body of an async function of (store, args).
 */
const CHILD = `
const [moduleUrl, file, job, args] = process.argv.slice(1);
const { createSqlStore } = await import(moduleUrl);
const store = createSqlStore({ kind: 'sqlite', filename: file });
const run = new (async function () {}).constructor('store', 'args', job);
process.stdout.write('ready\\n');
process.stdin.once('data', async () => {
  try {
    process.stdout.write(JSON.stringify(await run(store, JSON.parse(args))) + '\\n');
  } finally {
    await store.close();
    process.stdin.destroy();
  }
});
`;

interface Child {
  ready: Promise<void>;
  go(): void;
  result: Promise<unknown>;
}

function child(file: string, job: string, args: unknown): Child {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', CHILD, STORE_MODULE, file, job, JSON.stringify(args)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let signalReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  proc.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    if (out.startsWith('ready\n')) signalReady();
  });
  proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const result = new Promise<unknown>((resolve, reject) =>
    proc.once('exit', (code) => {
      const line = out.split('\n')[1];
      if (code === 0 && line) resolve(JSON.parse(line));
      else reject(new Error(`child exited with ${code}:\n${out}\n${err}`));
    }),
  );
  return { ready: Promise.race([ready, result.then(() => undefined)]), go: () => proc.stdin.write('go\n'), result };
}

/** Runs `job` in `count` processes at once on `file` and returns their results. */
async function inProcesses(count: number, file: string, job: string, args: unknown): Promise<unknown[]> {
  const children = Array.from({ length: count }, () => child(file, job, args));
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.go();
  return Promise.all(children.map((c) => c.result));
}

describe('SQLite shared by several processes', () => {
  const folder = tempFolder('vellum-processes-');

  /** The store as the server opens it, or as an embedder builds it on its own Kysely with the exported dialect. */
  const opened = {
    server: (file: string) => openSqlStore({ kind: 'sqlite', filename: file }),
    embedder: async (file: string) => {
      await (await openSqlStore({ kind: 'sqlite', filename: file })).close(); // migrate first
      const db = new Kysely<VellumDatabase>({ dialect: new ImmediateSqliteDialect({ database: openSqliteDatabase({ filename: file, busyTimeoutMs: 5000 }) }) });
      return createSqlStoreFromKysely(db, 'sqlite');
    },
  };

  async function withStore<T>(
    name: string,
    work: (store: Store, file: string) => Promise<T>,
    open: (file: string) => Promise<Store> = opened.server,
  ): Promise<T> {
    const file = folder(name);
    const store = await open(file);
    try {
      return await work(store, file);
    } finally {
      await store.close();
    }
  }

  it.each(['server', 'embedder'] as const)(
    'begins transactions immediate (%s store): a transaction that has only read already holds the write lock',
    async (how) => {
      await withStore(
        `immediate-${how}.db`,
        async (store, file) => {
          const tenant = makeTenant();
          await store.tenants.insert(tenant);
          // A second better-sqlite3 connection: the same SQLite library, which knows both are in one
          // process (a second copy of SQLite, such as node:sqlite's, would not see this process's locks).
          const other = new Database(file, { timeout: 0 });
          try {
            let write = '';
            await store.transaction(async (tx) => {
              await tx.tenants.findById(tenant.id);
              // Deferred, the transaction would hold no lock yet and this write would succeed, leaving
              // the transaction's snapshot stale for its own write (SQLITE_BUSY_SNAPSHOT).
              try {
                other.prepare('update tenants set name = ? where id = ?').run('Other', tenant.id);
                write = 'written';
              } catch (error) {
                write = (error as Error).message;
              }
            });
            expect(write).toMatch(/database is locked/);
          } finally {
            other.close();
          }
        },
        opened[how],
      );
    },
  );

  it('waits for another connection’s write lock without stopping the event loop, and writes once it is free', async () => {
    await withStore('busy-wait.db', async (store, file) => {
      // A second better-sqlite3 connection holds the write lock for 100 ms, released by a timer:
      // a wait that blocked the event loop would never let that timer run.
      const other = new Database(file, { timeout: 0 });
      try {
        other.prepare('begin immediate').run();
        let ticks = 0;
        const ticking = setInterval(() => (ticks += 1), 5);
        setTimeout(() => other.prepare('commit').run(), 100);
        const tenant = makeTenant();
        await store.tenants.insert(tenant);
        clearInterval(ticking);
        expect((await store.tenants.findById(tenant.id))?.id).toBe(tenant.id);
        expect(ticks).toBeGreaterThan(5);
      } finally {
        other.close();
      }
    });
  });

  it('gives up with SQLITE_BUSY once the busy timeout has passed', async () => {
    const file = folder('busy-timeout.db');
    await (await openSqlStore({ kind: 'sqlite', filename: file })).close();
    const store = await openSqlStore({ kind: 'sqlite', filename: file, busyTimeoutMs: 50 });
    const other = new Database(file, { timeout: 0 });
    try {
      other.prepare('begin immediate').run();
      const release = setTimeout(() => other.prepare('commit').run(), 1000);
      const failure = await store.tenants.insert(makeTenant()).then(
        () => undefined,
        (e: unknown) => e,
      );
      clearTimeout(release);
      other.prepare('commit').run();
      expect(failure).toMatchObject({ code: 'SQLITE_BUSY' });
    } finally {
      other.close();
      await store.close();
    }
  });

  it('read-then-write transactions from two processes, interleaved, all succeed and lose no update', async () => {
    await withStore('counter.db', async (store, file) => {
      const tenant = makeTenant();
      await store.tenants.insert(tenant);
      const user = makeUser(tenant.id, { claims: { count: 0 } });
      await store.users.insert(user);
      const rounds = 60;
      // Each reads the counter, yields (so the other process runs), then writes it plus one.
      const job = `
        const failures = [];
        for (let i = 0; i < args.rounds; i++) {
          try {
            await store.transaction(async (tx) => {
              const user = await tx.users.get(args.tenantId, args.userId);
              await new Promise((resolve) => setTimeout(resolve, 1));
              await tx.users.update({ ...user, claims: { count: user.claims.count + 1 }, updatedAt: new Date().toISOString() });
            });
          } catch (error) {
            failures.push(error.code ?? error.message);
          }
        }
        return failures;
      `;
      const results = await inProcesses(2, file, job, { tenantId: tenant.id, userId: user.id, rounds });
      expect(results).toEqual([[], []]);
      expect((await store.users.get(tenant.id, user.id))?.claims).toEqual({ count: 2 * rounds });
    });
  });

  it('webhook deliveries claimed by two processes at once go to one of them each (the claim race, docs/decisions.md "Webhooks")', async () => {
    await withStore('claims.db', async (store, file) => {
      const tenant = makeTenant();
      await store.tenants.insert(tenant);
      const webhook = makeWebhook(tenant.id);
      await store.webhooks.insert(webhook);
      const deliveries = Array.from({ length: 300 }, () => makeDelivery(webhook, { nextAttemptAt: '2003-01-01T00:00:00.000Z' }));
      await store.webhookDeliveries.insertMany(deliveries);
      // Claim small batches and record each as sent, as the delivery worker does, until none is due.
      const job = `
        const claimed = [];
        for (;;) {
          const batch = await store.webhookDeliveries.claimDue({ now: '2003-01-01T00:00:01.000Z', leaseUntil: '2003-01-01T00:10:00.000Z', limit: 7, claimToken: crypto.randomUUID() });
          if (batch.length === 0) return claimed;
          await new Promise((resolve) => setTimeout(resolve, 1));
          const recorded = await store.webhookDeliveries.recordAttempts(batch.map((c) => ({
            tenantId: c.delivery.tenantId, id: c.delivery.id, claimToken: c.claimToken,
            attempts: [{ at: '2003-01-01T00:00:02.000Z', statusCode: 204, durationMs: 1 }], status: 'succeeded', retriesLeft: c.delivery.retriesLeft,
          })));
          if (recorded.length !== batch.length) throw new Error('a claim was lost');
          claimed.push(...recorded);
        }
      `;
      const [a, b] = (await inProcesses(2, file, job, {})) as [string[], string[]];
      expect(a.length).toBeGreaterThan(0);
      expect(b.length).toBeGreaterThan(0);
      expect(a.length + b.length).toBe(deliveries.length);
      expect(new Set([...a, ...b])).toEqual(new Set(deliveries.map((d) => d.id)));
      const statuses = await Promise.all(deliveries.map(async (d) => (await store.webhookDeliveries.get(tenant.id, d.id))?.status));
      expect(new Set(statuses)).toEqual(new Set(['succeeded']));
    });
  });
});
