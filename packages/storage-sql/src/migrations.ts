// One migration list for both dialects. A migration is frozen once released: it builds on
// Kysely<any>, never on the current row types, and a schema change is a new entry at the end.

import {
  type ColumnDefinitionBuilder,
  type Kysely,
  type Migration,
  type MigrationResultSet,
  Migrator,
  PostgresIntrospector,
  sql,
  type SqlBool,
  SqliteIntrospector,
} from 'kysely';
import type { SqlDialectKind } from './database.ts';

// The Migrator's bookkeeping tables carry our prefix so that a host with its own Kysely
// migrations in the same database never mixes the two histories.
const MIGRATION_TABLE = 'vellum_migration';
const MIGRATION_LOCK_TABLE = 'vellum_migration_lock';

/** What every table starts with: its position in creation order, which cursors carry. */
function seqColumn(kind: SqlDialectKind) {
  return kind === 'sqlite'
    ? ['integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement()] as const
    : ['bigint', (c: ColumnDefinitionBuilder) => c.primaryKey().generatedAlwaysAsIdentity()] as const;
}

function migrations(kind: SqlDialectKind): Record<string, Migration> {
  const [seqType, seq] = seqColumn(kind);
  const bool = kind === 'sqlite' ? 'integer' : 'boolean';
  // Timestamps are ISO 8601 text compared by range; byte order is time order, so PostgreSQL must
  // not apply a linguistic collation. SQLite compares text bytewise by default.
  const timestampText = kind === 'sqlite' ? sql`text` : sql`text collate "C"`;

  return {
    '0001_foundation': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('tenants')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('subdomain', 'text', (c) => c.notNull())
          .addColumn('region', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('logging_level', 'integer', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('tenants_id_unique').unique().on('tenants').column('id').execute();
        await db.schema.createIndex('tenants_subdomain_unique').unique().on('tenants').column('subdomain').execute();

        await db.schema
          .createTable('admin_clients')
          .addColumn('seq', seqType, seq)
          .addColumn('client_id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('secret_hash', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('admin_clients_client_id_unique').unique().on('admin_clients').column('client_id').execute();
        await db.schema.createIndex('admin_clients_tenant_id_seq').on('admin_clients').columns(['tenant_id', 'seq']).execute();

        await db.schema
          .createTable('custom_domains')
          .addColumn('seq', seqType, seq)
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('domain', 'text', (c) => c.notNull())
          .addColumn('name', 'text')
          .addColumn('logo_url', 'text')
          .addColumn('verification_token', 'text', (c) => c.notNull())
          .addColumn('is_verified', bool, (c) => c.notNull())
          .addColumn('verified_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('custom_domains_tenant_id_unique').unique().on('custom_domains').column('tenant_id').execute();
        // Only one tenant may ever hold a verified name. This index is the rule, not a check
        // before writing: two servers verifying the same name at once cannot both succeed.
        // `where is_verified` reads the same in both dialects (SQLite takes 1 as true).
        await db.schema
          .createIndex('custom_domains_verified_domain_unique')
          .unique()
          .on('custom_domains')
          .column('domain')
          .where(sql.ref<SqlBool>('is_verified'))
          .execute();

        // No foreign key to tenants: events are an append-only log written in batches, and one
        // stray tenant id must not cost the rest of its batch.
        await db.schema
          .createTable('analytic_events')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('category', 'text', (c) => c.notNull())
          .addColumn('timestamp', timestampText, (c) => c.notNull())
          .addColumn('request_id', 'text', (c) => c.notNull())
          .addColumn('request_ip', 'text', (c) => c.notNull())
          .addColumn('client_id', 'text')
          .addColumn('user_agent', 'text')
          .addColumn('data', 'text')
          .execute();
        await db.schema.createIndex('analytic_events_tenant_id_seq').on('analytic_events').columns(['tenant_id', 'seq']).execute();

        await db.schema
          .createTable('platform_keys')
          .addColumn('seq', seqType, seq)
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('sealed', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('platform_keys_name_unique').unique().on('platform_keys').column('name').execute();
      },
    },

    '0002_keys': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('keys')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('algorithm', 'text', (c) => c.notNull())
          .addColumn('public_jwk', 'text', (c) => c.notNull())
          .addColumn('sealed', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('keys_id_unique').unique().on('keys').column('id').execute();
        await db.schema.createIndex('keys_tenant_id_seq').on('keys').columns(['tenant_id', 'seq']).execute();
      },
    },

    '0003_dids': {
      async up(db: Kysely<any>) {
        // A DID is unique within its tenant, not globally: a did:web names a host, and a custom
        // domain released by one tenant may later be verified by another.
        await db.schema
          .createTable('dids')
          .addColumn('seq', seqType, seq)
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('did', 'text', (c) => c.notNull())
          .addColumn('method', 'text', (c) => c.notNull())
          .addColumn('keys', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('dids_tenant_id_did_unique').unique().on('dids').columns(['tenant_id', 'did']).execute();
        await db.schema.createIndex('dids_tenant_id_seq').on('dids').columns(['tenant_id', 'seq']).execute();
      },
    },
  };
}

/** The names of every migration, in the order they apply. */
export function migrationNames(): string[] {
  return Object.keys(migrations('sqlite'));
}

/** Names the dialect of a Kysely instance from its introspector (a public, dialect-specific class). */
export function dialectKindOf(db: Kysely<any>): SqlDialectKind {
  const introspector = db.introspection;
  if (introspector instanceof SqliteIntrospector) return 'sqlite';
  if (introspector instanceof PostgresIntrospector) return 'postgres';
  throw new Error('Vellum’s SQL store supports SQLite and PostgreSQL dialects only');
}

/** Brings the schema up to date; safe to run on every start and from several servers at once. Returns the names applied. */
export async function migrateToLatest(db: Kysely<any>, kind: SqlDialectKind = dialectKindOf(db)): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(kind) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(failed === undefined ? 'Database migration failed' : `Database migration ${failed} failed`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
