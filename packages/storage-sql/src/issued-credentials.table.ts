import type { CredentialFormat, IssuedCredentialRecord, IssuedCredentialStatus, NotificationEvent } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

/** One issued credential, without its contents (docs/decisions.md "The credential endpoint"). */
export interface IssuedCredentialsTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  format: string;
  credential_configuration_id: string;
  user_id: string;
  offer_id: string | null;
  issued_at: string;
  valid_from: string;
  valid_until: string;
  status: string;
  /** Unique per tenant: the rule is the index (tenant_id, notification_id). */
  notification_id: string;
  notification_event: string | null;
  notification_description: string | null;
  notification_at: string | null;
  /** Added by 0017: the wallet client and attested wallet instance the credential went to. */
  client_id: string | null;
  client_instance_id: string | null;
}

/** Maps a stored row to the domain type; null columns become absent fields. */
export function toIssuedCredential(row: Selectable<IssuedCredentialsTable>): IssuedCredentialRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    format: row.format as CredentialFormat,
    credentialConfigurationId: row.credential_configuration_id,
    userId: row.user_id,
    ...(row.offer_id === null ? {} : { offerId: row.offer_id }),
    issuedAt: row.issued_at,
    validFrom: row.valid_from,
    validUntil: row.valid_until,
    status: row.status as IssuedCredentialStatus,
    notificationId: row.notification_id,
    ...(row.client_id === null ? {} : { clientId: row.client_id }),
    ...(row.client_instance_id === null ? {} : { clientInstanceId: row.client_instance_id }),
    ...(row.notification_event === null || row.notification_at === null
      ? {}
      : {
          notification: {
            event: row.notification_event as NotificationEvent,
            ...(row.notification_description === null ? {} : { eventDescription: row.notification_description }),
            receivedAt: row.notification_at,
          },
        }),
  };
}

/** Maps a record to the row that stores it. */
export function toIssuedCredentialRow(r: IssuedCredentialRecord): Insertable<IssuedCredentialsTable> {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    format: r.format,
    credential_configuration_id: r.credentialConfigurationId,
    user_id: r.userId,
    offer_id: r.offerId ?? null,
    issued_at: r.issuedAt,
    valid_from: r.validFrom,
    valid_until: r.validUntil,
    status: r.status,
    notification_id: r.notificationId,
    notification_event: r.notification?.event ?? null,
    notification_description: r.notification?.eventDescription ?? null,
    notification_at: r.notification?.receivedAt ?? null,
    client_id: r.clientId ?? null,
    client_instance_id: r.clientInstanceId ?? null,
  };
}
