// Presentation sessions (issue 31 point 3; docs/verification.md "Presentation sessions"): one
// OpenID4VP 1.0 authorization request a tenant makes to a wallet, and what the wallet answered.

import type { TenantRecord } from '../../shared/ports.ts';
import type { VerificationCheck, VerificationResult } from '../model.ts';

/** OpenID4VP 1.0 §8.2, §8.3: the response modes a session may ask for. Mirrors Contract A's VP_RESPONSE_MODES. */
export const SESSION_RESPONSE_MODES = ['direct_post', 'direct_post.jwt'] as const;
export type SessionResponseMode = (typeof SESSION_RESPONSE_MODES)[number];

/** What a session's state is, as the tenant reads it: `expired` is a pending session past its `expiresAt`. */
export const SESSION_STATES = ['pending', 'verified', 'failed', 'expired'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** How long a session waits for its wallet, in seconds: default and bounds. */
export const SESSION_TTL_SECONDS = { default: 300, min: 30, max: 3600 } as const;

/** HAIP 1.0 §5 (and OpenID4VP 1.0 §8.3): the content encryptions a direct_post.jwt response may use. */
export const RESPONSE_ENC_VALUES = ['A128GCM', 'A256GCM'] as const;

/** One presentation the wallet sent for a credential query: what verifying it found, without the raw credential. */
export interface PresentationOutcome {
  verified: boolean;
  format: VerificationResult['format'];
  issuer?: VerificationResult['issuer'];
  credentialType?: string;
  validity?: VerificationResult['validity'];
  status?: VerificationResult['status'];
  /** The checks that failed (the passed ones are not kept). */
  failedChecks: VerificationCheck[];
}

/** What a session's response came to (docs/verification.md "Presentation sessions"). */
export interface PresentationResult {
  /** True when every presentation verified and the DCQL query is satisfied. */
  verified: boolean;
  /** Per DCQL credential query id the wallet answered. */
  credentials: Record<
    string,
    {
      satisfied: boolean;
      /** The claims the query asked for, one object per presentation. */
      claims: Record<string, unknown>[];
      presentations: PresentationOutcome[];
      failures: string[];
    }
  >;
  /** Why the response as a whole failed: the DCQL evaluation's, the wallet's `error`, or a presentation's format. */
  failures: string[];
  /** When the response was received. */
  receivedAt: string;
}

/** A stored session. */
export interface PresentationSession extends TenantRecord {
  id: string;
  applicationId: string;
  /** The whole client_id, prefix included (Contract A `RequestObjectSigner.clientId`). */
  clientId: string;
  responseMode: SessionResponseMode;
  /** The same-device redirect (one of the application's), when the session has one. */
  redirectUri?: string;
  /** OpenID4VP `state` and `nonce`: random, sent in the request object. */
  state: string;
  nonce: string;
  /** The DCQL query as given (OpenID4VP 1.0 §6), checked when the session was made. */
  dcqlQuery: Record<string, unknown>;
  /** direct_post.jwt: the ephemeral public key (JWK) the wallet encrypts to. */
  encryptionJwk?: Record<string, unknown>;
  /** direct_post.jwt: the private half, sealed with the SecretBox; erased once the session ends. */
  sealedKey?: string;
  status: 'pending' | 'verified' | 'failed';
  result?: PresentationResult;
  /** The SHA-256 (base64url) of the response code handed to the same-device redirect. */
  responseCodeDigest?: string;
  expiresAt: string;
  completedAt?: string;
}

/** How a session ends: what completes it in one conditional write. */
export interface SessionCompletion {
  status: 'verified' | 'failed';
  result: PresentationResult;
  responseCodeDigest?: string;
  completedAt: string;
}

/** The Store's presentation sessions. Each method's comment is its contract (asserted by the Store contract suite). */
export interface PresentationSessionRepository {
  /** Adds a session. Throws DomainError `Conflict` when its id exists. */
  insert(session: PresentationSession): Promise<void>;
  /** The tenant's session `id`, or undefined. */
  get(tenantId: string, id: string): Promise<PresentationSession | undefined>;
  /**
   * Ends the tenant's session `id` in one conditional write: when it is `pending` and its
   * `expiresAt` is after `now`, it takes the completion's status, result, response code digest and
   * `completedAt`, its `sealedKey` is erased, and the session is returned. Otherwise nothing changes
   * and the answer is undefined. Of racing callers exactly one gets the session.
   */
  complete(tenantId: string, id: string, completion: SessionCompletion, now: string): Promise<PresentationSession | undefined>;
  /** Housekeeping across tenants: erases the `sealedKey` of at most `limit` sessions whose `expiresAt` is at or before `now`; returns how many. */
  eraseExpiredKeys(now: string, limit: number): Promise<number>;
  /** Deletes at most `limit` sessions of any tenant whose `expiresAt` is at or before `before`, whatever their status; returns how many. */
  purgeExpired(before: string, limit: number): Promise<number>;
}

/** The SecretBox context a session's ephemeral private key is sealed under. */
export const sessionKeyContext = (tenantId: string, sessionId: string) => `presentation-key:${tenantId}:${sessionId}`;
