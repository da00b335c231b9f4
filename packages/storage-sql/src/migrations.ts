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
    ? (['integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement()] as const)
    : (['bigint', (c: ColumnDefinitionBuilder) => c.primaryKey().generatedAlwaysAsIdentity()] as const);
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

    '0004_credential_configurations': {
      async up(db: Kysely<any>) {
        // The columns a query or a rule needs are real columns; the rest of a configuration, which
        // differs by format, is one JSON text.
        await db.schema
          .createTable('credential_configurations')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('format', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('body', 'text', (c) => c.notNull())
          // A fresh random value on every write, so a cheap read tells whether anything changed.
          .addColumn('revision', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('credential_configurations_id_unique').unique().on('credential_configurations').column('id').execute();
        // A type is unique per format within a tenant. This index is the rule, so two servers
        // creating the same type at once cannot both succeed.
        await db.schema
          .createIndex('credential_configurations_tenant_id_format_type_unique')
          .unique()
          .on('credential_configurations')
          .columns(['tenant_id', 'format', 'type'])
          .execute();
        await db.schema
          .createIndex('credential_configurations_tenant_id_format_seq')
          .on('credential_configurations')
          .columns(['tenant_id', 'format', 'seq'])
          .execute();
        await db.schema.createIndex('credential_configurations_tenant_id_seq').on('credential_configurations').columns(['tenant_id', 'seq']).execute();
      },
    },

    '0005_mdoc_pki': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('mdoc_iacas')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('active', bool, (c) => c.notNull())
          .addColumn('activated_at', 'text')
          .addColumn('is_managed', bool, (c) => c.notNull())
          .addColumn('key_id', 'text')
          .addColumn('certificate_pem', 'text', (c) => c.notNull())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('certificate_data', 'text', (c) => c.notNull())
          .addColumn('issuer_alternative_name', 'text')
          .addColumn('crl_uri', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('mdoc_iacas_id_unique').unique().on('mdoc_iacas').column('id').execute();
        // A tenant holds a certificate once; another tenant may import the same one.
        await db.schema.createIndex('mdoc_iacas_tenant_id_fingerprint_unique').unique().on('mdoc_iacas').columns(['tenant_id', 'fingerprint']).execute();
        await db.schema.createIndex('mdoc_iacas_tenant_id_seq').on('mdoc_iacas').columns(['tenant_id', 'seq']).execute();

        // A document signer goes with its IACA (cascade): deleting an IACA removes its signers.
        await db.schema
          .createTable('mdoc_document_signers')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('iaca_id', 'text', (c) => c.notNull().references('mdoc_iacas.id').onDelete('cascade'))
          .addColumn('is_managed', bool, (c) => c.notNull())
          .addColumn('active', bool, (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('public_jwk', 'text', (c) => c.notNull())
          .addColumn('csr_pem', 'text')
          .addColumn('certificate_pem', 'text')
          .addColumn('fingerprint', 'text')
          .addColumn('serial_number', 'text')
          .addColumn('certificate_data', 'text')
          .addColumn('revoked_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('mdoc_document_signers_id_unique').unique().on('mdoc_document_signers').column('id').execute();
        await db.schema.createIndex('mdoc_document_signers_tenant_id_seq').on('mdoc_document_signers').columns(['tenant_id', 'seq']).execute();
        await db.schema.createIndex('mdoc_document_signers_iaca_id_seq').on('mdoc_document_signers').columns(['iaca_id', 'seq']).execute();

        // Revoked certificates of an IACA, for its CRL: kept when the signer record is deleted.
        await db.schema
          .createTable('mdoc_iaca_revocations')
          .addColumn('seq', seqType, seq)
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('iaca_id', 'text', (c) => c.notNull().references('mdoc_iacas.id').onDelete('cascade'))
          .addColumn('serial_number', 'text', (c) => c.notNull())
          .addColumn('revoked_at', 'text', (c) => c.notNull())
          .addColumn('not_after', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('mdoc_iaca_revocations_iaca_id_serial_unique')
          .unique()
          .on('mdoc_iaca_revocations')
          .columns(['iaca_id', 'serial_number'])
          .execute();
      },
    },

    '0006_users_offers_tokens': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('users')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('claims', 'text', (c) => c.notNull())
          .addColumn('auth_provider_url', 'text')
          .addColumn('auth_subject_id', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('users_id_unique').unique().on('users').column('id').execute();
        // What offers reference: a user of the same tenant, never another's.
        await db.schema.createIndex('users_tenant_id_id_unique').unique().on('users').columns(['tenant_id', 'id']).execute();
        await db.schema.createIndex('users_tenant_id_seq').on('users').columns(['tenant_id', 'seq']).execute();
        await db.schema.createIndex('users_tenant_id_auth_subject_id').on('users').columns(['tenant_id', 'auth_subject_id']).execute();

        // Pre-authorized and Authorization Code offers. Codes are kept only as SHA-256 digests. An
        // offer goes with its user (cascade), so deleting a user stops its codes at once.
        await db.schema
          .createTable('offers')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('issuer', 'text', (c) => c.notNull())
          .addColumn('configuration_ids', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text')
          .addColumn('claims', 'text', (c) => c.notNull())
          .addColumn('code_digest', 'text', (c) => c.notNull())
          .addColumn('tx_code_digest', 'text')
          .addColumn('tx_code', 'text')
          .addColumn('request_parameters', 'text')
          .addColumn('by_reference', bool, (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('failed_tx_attempts', 'integer', (c) => c.notNull())
          .addColumn('expires_at', timestampText, (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('used_at', 'text')
          .addForeignKeyConstraint('offers_user_fk', ['tenant_id', 'user_id'], 'users', ['tenant_id', 'id'], (fk) => fk.onDelete('cascade'))
          .execute();
        await db.schema.createIndex('offers_id_unique').unique().on('offers').column('id').execute();
        await db.schema.createIndex('offers_tenant_id_code_digest_unique').unique().on('offers').columns(['tenant_id', 'code_digest']).execute();
        await db.schema.createIndex('offers_tenant_id_user_id').on('offers').columns(['tenant_id', 'user_id']).execute();

        // Single-use c_nonces: consumed by a conditional delete, swept when expired.
        await db.schema
          .createTable('nonces')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('nonce', 'text', (c) => c.notNull())
          .addColumn('expires_at', timestampText, (c) => c.notNull())
          .addPrimaryKeyConstraint('nonces_pk', ['tenant_id', 'nonce'])
          .execute();
        await db.schema.createIndex('nonces_tenant_id_expires_at').on('nonces').columns(['tenant_id', 'expires_at']).execute();

        // Which KeyManager key a tenant signs with for a purpose (wallet access tokens).
        await db.schema
          .createTable('tenant_signing_keys')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('purpose', 'text', (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('tenant_signing_keys_pk', ['tenant_id', 'purpose'])
          .execute();
      },
    },

    '0007_issued_credentials': {
      async up(db: Kysely<any>) {
        // What was issued, never the credential itself (docs/decisions.md "The credential endpoint"). No foreign key to users or
        // offers: the record of an issuance outlives the offer, and a deleted user's credentials
        // must still be found to revoke them.
        await db.schema
          .createTable('issued_credentials')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('format', 'text', (c) => c.notNull())
          .addColumn('credential_configuration_id', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('offer_id', 'text')
          .addColumn('issued_at', 'text', (c) => c.notNull())
          .addColumn('valid_from', 'text', (c) => c.notNull())
          .addColumn('valid_until', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('notification_id', 'text', (c) => c.notNull())
          .addColumn('notification_event', 'text')
          .addColumn('notification_description', 'text')
          .addColumn('notification_at', 'text')
          .execute();
        await db.schema.createIndex('issued_credentials_id_unique').unique().on('issued_credentials').column('id').execute();
        await db.schema
          .createIndex('issued_credentials_tenant_id_notification_id_unique')
          .unique()
          .on('issued_credentials')
          .columns(['tenant_id', 'notification_id'])
          .execute();
        // GET /v2/credentials pages in creation order, filtered by user, configuration or format.
        await db.schema.createIndex('issued_credentials_tenant_id_seq').on('issued_credentials').columns(['tenant_id', 'seq']).execute();
        await db.schema.createIndex('issued_credentials_tenant_id_user_id_seq').on('issued_credentials').columns(['tenant_id', 'user_id', 'seq']).execute();
        await db.schema
          .createIndex('issued_credentials_tenant_id_configuration_seq')
          .on('issued_credentials')
          .columns(['tenant_id', 'credential_configuration_id', 'seq'])
          .execute();
        await db.schema.createIndex('issued_credentials_tenant_id_format_seq').on('issued_credentials').columns(['tenant_id', 'format', 'seq']).execute();
      },
    },

    '0008_webhooks': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('webhooks')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('events', 'text', (c) => c.notNull())
          .addColumn('disabled', bool, (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('webhooks_id_unique').unique().on('webhooks').column('id').execute();
        await db.schema.createIndex('webhooks_tenant_id_seq').on('webhooks').columns(['tenant_id', 'seq']).execute();

        // The outbox. A delivery goes with its webhook (cascade). Timestamps compare as text, so
        // they must sort bytewise (see timestampText).
        await db.schema
          .createTable('webhook_deliveries')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
          .addColumn('event_id', 'text', (c) => c.notNull())
          .addColumn('event_type', 'text', (c) => c.notNull())
          .addColumn('occurred_at', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('credential', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempts', 'text', (c) => c.notNull())
          .addColumn('retries_left', 'integer', (c) => c.notNull())
          .addColumn('next_attempt_at', timestampText)
          .addColumn('lease_until', timestampText)
          .addColumn('claim_token', 'text')
          .addColumn('key_id', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('webhook_deliveries_id_unique').unique().on('webhook_deliveries').column('id').execute();
        await db.schema
          .createIndex('webhook_deliveries_tenant_id_webhook_id_seq')
          .on('webhook_deliveries')
          .columns(['tenant_id', 'webhook_id', 'seq'])
          .execute();
        // Workers look for due rows among the pending ones only, however long the history grows.
        await db.schema
          .createIndex('webhook_deliveries_pending_due')
          .on('webhook_deliveries')
          .columns(['next_attempt_at', 'seq'])
          .where(sql.ref('status'), '=', 'pending')
          .execute();
        // Which signing keys pending deliveries still need (the JWKS keeps them).
        await db.schema
          .createIndex('webhook_deliveries_pending_key_id')
          .on('webhook_deliveries')
          .columns(['tenant_id', 'key_id'])
          .where(sql.ref('status'), '=', 'pending')
          .execute();

        await db.schema
          .createTable('webhook_signing_keys')
          .addColumn('seq', seqType, seq)
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('public_jwk', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('retired_at', 'text')
          .execute();
        await db.schema.createIndex('webhook_signing_keys_key_id_unique').unique().on('webhook_signing_keys').column('key_id').execute();
        // One active key per tenant. This index is the rule, so servers making a tenant's first key
        // at once agree on one.
        await db.schema
          .createIndex('webhook_signing_keys_tenant_id_active_unique')
          .unique()
          .on('webhook_signing_keys')
          .column('tenant_id')
          .where(sql.ref('status'), '=', 'active')
          .execute();
      },
    },

    '0009_used_nonces': {
      async up(db: Kysely<any>) {
        // c_nonces are self-authenticating now and `nonces` records the used ones (same columns and
        // key). The rows left are nonces issued and never used: kept, they would read as used.
        await db.deleteFrom('nonces').execute();
      },
    },

    '0010_rate_limits': {
      async up(db: Kysely<any>) {
        // Attempt counters for rate limits (docs/limits.md): one row per key, its latest window only.
        await db.schema
          .createTable('rate_limits')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('window_start', timestampText, (c) => c.notNull())
          .addColumn('hits', 'integer', (c) => c.notNull())
          .addColumn('expires_at', timestampText, (c) => c.notNull())
          .execute();
        // The sweep of ended windows reads this index only.
        await db.schema.createIndex('rate_limits_expires_at').on('rate_limits').column('expires_at').execute();
      },
    },

    '0011_offers_issued_configurations': {
      async up(db: Kysely<any>) {
        // A wallet access token issues at most one credential per configuration. A token comes from
        // one offer, whose code works once, so the offer row records what its token has issued, and
        // one conditional update of it keeps the rule across servers. A unique index on the issued
        // credentials would do the same at about 3% of the two-worker flow benchmark (performance.md).
        await db.schema
          .alterTable('offers')
          .addColumn('issued_configuration_ids', 'text', (c) => c.notNull().defaultTo(''))
          .execute();
      },
    },

    '0012_admin_client_revocation': {
      async up(db: Kysely<any>) {
        // Admin tokens carry the secret version they were issued under: a rotation retires them.
        await db.schema
          .alterTable('admin_clients')
          .addColumn('secret_version', 'integer', (c) => c.notNull().defaultTo(1))
          .execute();
        await db.schema.alterTable('admin_clients').addColumn('rotated_at', 'text').execute();
        await db.schema.alterTable('admin_clients').addColumn('revoked_at', 'text').execute();
      },
    },

    '0013_wallet_clients': {
      async up(db: Kysely<any>) {
        // Wallet (OAuth) clients (docs/wallet-clients.md). Client ids are unique within a tenant: the unique
        // index is the rule, so racing creates of one id agree. It also serves lookups and pages.
        await db.schema
          .createTable('wallet_clients')
          .addColumn('seq', seqType, seq)
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('client_id', 'text', (c) => c.notNull())
          .addColumn('client_name', 'text', (c) => c.notNull())
          .addColumn('redirect_uris', 'text', (c) => c.notNull())
          .addColumn('grant_types', 'text', (c) => c.notNull())
          .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull())
          .addColumn('secret_hash', 'text')
          .addColumn('dpop', 'text')
          .addColumn('client_attestation', 'text')
          .addColumn('credential_response_encryption', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('wallet_clients_tenant_id_client_id_unique').unique().on('wallet_clients').columns(['tenant_id', 'client_id']).execute();
        await db.schema.createIndex('wallet_clients_tenant_id_seq').on('wallet_clients').columns(['tenant_id', 'seq']).execute();
      },
    },

    '0014_authentication': {
      async up(db: Kysely<any>) {
        // The tenant's OpenID Connect provider (docs/authentication.md). One per tenant: the unique index on
        // tenant_id is the rule, so servers creating one at once agree on one.
        await db.schema
          .createTable('authentication_providers')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('client_id', 'text', (c) => c.notNull())
          .addColumn('sealed_client_secret', 'text', (c) => c.notNull())
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull())
          .addColumn('static_request_parameters', 'text', (c) => c.notNull())
          .addColumn('forwarded_request_parameters', 'text', (c) => c.notNull())
          .addColumn('claims_to_persist', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('authentication_providers_id_unique').unique().on('authentication_providers').column('id').execute();
        await db.schema.createIndex('authentication_providers_tenant_id_unique').unique().on('authentication_providers').column('tenant_id').execute();

        // The tenant's OpenID settings: one row per tenant, written whole (upsert).
        await db.schema
          .createTable('openid_settings')
          .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
          .addColumn('interaction_hook', 'text')
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('claim_sources')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('request_method', 'text', (c) => c.notNull())
          .addColumn('request_parameters', 'text', (c) => c.notNull())
          .addColumn('authorization', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('claim_sources_id_unique').unique().on('claim_sources').column('id').execute();
        await db.schema.createIndex('claim_sources_tenant_id_seq').on('claim_sources').columns(['tenant_id', 'seq']).execute();
      },
    },

    '0015_authorizations': {
      async up(db: Kysely<any>) {
        // Runs of the Authorization Code flow (docs/authorization-code.md). Each stage's single-use handle is kept
        // only as its SHA-256 digest, unique per tenant while it is open (null once none is).
        await db.schema
          .createTable('authorizations')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('issuer', 'text', (c) => c.notNull())
          .addColumn('client_id', 'text', (c) => c.notNull())
          .addColumn('redirect_uri', 'text', (c) => c.notNull())
          .addColumn('state', 'text')
          .addColumn('code_challenge', 'text', (c) => c.notNull())
          .addColumn('configuration_ids', 'text', (c) => c.notNull())
          .addColumn('by_authorization_details', bool, (c) => c.notNull())
          .addColumn('offer_id', 'text')
          .addColumn('dpop_jkt', 'text')
          .addColumn('forwarded_parameters', 'text', (c) => c.notNull())
          .addColumn('stage', 'text', (c) => c.notNull())
          .addColumn('handle_digest', 'text')
          .addColumn('expires_at', timestampText, (c) => c.notNull())
          .addColumn('provider_nonce', 'text')
          .addColumn('provider_code_verifier', 'text')
          .addColumn('user_id', 'text')
          .addColumn('claims', 'text', (c) => c.notNull())
          // What the authorization's access token has issued, as offers.issued_configuration_ids (0011).
          .addColumn('issued_configuration_ids', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('authorizations_tenant_id_id_unique').unique().on('authorizations').columns(['tenant_id', 'id']).execute();
        // The rule that a handle names one authorization; it also serves the lookups by handle.
        await db.schema
          .createIndex('authorizations_tenant_id_handle_digest_unique')
          .unique()
          .on('authorizations')
          .columns(['tenant_id', 'handle_digest'])
          .where(sql.ref('handle_digest'), 'is not', null)
          .execute();
        // The housekeeping sweep reads the unredeemed ones only (redeemed ones stay for their tokens).
        await db.schema
          .createIndex('authorizations_unredeemed_tenant_id_expires_at')
          .on('authorizations')
          .columns(['tenant_id', 'expires_at'])
          .where(sql.ref('stage'), '<>', 'redeemed')
          .execute();
      },
    },

    '0016_status_lists': {
      async up(db: Kysely<any>) {
        // How a tenant's mDocs of one docType are listed (docs/status-lists.md): one per docType, the unique
        // index being the rule, so servers creating one at once agree on one.
        await db.schema
          .createTable('status_list_configurations')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('doc_type', 'text', (c) => c.notNull())
          .addColumn('time_to_live_duration', 'text', (c) => c.notNull())
          .addColumn('expiry_duration', 'text', (c) => c.notNull())
          .addColumn('format', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('status_list_configurations_id_unique').unique().on('status_list_configurations').column('id').execute();
        await db.schema
          .createIndex('status_list_configurations_tenant_id_doc_type_unique')
          .unique()
          .on('status_list_configurations')
          .columns(['tenant_id', 'doc_type'])
          .execute();

        // The lists (docs/status-lists.md, docs/limits.md: up to 500,000 entries each). `taken` counts the
        // positions handed out, by one conditional increment (status-lists.table.ts).
        await db.schema
          .createTable('status_lists')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('size', 'integer', (c) => c.notNull())
          .addColumn('generation', 'integer', (c) => c.notNull())
          .addColumn('taken', 'integer', (c) => c.notNull())
          .addColumn('shuffle_key', 'text', (c) => c.notNull())
          .addColumn('revision', 'integer', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('status_lists_id_unique').unique().on('status_lists').column('id').execute();
        // Of servers racing to open a tenant's next list of a kind, one adds it: the rest conflict.
        await db.schema
          .createIndex('status_lists_tenant_kind_generation_unique')
          .unique()
          .on('status_lists')
          .columns(['tenant_id', 'kind', 'generation'])
          .execute();
        // Finds the newest list of a kind with room: the tenant's lists of the kind, newest first,
        // read until one has `taken < size` (a kind has few lists, each holding up to 500,000). Not
        // a partial index on `taken < size`: `taken` changes with every credential issued, and a
        // column an index names or filters on keeps PostgreSQL from updating the row in place (HOT).
        await db.schema.createIndex('status_lists_tenant_id_kind_seq').on('status_lists').columns(['tenant_id', 'kind', 'seq']).execute();

        // One entry per credential with status, at one index of one list.
        await db.schema
          .createTable('status_entries')
          .addColumn('list_id', 'text', (c) => c.notNull())
          .addColumn('idx', 'integer', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('credential_id', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('status_entries_pk', ['list_id', 'idx'])
          .execute();
        await db.schema
          .createIndex('status_entries_tenant_id_credential_id_unique')
          .unique()
          .on('status_entries')
          .columns(['tenant_id', 'credential_id'])
          .execute();
        // What a list's token shows: its entries that are not valid, in index order. Few entries
        // of a list are revoked, so the partial index stays small while the list fills.
        await db.schema
          .createIndex('status_entries_non_valid_list_id_idx')
          .on('status_entries')
          .columns(['list_id', 'idx'])
          .where(sql.ref('status'), '<>', 'valid')
          .execute();

        // The signed token kept for each list until the list changes or the token nears its expiry.
        await db.schema
          .createTable('status_list_tokens')
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('list_id', 'text', (c) => c.notNull())
          .addColumn('revision', 'integer', (c) => c.notNull())
          .addColumn('token', kind === 'sqlite' ? 'blob' : 'bytea', (c) => c.notNull())
          .addColumn('issued_at', 'text', (c) => c.notNull())
          .addColumn('expires_at', timestampText, (c) => c.notNull())
          .addPrimaryKeyConstraint('status_list_tokens_pk', ['tenant_id', 'list_id'])
          .execute();
      },
    },

    '0017_issued_credential_clients': {
      async up(db: Kysely<any>) {
        // Which wallet client and which attested wallet instance (client_instance_id) each
        // credential went to (issue 16); null for credentials issued before, or without either.
        await db.schema.alterTable('issued_credentials').addColumn('client_id', 'text').execute();
        await db.schema.alterTable('issued_credentials').addColumn('client_instance_id', 'text').execute();
      },
    },

    '0018_retention': {
      async up(db: Kysely<any>) {
        // The retention job (docs/retention.md). Its runners take this lease, one at a time across
        // processes: a row per name, taken or renewed by one conditional upsert (retention.table.ts).
        await db.schema
          .createTable('leases')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('holder', 'text', (c) => c.notNull())
          .addColumn('expires_at', timestampText, (c) => c.notNull())
          .execute();

        // Each tenant's retention periods in days; null is the default.
        await db.schema.alterTable('tenants').addColumn('event_retention_days', 'integer').execute();
        await db.schema.alterTable('tenants').addColumn('webhook_delivery_retention_days', 'integer').execute();

        // The job deletes expired rows of every tenant at once, in batches found by expiry: one index
        // on the expiry each. Authorizations of any stage go (the sweep of unredeemed ones per tenant
        // that had its own index is gone), as do used nonces of any tenant (nothing sweeps per tenant now).
        await db.schema.createIndex('authorizations_expires_at').on('authorizations').column('expires_at').execute();
        await db.schema.dropIndex('authorizations_unredeemed_tenant_id_expires_at').execute();
        await db.schema.createIndex('offers_expires_at').on('offers').column('expires_at').execute();
        await db.schema.createIndex('nonces_expires_at').on('nonces').column('expires_at').execute();
        await db.schema.dropIndex('nonces_tenant_id_expires_at').execute();

        // Analytic events and finished webhook deliveries past the tenant's retention period. The
        // events index also serves the dateFrom/dateTo filters of GET /v1/events.
        await db.schema.createIndex('analytic_events_tenant_id_timestamp').on('analytic_events').columns(['tenant_id', 'timestamp']).execute();
        await db.schema
          .createIndex('webhook_deliveries_finished_tenant_id_updated_at')
          .on('webhook_deliveries')
          .columns(['tenant_id', 'updated_at'])
          .where(sql.ref('status'), '<>', 'pending')
          .execute();
      },
    },
    '0019_claims_at_rest': {
      async up(db: Kysely<any>) {
        // From this release the core seals the claims of offers and authorizations, and the store
        // erases them ('' in `claims`) once they cannot be used (docs/decisions.md "Claims at rest").
        // Earlier releases kept them in plaintext for ever. Those that can no longer be used are
        // erased here; those of offers and authorizations still open, or whose access token may
        // still be in use, stay readable as they are and get an `expires_at` at most an hour away,
        // so the housekeeping sweep (eraseExpiredClaims) erases them then.
        const now = Date.now();
        const nowIso = new Date(now).toISOString();
        const hourAgo = new Date(now - 3_600_000).toISOString();
        const inAnHour = new Date(now + 3_600_000).toISOString();
        await db
          .updateTable('offers')
          .set({ claims: '' })
          .where((eb) =>
            eb.or([
              eb('claims', '=', '{}'),
              eb('kind', '<>', 'pre-authorized'),
              eb('status', 'in', ['locked', 'deleted']),
              eb.and([eb('status', '=', 'open'), eb('expires_at', '<=', nowIso)]),
              eb.and([eb('status', '=', 'used'), eb('used_at', '<=', hourAgo)]),
            ]),
          )
          .execute();
        await db.updateTable('offers').set({ expires_at: inAnHour }).where('status', '=', 'used').where('claims', '<>', '').execute();
        await db
          .updateTable('authorizations')
          .set({ claims: '' })
          .where((eb) =>
            eb.or([
              eb('claims', '=', '{}'),
              eb('stage', 'not in', ['code', 'redeemed']),
              eb.and([eb('stage', '=', 'code'), eb('expires_at', '<=', nowIso)]),
              // A redeemed authorization's expires_at was its redemption.
              eb.and([eb('stage', '=', 'redeemed'), eb('expires_at', '<=', hourAgo)]),
            ]),
          )
          .execute();
        await db.updateTable('authorizations').set({ expires_at: inAnHour }).where('stage', '=', 'redeemed').where('claims', '<>', '').execute();
        // The sweep reads only rows that still hold claims.
        for (const table of ['offers', 'authorizations']) {
          await db.schema.createIndex(`${table}_with_claims_expires_at`).on(table).column('expires_at').where(sql.ref('claims'), '<>', '').execute();
        }
      },
    },
    '0020_issuer_certificates': {
      async up(db: Kysely<any>) {
        // Issuer CAs live beside IACAs, and their leaves beside document signers (docs/decisions.md
        // "Issuer certificates"): every row so far is an IACA or a document signer.
        await db.schema
          .alterTable('mdoc_iacas')
          .addColumn('profile', 'text', (c) => c.notNull().defaultTo('mdoc'))
          .execute();
        await db.schema
          .alterTable('mdoc_document_signers')
          .addColumn('use', 'text', (c) => c.notNull().defaultTo('mdoc'))
          .execute();
        await db.schema.alterTable('mdoc_document_signers').addColumn('subject_alt_names', 'text').execute();
      },
    },
    '0021_issuer_display': {
      async up(db: Kysely<any>) {
        // The credential issuer's display in its metadata (OpenID4VCI 1.0 §12.2.4), as JSON text;
        // null is none. On the tenant row, which every request reads already.
        await db.schema.alterTable('tenants').addColumn('issuer_display', 'text').execute();
      },
    },

    '0022_wallet_providers': {
      async up(db: Kysely<any>) {
        // The tenant's trusted wallet providers (docs/dpop-and-attestation.md "Trusted wallet providers"):
        // the anchors as JSON text. Ids are UUIDs, unique across tenants; pages by (tenant_id, seq).
        await db.schema
          .createTable('wallet_providers')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('trusted_for', 'text', (c) => c.notNull())
          .addColumn('anchors', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('wallet_providers_id_unique').unique().on('wallet_providers').column('id').execute();
        await db.schema.createIndex('wallet_providers_tenant_id_seq').on('wallet_providers').columns(['tenant_id', 'seq']).execute();
      },
    },
    '0023_deferred_issuance': {
      async up(db: Kysely<any>) {
        // Credential requests held for review (docs/deferred-issuance.md). The transaction_id is a
        // bearer secret: only its SHA-256 digest is kept, unique per tenant (the rule, and the
        // lookup of each poll). `claims` holds the sealed claims until issued or denied (null after).
        await db.schema
          .createTable('deferred_issuances')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('transaction_digest', 'text', (c) => c.notNull())
          .addColumn('credential_configuration_id', 'text', (c) => c.notNull())
          .addColumn('format', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('offer_id', 'text', (c) => c.notNull())
          .addColumn('grant_type', 'text')
          .addColumn('client_id', 'text')
          .addColumn('client_instance_id', 'text')
          .addColumn('holder_keys', 'text', (c) => c.notNull())
          .addColumn('claims', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('interval_seconds', 'integer', (c) => c.notNull())
          .addColumn('expires_at', timestampText, (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('decided_at', 'text')
          .addColumn('decided_by', 'text')
          .addColumn('reason', 'text')
          .addColumn('issued_at', 'text')
          .addColumn('credential_ids', 'text')
          .execute();
        await db.schema.createIndex('deferred_issuances_id_unique').unique().on('deferred_issuances').column('id').execute();
        await db.schema
          .createIndex('deferred_issuances_tenant_id_transaction_digest_unique')
          .unique()
          .on('deferred_issuances')
          .columns(['tenant_id', 'transaction_digest'])
          .execute();
        // The admin list, in creation order, with or without a status filter.
        await db.schema.createIndex('deferred_issuances_tenant_id_seq').on('deferred_issuances').columns(['tenant_id', 'seq']).execute();
        await db.schema.createIndex('deferred_issuances_tenant_id_status_seq').on('deferred_issuances').columns(['tenant_id', 'status', 'seq']).execute();
        // The retention job deletes them past their expiry, every tenant at once (docs/retention.md).
        await db.schema.createIndex('deferred_issuances_expires_at').on('deferred_issuances').column('expires_at').execute();
      },
    },
    '0024_refresh_tokens': {
      async up(db: Kysely<any>) {
        // Refresh tokens (docs/refresh-tokens.md): one row per token, rotated tokens of one family
        // sharing family_id. Only the SHA-256 digest of each token is kept, unique per tenant.
        await db.schema
          .createTable('refresh_tokens')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('family_id', 'text', (c) => c.notNull())
          .addColumn('digest', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('grant_kind', 'text', (c) => c.notNull())
          .addColumn('grant_id', 'text', (c) => c.notNull())
          .addColumn('configuration_ids', 'text', (c) => c.notNull())
          .addColumn('credential_identifiers', bool, (c) => c.notNull())
          .addColumn('client_id', 'text')
          .addColumn('client_instance_id', 'text')
          .addColumn('dpop_jkt', 'text')
          .addColumn('key_attestations_required', 'text')
          .addColumn('claims', 'text', (c) => c.notNull())
          .addColumn('issued_configuration_ids', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('family_created_at', timestampText, (c) => c.notNull())
          .addColumn('created_at', timestampText, (c) => c.notNull())
          .addColumn('expires_at', timestampText, (c) => c.notNull())
          .addColumn('used_at', timestampText)
          .addColumn('revoked_at', timestampText)
          .execute();
        await db.schema.createIndex('refresh_tokens_tenant_id_id_unique').unique().on('refresh_tokens').columns(['tenant_id', 'id']).execute();
        await db.schema.createIndex('refresh_tokens_tenant_id_digest_unique').unique().on('refresh_tokens').columns(['tenant_id', 'digest']).execute();
        // Revocation by family, by user and by the grant a credential was issued under.
        for (const column of ['family_id', 'user_id', 'grant_id']) {
          await db.schema.createIndex(`refresh_tokens_tenant_id_${column}`).on('refresh_tokens').columns(['tenant_id', column]).execute();
        }
        // The retention job's sweep.
        await db.schema.createIndex('refresh_tokens_expires_at').on('refresh_tokens').column('expires_at').execute();
        await db.schema
          .createIndex('refresh_tokens_revoked_at')
          .on('refresh_tokens')
          .column('revoked_at')
          .where(sql.ref('revoked_at'), 'is not', null)
          .execute();
      },
    },
    '0025_batch_issuance': {
      async up(db: Kysely<any>) {
        // The tenant's batch size (OpenID4VCI 1.0 §12.2.4 batch_credential_issuance); null is 1.
        // On the tenant row, which every request reads already.
        await db.schema.alterTable('tenants').addColumn('batch_size', 'integer').execute();
        // The credentials of one batch share the request's notification id (OpenID4VCI 1.0 §8.3):
        // the index that found one record now finds them all, and no longer refuses the second.
        await db.schema.dropIndex('issued_credentials_tenant_id_notification_id_unique').execute();
        await db.schema
          .createIndex('issued_credentials_tenant_id_notification_id')
          .on('issued_credentials')
          .columns(['tenant_id', 'notification_id'])
          .execute();
      },
    },
    '0026_offer_wallet_requirements': {
      async up(db: Kysely<any>) {
        // What an offer asks of the wallet (issue 30): JSON text of { walletRequirements?,
        // keyAttestationsRequired? }, null for nothing, as for every earlier offer; and the proofs
        // the redeem must see, as bits the conditional update compares (1 wallet attestation, 2 DPoP).
        await db.schema.alterTable('offers').addColumn('wallet_requirements', 'text').execute();
        await db.schema
          .alterTable('offers')
          .addColumn('required_proofs', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },

    '0027_trusted_issuers': {
      async up(db: Kysely<any>) {
        // The tenant's trusted issuers (docs/verification.md "Trusted issuers"): formats and types as
        // JSON text, the one anchor as JSON text. Ids are UUIDs, unique across tenants; pages by (tenant_id, seq).
        await db.schema
          .createTable('trusted_issuers')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('formats', 'text', (c) => c.notNull())
          .addColumn('types', 'text')
          .addColumn('anchors', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('trusted_issuers_id_unique').unique().on('trusted_issuers').column('id').execute();
        await db.schema.createIndex('trusted_issuers_tenant_id_seq').on('trusted_issuers').columns(['tenant_id', 'seq']).execute();
      },
    },

    '0028_verifier_applications': {
      async up(db: Kysely<any>) {
        // The tenant's verifier applications (docs/verification.md "Verifier applications"): the prefix
        // as text, the other settings as JSON text, the x509_hash key id, CSR and chain as JSON text.
        // Ids are UUIDs, unique across tenants; pages by (tenant_id, seq).
        await db.schema
          .createTable('verifier_applications')
          .addColumn('seq', seqType, seq)
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('client_id_prefix', 'text', (c) => c.notNull())
          .addColumn('settings', 'text', (c) => c.notNull())
          .addColumn('x509', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('verifier_applications_id_unique').unique().on('verifier_applications').column('id').execute();
        await db.schema.createIndex('verifier_applications_tenant_id_seq').on('verifier_applications').columns(['tenant_id', 'seq']).execute();
      },
    },

    '0029_presentation_sessions': {
      async up(db: Kysely<any>) {
        // OpenID4VP presentation sessions (docs/verification.md "Presentation sessions"): the DCQL query,
        // the ephemeral key (public JWK; private half sealed, erased when the session ends) and the
        // result as JSON text. Ids are UUIDs, unique across tenants; the retention job purges by expiry.
        await db.schema
          .createTable('presentation_sessions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('client_id', 'text', (c) => c.notNull())
          .addColumn('response_mode', 'text', (c) => c.notNull())
          .addColumn('redirect_uri', 'text')
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('nonce', 'text', (c) => c.notNull())
          .addColumn('dcql_query', 'text', (c) => c.notNull())
          .addColumn('encryption_jwk', 'text')
          .addColumn('sealed_key', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('result', 'text')
          .addColumn('response_code_digest', 'text')
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .addColumn('completed_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('presentation_sessions_expires_at').on('presentation_sessions').column('expires_at').execute();
      },
    },

    '0030_key_custody': {
      async up(db: Kysely<any>) {
        // Where each key's private half lives (docs/key-custody.md): every key made before is a
        // software key, sealed in its row; a PKCS#11 key's row keeps no sealed material at all.
        await db.schema
          .alterTable('keys')
          .addColumn('custody', 'text', (c) => c.notNull().defaultTo('software'))
          .execute();
        // Where a tenant's new keys are made; null: where the platform makes them.
        await db.schema.alterTable('tenants').addColumn('key_custody', 'text').execute();
      },
    },

    '0031_data_keys': {
      async up(db: Kysely<any>) {
        // The tenants' data keys (docs/key-custody.md "Envelope encryption"): one per tenant, gone
        // with it, kept only wrapped (and, when the platform has a recovery key, encrypted to it).
        // The ids name the keys that wrapped them; the re-wrapping job finds the stale ones by them.
        await db.schema
          .createTable('data_keys')
          // Not null spelled out: SQLite lets a text primary key hold null otherwise.
          .addColumn('tenant_id', 'text', (c) => c.primaryKey().notNull().references('tenants.id').onDelete('cascade'))
          .addColumn('id', 'text', (c) => c.notNull().unique())
          .addColumn('wrapped', 'text', (c) => c.notNull())
          .addColumn('wrapping_key_id', 'text', (c) => c.notNull())
          .addColumn('recovery_wrapped', 'text')
          .addColumn('recovery_key_id', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('data_keys_wrapping_key_id').on('data_keys').column('wrapping_key_id').execute();
      },
    },

    '0032_signing_key_rotation': {
      async up(db: Kysely<any>) {
        // A rotated signing key (docs/key-custody.md "Rotation"): the key it replaced verifies until previous_until.
        await db.schema.alterTable('tenant_signing_keys').addColumn('previous_key_id', 'text').execute();
        await db.schema.alterTable('tenant_signing_keys').addColumn('previous_until', 'text').execute();
      },
    },

    '0033_did_key_rotation': {
      async up(db: Kysely<any>) {
        // A did:web's keys rotate (docs/key-custody.md "Rotation"): the count is part of its stamp, so caches see the change.
        await db.schema
          .alterTable('dids')
          .addColumn('keys_revision', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },
  };
}

/**
 * Applies the migrations up to and including `name`, and no later one: for tests of one migration
 * over the data that was there before it. Returns the names applied.
 */
export async function migrateTo(db: Kysely<any>, name: string, kind: SqlDialectKind = dialectKindOf(db)): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(kind) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const { error, results }: MigrationResultSet = await migrator.migrateTo(name);
  if (error !== undefined) throw new Error(`Database migration to ${name} failed`, { cause: error });
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
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
