import { describeStoreContract, makeOffer, makeTenant, makeUser } from '@vellum/testing';
import type { Store } from '@vellum/core';
import { CamelCasePlugin, type Insertable, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledOnce, UntraceableQueryError, verifyCompiledOnceEveryCall } from './compiled-once.ts';
import type { VellumDatabase } from './database.ts';
import { ImmediateSqliteDialect, migrateToLatest, openSqlStore, type SqlDialectKind } from './index.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import { toTenantRow } from './tenants.table.ts';
import { toOfferRow, toUserRow, type UsersTable } from './users-offers.table.ts';
import { freshDatabases, pgAdminUrl } from '../test/postgres.ts';
import { tempFolder } from '../test/temp-folder.ts';

type Db = Kysely<VellumDatabase>;

const userById = (label: string) =>
  compiledOnce(label, (db, p: { tenantId: string; id: string }) =>
    db.selectFrom('users').selectAll().where('tenant_id', '=', p.tenantId).where('id', '=', p.id),
  );

/** The contract of compiledOnce on one dialect; `open` gives a migrated database, `close` ends it. */
function describeCompiledOnce(kind: SqlDialectKind, open: () => Promise<Db>) {
  describe(`compiledOnce on ${kind}`, () => {
    let db: Db;
    const tenantId = crypto.randomUUID();
    beforeAll(async () => {
      db = await open();
      await db
        .insertInto('tenants')
        .values(toTenantRow(makeTenant({ id: tenantId })))
        .execute();
    });
    afterAll(() => db?.destroy());

    /** A user row, inserted with the builder. */
    async function someUser(overrides: Partial<Insertable<UsersTable>> = {}) {
      const row = { ...toUserRow(makeUser(tenantId)), ...overrides };
      await db.insertInto('users').values(row).execute();
      return row;
    }

    it('gives the rows, the first row and the affected count the builder gives', async () => {
      const user = await someUser({ auth_provider_url: 'https://idp.example', auth_subject_id: 'sub-1' });
      const byId = userById('users by id');
      const builder = db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('id', '=', user.id);
      expect(await byId.rows(db, { tenantId, id: user.id })).toEqual(await builder.execute());
      expect(await byId.first(db, { tenantId, id: user.id })).toEqual(await builder.executeTakeFirst());
      expect(await byId.first(db, { tenantId, id: crypto.randomUUID() })).toBeUndefined();

      const offer = toOfferRow(makeOffer(tenantId, user.id), kind);
      const insert = compiledOnce('offers insert', (db, row: typeof offer) => db.insertInto('offers').values(row));
      await insert.execute(db, offer);
      const stored = await db.selectFrom('offers').selectAll().where('id', '=', offer.id).executeTakeFirstOrThrow();
      const { seq, ...rest } = stored;
      expect(rest).toEqual(offer);
      expect(rest.issued_configuration_ids).toBe(''); // nothing issued yet

      const rename = compiledOnce('users rename', (db, p: { tenantId: string; claims: string }) =>
        db.updateTable('users').set({ claims: p.claims }).where('tenant_id', '=', p.tenantId),
      );
      const count = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow();
      expect(await rename.affectedRows(db, { tenantId, claims: '{}' })).toBe(BigInt(count.n));
      expect(await rename.affectedRows(db, { tenantId: crypto.randomUUID(), claims: '{}' })).toBe(0n);

      // An insert that does nothing on conflict: 1n, then 0n, as numInsertedOrUpdatedRows.
      const nonce = compiledOnce('nonce', (db, row: { tenant_id: string; nonce: string; expires_at: string }) =>
        db
          .insertInto('nonces')
          .values(row)
          .onConflict((oc) => oc.columns(['tenant_id', 'nonce']).doNothing()),
      );
      const row = { tenant_id: tenantId, nonce: crypto.randomUUID(), expires_at: new Date().toISOString() };
      expect(await nonce.affectedRows(db, row)).toBe(1n);
      expect(await nonce.affectedRows(db, row)).toBe(0n);
    });

    it('maps a parameter used twice, parameters in sql fragments, and parameters in set, where and returning in any order', async () => {
      const user = await someUser();
      // The builder's clauses are written out of SQL order: returning, where, set.
      const touch = compiledOnce('touch', (db, p: { tenantId: string; id: string; at: string; label: string; subject: string | null }) =>
        db
          .updateTable('users')
          .returning(['id', 'updated_at', sql<string>`cast(${p.label} as text) || cast(${p.at} as text)`.as('note')])
          .where('id', '=', p.id)
          .where(sql<boolean>`tenant_id = ${p.tenantId} and created_at <= ${p.at}`)
          .set({ updated_at: p.at, auth_subject_id: sql<string | null>`coalesce(${p.subject}, ${p.label})`, auth_provider_url: p.subject }),
      );
      const at = new Date(Date.now() + 1000).toISOString();
      const params = { tenantId, id: user.id, at, label: 'L:', subject: null };
      // The same SQL text and parameters as the builder with these values.
      const built = db
        .updateTable('users')
        .returning(['id', 'updated_at', sql<string>`cast(${'L:'} as text) || cast(${at} as text)`.as('note')])
        .where('id', '=', user.id)
        .where(sql<boolean>`tenant_id = ${tenantId} and created_at <= ${at}`)
        .set({ updated_at: at, auth_subject_id: sql<string | null>`coalesce(${null}, ${'L:'})`, auth_provider_url: null })
        .compile();
      const compiled = touch.compile(db, params);
      expect(compiled.sql).toBe(built.sql);
      expect(compiled.parameters).toEqual(built.parameters);
      expect(compiled.parameters.filter((v) => v === at)).toHaveLength(3);

      expect(await touch.rows(db, params)).toEqual([{ id: user.id, updated_at: at, note: `L:${at}` }]);
      const later = new Date(Date.now() + 2000).toISOString();
      expect(await touch.first(db, { tenantId, id: user.id, at: later, label: 'M:', subject: 'sub-2' })).toEqual({
        id: user.id,
        updated_at: later,
        note: `M:${later}`,
      });
      const row = await db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ updated_at: later, auth_subject_id: 'sub-2', auth_provider_url: 'sub-2' });
      // A wrong tenant matches nothing: the where clause got the right values.
      expect(await touch.rows(db, { ...params, tenantId: crypto.randomUUID() })).toEqual([]);
    });

    it('keeps constants of the query where they are', async () => {
      const user = await someUser({ auth_provider_url: 'https://idp.example', auth_subject_id: 'constant' });
      const q = compiledOnce('constants', (db, p: { id: string }) =>
        db.selectFrom('users').select('id').where('auth_subject_id', '=', 'constant').where('id', '=', p.id).limit(5),
      );
      expect(q.compile(db, { id: user.id }).parameters).toEqual(['constant', user.id, 5]);
      expect(await q.rows(db, { id: user.id })).toEqual([{ id: user.id }]);
    });

    it('builds and compiles once per Kysely instance, its transactions included', async () => {
      const user = await someUser();
      const byId = userById('users by id, counted');
      expect(byId.builds).toBe(0);
      // The first call builds twice: with stand-ins, and with its own values to check the mapping.
      expect(await byId.first(db, { tenantId, id: user.id })).toMatchObject({ id: user.id });
      expect(byId.builds).toBe(2);
      for (let i = 0; i < 20; i++) await byId.first(db, { tenantId, id: i % 2 === 0 ? user.id : crypto.randomUUID() });
      await db.transaction().execute(async (tx) => {
        expect(await byId.first(tx, { tenantId, id: user.id })).toMatchObject({ id: user.id });
      });
      expect(byId.builds).toBe(2);
    });

    it('runs inside the transaction it is given: its writes roll back with it, and it reads the transaction’s own writes', async () => {
      const user = await someUser();
      const byId = userById('users by id, transaction');
      const insert = compiledOnce('users insert', (db, row: Insertable<UsersTable>) => db.insertInto('users').values(row));
      const written = toUserRow(makeUser(tenantId));
      const failure = new Error('roll back');
      await expect(
        db.transaction().execute(async (tx) => {
          await insert.execute(tx, written);
          expect(await byId.first(tx, { tenantId, id: written.id })).toMatchObject({ id: written.id });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await byId.first(db, { tenantId, id: written.id })).toBeUndefined();
      expect(await byId.first(db, { tenantId, id: user.id })).toMatchObject({ id: user.id });

      await db.transaction().execute((tx) => insert.execute(tx, written));
      expect(await byId.first(db, { tenantId, id: written.id })).toMatchObject({ id: written.id });
    });

    it('passes driver errors through unchanged (a unique violation stays the driver’s error)', async () => {
      const insert = compiledOnce('users insert, twice', (db, row: Insertable<UsersTable>) => db.insertInto('users').values(row));
      const row = toUserRow(makeUser(tenantId));
      await insert.execute(db, row);
      const failure = (write: Promise<unknown>) =>
        write.then(
          () => undefined,
          (e: unknown) => e as Error & { code?: unknown },
        );
      const viaBuilder = await failure(db.insertInto('users').values(row).execute());
      const viaCompiled = await failure(insert.execute(db, row));
      expect(viaBuilder).toBeInstanceOf(Error);
      expect(viaCompiled?.constructor).toBe(viaBuilder?.constructor);
      expect(viaCompiled?.code).toBe(viaBuilder?.code);
      expect(viaCompiled?.message).toBe(viaBuilder?.message);
    });

    it('refuses a mapping it cannot trust, on every call, and runs nothing', async () => {
      const user = await someUser();
      const p = { tenantId, id: user.id };
      const refused = async (q: { first(db: Db, params: typeof p): Promise<unknown> }, message: RegExp) => {
        for (let i = 0; i < 2; i++) {
          const error = await q.first(db, p).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(UntraceableQueryError);
          expect((error as Error).message).toMatch(message);
        }
      };
      // Transformed on the way (here by the builder itself).
      await refused(
        compiledOnce('transformed', (db, q: typeof p) =>
          db.selectFrom('users').selectAll().where('tenant_id', '=', q.tenantId).where('id', '=', q.id.toUpperCase()),
        ),
        /transformed|does not reach/,
      );
      await refused(
        compiledOnce('wrapped', (db, q: typeof p) =>
          db.selectFrom('users').selectAll().where('tenant_id', '=', q.tenantId).where('id', '=', `${q.id}`.padEnd(200, ' ')),
        ),
        /transformed/,
      );
      // Written into the SQL text.
      await refused(
        compiledOnce('inlined', (db, q: typeof p) => db.selectFrom('users').selectAll().where('tenant_id', '=', q.tenantId).where('id', '=', sql.lit(q.id))),
        /SQL text/,
      );
      // Not used at all.
      await refused(
        compiledOnce('unused', (db, q: typeof p) => db.selectFrom('users').selectAll().where('tenant_id', '=', q.tenantId)),
        /parameter id does not reach/,
      );
      // A name the call does not pass.
      await refused(
        compiledOnce('unknown name', (db, q: typeof p & { other?: string }) =>
          db
            .selectFrom('users')
            .selectAll()
            .where('tenant_id', '=', q.tenantId)
            .where('id', '=', q.id)
            .where('auth_subject_id', '=', q.other as string),
        ),
        /undefined/,
      );
      // A shape that depends on the values (here a branch on the value): the check against the
      // builder with the call's own values finds the difference.
      await refused(
        compiledOnce('value-dependent', (db, q: typeof p) =>
          db
            .selectFrom('users')
            .selectAll()
            .where('tenant_id', '=', q.tenantId)
            .where(q.id.startsWith('\u0000') ? sql<boolean>`id = ${q.id}` : sql<boolean>`id = ${q.id} and 1 = 1`),
        ),
        /shape depends on the values/,
      );
    });

    it('refuses calls whose parameters differ from those it compiled for', async () => {
      const insert = compiledOnce('users insert, strict', (db, row: Insertable<UsersTable>) => db.insertInto('users').values(row));
      const refusal = (row: Insertable<UsersTable>) =>
        insert.execute(db, row).then(
          () => undefined,
          (e: unknown) => e,
        );
      // Undefined at the first call: an insert would drop the column.
      expect(await refusal({ ...toUserRow(makeUser(tenantId)), auth_subject_id: undefined })).toBeInstanceOf(UntraceableQueryError);
      await insert.execute(db, toUserRow(makeUser(tenantId)));
      expect(await refusal({ ...toUserRow(makeUser(tenantId)), auth_subject_id: undefined })).toBeInstanceOf(UntraceableQueryError);
      const { auth_provider_url, ...missing } = toUserRow(makeUser(tenantId));
      expect(await refusal(missing)).toBeInstanceOf(UntraceableQueryError);
      expect(await refusal({ ...toUserRow(makeUser(tenantId)), extra: 'x' } as Insertable<UsersTable>)).toBeInstanceOf(UntraceableQueryError);
    });

    it('runs the builder on every call on an instance with plugins', async () => {
      const user = await someUser();
      const byId = userById('users by id, plugins');
      const withPlugin = db.withPlugin(new CamelCasePlugin());
      expect(await byId.first(withPlugin, { tenantId, id: user.id })).toMatchObject({ id: user.id });
      expect(await byId.first(withPlugin, { tenantId, id: user.id })).toMatchObject({ id: user.id });
      expect(byId.builds).toBe(2);
      expect(await byId.first(db, { tenantId, id: user.id })).toMatchObject({ id: user.id, tenant_id: tenantId });
      expect(byId.builds).toBe(4);
    });
  });
}

