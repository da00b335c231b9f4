// The ports every feature may ask for: the time, ids, digests, hashed and sealed secrets, outbound
// HTTP, and the domain events a change publishes inside its transaction. Each method's comment is
// its contract. ../ports.ts gathers these with every feature's own.

import type { Repositories } from '../ports.ts';
import type { PageRequest, Slice } from './pagination.ts';

export interface Clock {
  now(): Date;
}

export interface Ids {
  /** A unique id in UUID form (the Node adapter makes time-ordered v7 ones, RFC 9562). */
  uuid(): string;
  /** A random URL-safe token carrying at least `bytes` bytes of entropy (default 32). */
  token(bytes?: number): string;
  /** `n` cryptographically random bytes (transaction codes, jitter). */
  bytes(n: number): Uint8Array;
}

/**
 * Something that happened which webhook subscribers may be told (docs/decisions.md "Webhooks").
 * It is written inside the transaction that makes the change (an issued credential, a status
 * change), so it is never lost nor sent for a change that did not happen.
 */
export type DomainEvent = CredentialIssuedEvent | CredentialStatusUpdatedEvent | CredentialReviewRequestedEvent | PresentationCompletedEvent;

interface DomainEventBase {
  id: string;
  tenantId: string;
  occurredAt: string;
}

export interface CredentialIssuedEvent extends DomainEventBase {
  type: 'OpenIdCredentialIssued';
  /**
   * docs/decisions.md "Webhooks": `{ credential, credentialId, credentialConfigurationId, credentialProfile, format, userId, userClaims }`,
   * and `clientInstanceId` when the wallet's attestation named its instance (issue 30).
   */
  payload: {
    credential: unknown;
    credentialId: string;
    credentialConfigurationId: string;
    credentialProfile: string;
    format: string;
    userId: string;
    userClaims: Record<string, unknown>;
    clientInstanceId?: string;
  };
}

/** A Vellum addition: the issuer revoked, suspended or reinstated an issued credential (issue 15). */
export interface CredentialStatusUpdatedEvent extends DomainEventBase {
  type: 'CredentialStatusUpdated';
  payload: {
    credentialId: string;
    credentialConfigurationId: string;
    format: string;
    userId: string;
    status: string;
    previousStatus: string;
  };
}

/** A Vellum addition: a credential request waits for an admin's review (docs/deferred-issuance.md). No claims: the admin API shows them. */
export interface CredentialReviewRequestedEvent extends DomainEventBase {
  type: 'OpenIdCredentialReviewRequested';
  payload: {
    deferredIssuanceId: string;
    credentialConfigurationId: string;
    credentialProfile: string;
    format: string;
    userId: string;
    /** When the transaction_id stops working, decided or not. */
    expiresAt: string;
  };
}

/**
 * A Vellum addition (issue 31): a presentation session got its answer (docs/verification.md
 * "Presentation sessions"). The result as the session holds it: the claims asked for, per DCQL
 * credential query id, with each presentation's issuer, trust, status and failed checks.
 */
export interface PresentationCompletedEvent extends DomainEventBase {
  type: 'PresentationVerified' | 'PresentationFailed';
  payload: {
    sessionId: string;
    applicationId: string;
    verified: boolean;
    credentials: Record<string, unknown>;
    failures: string[];
  };
}

/** Takes domain events inside the caller's transaction (the webhook outbox implements it). */
export interface DomainEventSink {
  publish(tx: Repositories, event: DomainEvent): Promise<void>;
}

/** Message digests for values kept only in hashed form (pre-authorized codes, transaction codes). */
export interface Digests {
  /** SHA-256 of the UTF-8 text, base64url without padding. */
  sha256(text: string): string;
  /**
   * HMAC-SHA-256 of the UTF-8 text under a platform secret every server sharing the store has,
   * base64url without padding: for short values a database dump must not give back by trying every
   * candidate (transaction codes).
   */
  mac(text: string): string;
}

/** Slow, salted hashing of client secrets. */
export interface SecretHasher {
  hash(secret: string): Promise<string>;
  /**
   * Constant-time check; false for any malformed hash. A malformed or unknown hash must cost about
   * as much as a real check, so callers can verify against a dummy and not reveal which ids exist.
   */
  verify(secret: string, hash: string): Promise<boolean>;
}

/** One outbound request (webhook deliveries; docs/limits.md "Outbound calls"). */
export interface OutboundRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** The whole exchange must end within this many ms, or it counts as no answer. */
  timeoutMs: number;
}

/** The receiver's status, or why there was none: `error` is short and safe to show the tenant. */
export type OutboundResult = { status: number } | { error: string };

/** One outbound request whose answer is read (claim sources, the identity provider; docs/limits.md "Outbound calls"). */
export interface OutboundFetch {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** The whole exchange, body included, must end within this many ms, or it counts as no answer. */
  timeoutMs: number;
  /** A body longer than this many bytes is an error (default 1 MiB). */
  maxBytes?: number;
}

/** The answer, or why there was none: `error` is short and safe to show the tenant. */
export type OutboundResponse = { status: number; headers: Record<string, string>; body: Uint8Array } | { error: string };

/**
 * Outbound HTTP with the SSRF guard of docs/limits.md "Outbound calls": https only, and the resolved address must not be
 * in a block that guard refuses (loopback, private, link-local, special-purpose) unless the host allows it. Redirects are not followed. Never
 * throws: every failure is `{ error }`.
 */
export interface HttpClient {
  send(request: OutboundRequest): Promise<OutboundResult>;
  /** Sends a request and reads the answer (header names lower-case), under the same guard. Never throws. */
  fetch(request: OutboundFetch): Promise<OutboundResponse>;
}

/**
 * Encrypts secrets Vellum must be able to read again (an identity provider's client secret, a claim
 * source's key, the interaction hook's secret) under the master key, bound to a context string.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** The plaintext, or undefined when the sealed text is corrupt or sealed for another context. Never throws. */
  open(sealed: string, context: string): string | undefined;
}

/** What every record of a tenant's collections carries: its tenant, and when it was created and last changed (ISO 8601). */
export interface TenantRecord {
  tenantId: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The Store's records of one of a tenant's collections, each named within the tenant by its id
 * (`id`, or the collection's own key: a wallet client's `clientId`, a DID). A feature's repository
 * is this, or extends it with its own methods and fuller contracts.
 */
export interface TenantRecordRepository<R> {
  /** Adds a record. Throws DomainError `Conflict` when its id is taken. */
  insert(record: R): Promise<void>;
  get(tenantId: string, id: string): Promise<R | undefined>;
  /** The tenant's records in creation order. */
  list(tenantId: string, page: PageRequest): Promise<Slice<R>>;
  /** Replaces every field but `tenantId`, the id and `createdAt`. Returns false when the tenant has no such record. */
  update(record: R): Promise<boolean>;
  /** Returns false when the tenant has no such record. */
  delete(tenantId: string, id: string): Promise<boolean>;
}
