import type { CredentialFormat } from '../configurations/model.ts';

/** OpenID4VCI 1.0 §11.1: what a wallet may tell the issuer about a credential it received. */
export const NOTIFICATION_EVENTS = ['credential_accepted', 'credential_failure', 'credential_deleted'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** The revocation state of an issued credential (docs/status-lists.md); every credential starts `valid`. */
export type IssuedCredentialStatus = 'valid' | 'suspended' | 'invalid';

/** The last notification a wallet sent about a credential. */
export interface WalletNotification {
  event: NotificationEvent;
  /** The wallet's own words (printable ASCII, at most 1000 characters). */
  eventDescription?: string;
  receivedAt: string;
}

/**
 * That a credential was issued, to whom and under which configuration (docs/decisions.md "The credential endpoint"). The
 * credential itself is never kept: only what an issuer needs to find, count and revoke it.
 */
export interface IssuedCredentialRecord {
  id: string;
  tenantId: string;
  format: CredentialFormat;
  credentialConfigurationId: string;
  userId: string;
  /** The offer the wallet redeemed, when it came through one. */
  offerId?: string;
  issuedAt: string;
  validFrom: string;
  validUntil: string;
  status: IssuedCredentialStatus;
  /** What the credential response gave the wallet to quote at the notification endpoint; shared by the credentials of one response. */
  notificationId: string;
  /** The wallet client the access token was issued to, when it named a registered one. */
  clientId?: string;
  /** The wallet instance a client attestation named (`client_instance_id`), when there was one. */
  clientInstanceId?: string;
  notification?: WalletNotification;
}

/** Filters of `GET /v2/credentials` (docs/decisions.md "The credential endpoint"); all given must match. */
export interface IssuedCredentialFilter {
  format?: CredentialFormat;
  userId?: string;
  credentialConfigurationId?: string;
}

/**
 * The profile name of a format, as webhook payloads (`credentialProfile`) and the API paths name
 * it: `/v2/credentials/mobile/…` for mso_mdoc, and so on (docs/decisions.md "Credential configurations", docs/decisions.md "Webhooks").
 */
export const CREDENTIAL_PROFILES = {
  mso_mdoc: 'mobile',
  ldp_vc: 'web-semantic',
  cwt: 'compact',
  cwt_vc: 'compact-semantic',
  'dc+sd-jwt': 'sd-jwt',
} as const satisfies Record<CredentialFormat, string>;