/** The whole store contract, with every compiled-once call also built and compared with the builder. */
function describeCheckedContract(kind: 'sqlite' | 'postgres', open: () => Promise<Store>) {
  describe('with every call checked against the builder', () => {
    let was = false;
    beforeAll(() => {
      was = verifyCompiledOnceEveryCall(true);
    });
    afterAll(() => {
      verifyCompiledOnceEveryCall(was);
    });
    describeStoreContract(kind, open);
  });
}

describe('SQLite', () => {
  const file = tempFolder('vellum-compiled-once-');

  describeCompiledOnce('sqlite', async () => {
    const database = openSqliteDatabase({ filename: file('compiled-once.db'), busyTimeoutMs: 0 });
    const db = new Kysely<VellumDatabase>({ dialect: new ImmediateSqliteDialect({ database }, { busyRetryMs: 5000, groupCommit: true }) });
    await migrateToLatest(db, 'sqlite');
    return db;
  });

  describeCheckedContract('sqlite', () => openSqlStore({ kind: 'sqlite', filename: file('contract.db') }));
});

describe.skipIf(pgAdminUrl === undefined)('PostgreSQL', () => {
  const databases = freshDatabases();
  let url = '';
  beforeAll(async () => {
    url = await databases.create();
  });
  afterAll(() => databases.dropAll());

  describeCompiledOnce('postgres', async () => {
    const db = new Kysely<VellumDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 4 }) }) });
    await migrateToLatest(db, 'postgres');
    return db;
  });

  describeCheckedContract('postgres', () => openSqlStore({ kind: 'postgres', connectionString: url }));
});
