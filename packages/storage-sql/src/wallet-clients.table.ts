// Wallet (OAuth) clients on Kysely (ports.ts: WalletClientRepository): the row type, its mapping
// and the repository. Migration 0013_wallet_clients creates the table.

import type { Repositories, WalletClient, WalletClientAuthMethod, WalletClientGrantType } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Executor, Seq } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { findOwnedBy, listOwned } from './queries.ts';

export interface WalletClientsTable {
  seq: Seq;
  tenant_id: string;
  client_id: string;
  client_name: string;
  /** JSON array of the redirect URIs, exactly as registered. */
  redirect_uris: string;
  /** JSON array of grant types. */
  grant_types: string;
  token_endpoint_auth_method: string;
  /** Null for public clients (`none`). */
  secret_hash: string | null;
  /** JSON `{ required }`, or null. */
  dpop: string | null;
  /** JSON `{ rootCertificates, dpopRequired? }`, or null. */
  client_attestation: string | null;
  /** JSON `{ required }`, or null. */
  credential_response_encryption: string | null;
  created_at: string;
  updated_at: string;
}

const json = <T>(text: string | null): T | undefined => (text === null ? undefined : (JSON.parse(text) as T));
const text = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

/** Maps a stored wallet client row to the domain type. */
export function toWalletClient(row: Selectable<WalletClientsTable>): WalletClient {
  const dpop = json<WalletClient['dpop']>(row.dpop);
  const clientAttestation = json<WalletClient['clientAttestation']>(row.client_attestation);
  const credentialResponseEncryption = json<WalletClient['credentialResponseEncryption']>(row.credential_response_encryption);
  return {
    tenantId: row.tenant_id,
    clientId: row.client_id,
    clientName: row.client_name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    grantTypes: JSON.parse(row.grant_types) as WalletClientGrantType[],
    tokenEndpointAuthMethod: row.token_endpoint_auth_method as WalletClientAuthMethod,
    ...(row.secret_hash !== null ? { secretHash: row.secret_hash } : {}),
    ...(dpop ? { dpop } : {}),
    ...(clientAttestation ? { clientAttestation } : {}),
    ...(credentialResponseEncryption ? { credentialResponseEncryption } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a domain wallet client to the row that stores it. */
export function toWalletClientRow(c: WalletClient): Insertable<WalletClientsTable> {
  return {
    tenant_id: c.tenantId,
    client_id: c.clientId,
    client_name: c.clientName,
    redirect_uris: JSON.stringify(c.redirectUris),
    grant_types: JSON.stringify(c.grantTypes),
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    secret_hash: c.secretHash ?? null,
    dpop: text(c.dpop),
    client_attestation: text(c.clientAttestation),
    credential_response_encryption: text(c.credentialResponseEncryption),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** Builds the wallet client repository on `db`, a Kysely instance or a transaction. */
export function walletClientRepositoriesOn(db: Executor): Pick<Repositories, 'walletClients'> {
  return {
    walletClients: {
      async insert(client) {
        // The unique index on (tenant_id, client_id) is the rule, so racing creates get the same answer.
        await refusingDuplicates(
          db.insertInto('wallet_clients').values(toWalletClientRow(client)).execute(),
          'The tenant already has a wallet client with this client id',
        );
      },
      async get(tenantId, clientId) {
        return findOwnedBy(db, 'wallet_clients', tenantId, 'client_id', clientId, toWalletClient);
      },
      async list(tenantId, page) {
        return listOwned(db, 'wallet_clients', tenantId, page, toWalletClient);
      },
      async update(client) {
        // The tenant, the id and the creation time never change.
        const { tenant_id, client_id, created_at, ...columns } = toWalletClientRow(client);
        const result = await db
          .updateTable('wallet_clients')
          .set(columns)
          .where('tenant_id', '=', tenant_id)
          .where('client_id', '=', client_id)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async delete(tenantId, clientId) {
        const result = await db.deleteFrom('wallet_clients').where('tenant_id', '=', tenantId).where('client_id', '=', clientId).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
    },
  };
}
