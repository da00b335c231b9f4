// The shape of Vellum's SQL schema as Kysely sees it, and the few things that differ by dialect.

import type { ColumnType, Kysely } from 'kysely';
import type { AdminClientsTable } from './admin-clients.table.ts';
import type { AnalyticEventsTable } from './analytic-events.table.ts';
import type { AuthenticationProvidersTable, ClaimSourcesTable, OpenIdSettingsTable } from './authentication.table.ts';
import type { AuthorizationsTable } from './authorizations.table.ts';
import type { RefreshTokensTable } from './refresh-tokens.table.ts';
import type { CredentialConfigurationsTable } from './credential-configurations.table.ts';
import type { CustomDomainsTable } from './custom-domains.table.ts';
import type { DataKeysTable } from './data-keys.table.ts';
import type { DidsTable } from './dids.table.ts';
import type { DeferredIssuancesTable } from './deferred-issuances.table.ts';
import type { IssuedCredentialsTable } from './issued-credentials.table.ts';
import type { KeysTable } from './keys.table.ts';
import type { MdocDocumentSignersTable, MdocIacaRevocationsTable, MdocIacasTable } from './mdoc-pki.table.ts';
import type { PlatformKeysTable } from './platform-keys.table.ts';
import type { RateLimitsTable } from './rate-limits.table.ts';
import type { LeasesTable } from './retention.table.ts';
import type { StatusEntriesTable, StatusListConfigurationsTable, StatusListsTable, StatusListTokensTable } from './status-lists.table.ts';
import type { TenantsTable } from './tenants.table.ts';
import type { NoncesTable, OffersTable, TenantSigningKeysTable, UsersTable } from './users-offers.table.ts';
import type { WebhookDeliveriesTable, WebhookSigningKeysTable, WebhooksTable } from './webhooks.table.ts';
import type { WalletClientsTable } from './wallet-clients.table.ts';
import type { WalletProvidersTable } from './wallet-providers.table.ts';
import type { TrustedIssuersTable } from './trusted-issuers.table.ts';
import type { VerifierApplicationsTable } from './verifier-applications.table.ts';
import type { PresentationSessionsTable } from './presentation-sessions.table.ts';

/** The SQL dialects the store speaks. */
export type SqlDialectKind = 'sqlite' | 'postgres';

/** Every table the migrations create, keyed by table name. */
export interface VellumDatabase {
  tenants: TenantsTable;
  admin_clients: AdminClientsTable;
  custom_domains: CustomDomainsTable;
  analytic_events: AnalyticEventsTable;
  platform_keys: PlatformKeysTable;
  keys: KeysTable;
  data_keys: DataKeysTable;
  dids: DidsTable;
  mdoc_iacas: MdocIacasTable;
  mdoc_document_signers: MdocDocumentSignersTable;
  mdoc_iaca_revocations: MdocIacaRevocationsTable;
  credential_configurations: CredentialConfigurationsTable;
  users: UsersTable;
  offers: OffersTable;
  nonces: NoncesTable;
  tenant_signing_keys: TenantSigningKeysTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_signing_keys: WebhookSigningKeysTable;
  issued_credentials: IssuedCredentialsTable;
  deferred_issuances: DeferredIssuancesTable;
  rate_limits: RateLimitsTable;
  wallet_clients: WalletClientsTable;
  wallet_providers: WalletProvidersTable;
  trusted_issuers: TrustedIssuersTable;
  verifier_applications: VerifierApplicationsTable;
  presentation_sessions: PresentationSessionsTable;
  authentication_providers: AuthenticationProvidersTable;
  openid_settings: OpenIdSettingsTable;
  claim_sources: ClaimSourcesTable;
  authorizations: AuthorizationsTable;
  refresh_tokens: RefreshTokensTable;
  status_list_configurations: StatusListConfigurationsTable;
  status_lists: StatusListsTable;
  status_entries: StatusEntriesTable;
  status_list_tokens: StatusListTokensTable;
  leases: LeasesTable;
}

/** A Kysely instance or a transaction on it: repositories run on either. */
export type Executor = Kysely<VellumDatabase>;

/**
 * Creation order, assigned by the database and never written by us. PostgreSQL returns `bigint`
 * as a string (pg does not guess at precision), SQLite as a number.
 */
export type Seq = ColumnType<number | string, never, never>;

/** A boolean column: integers 0/1 in SQLite, which has no boolean type; booleans in PostgreSQL. */
export type SqlBoolean = number | boolean;

/** The position of a row in creation order, as pagination cursors carry it. */
export function seqOf(value: number | string): number {
  return Number(value);
}

/** Binds a boolean the way the dialect stores it (better-sqlite3 refuses to bind JS booleans). */
export function toSqlBoolean(kind: SqlDialectKind, value: boolean): SqlBoolean {
  return kind === 'sqlite' ? (value ? 1 : 0) : value;
}

/** Reads a boolean column of either dialect. */
export function fromSqlBoolean(value: SqlBoolean): boolean {
  return value === true || value === 1;
}
