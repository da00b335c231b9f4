// What presentation sessions ask of the world and of the other verification parts. The two parts
// built beside this one (issue 31: verifier applications, Contract A; DCQL, Contract B) are taken as
// the narrow interfaces below, which their modules satisfy as they are; createVellum wires them.

import type { Tenant } from '../../tenancy/model.ts';
import type { VerificationResult } from '../model.ts';
import type { SessionResponseMode } from './model.ts';

/** Contract A: the fields of a verifier application a session reads. */
export interface SessionApplication {
  id: string;
  responseModes: readonly SessionResponseMode[];
  redirectUris: readonly string[];
  display?: { name: string; logoUri?: string };
}

/** Contract A `RequestObjectSigner`: the client_id and, except for the redirect_uri prefix, a JWS signer. */
export interface SessionRequestSigner {
  clientId: string;
  sign?(claims: Record<string, unknown>): Promise<string>;
}

/** Contract A: `vellum.verifierApplications.signerFor`. NotFound DomainError when the tenant has no such application. */
export interface SessionApplications {
  signerFor(tenant: Tenant, applicationId: string, responseUri: string, now: Date): Promise<{ application: SessionApplication; signer: SessionRequestSigner }>;
}

/** Contract B `DcqlEvaluation`. */
export interface SessionDcqlEvaluation {
  satisfied: boolean;
  credentials: Record<string, { satisfied: boolean; claims: Record<string, unknown>[]; failures: string[] }>;
  failures: string[];
}

/**
 * Contract B: the DCQL module's schema check, problems and evaluation. Method syntax on purpose: the
 * module's functions take its `DcqlQuery`, which a session holds as a checked JSON object.
 */
export interface SessionDcql {
  /** Problems with a query's shape (the module's DcqlQuerySchema) and beyond it; [] when sound. */
  problems(query: Record<string, unknown>): { path: string; message: string }[];
  evaluate(query: Record<string, unknown>, presented: Record<string, VerificationResult[]>): SessionDcqlEvaluation;
}

/**
 * direct_post.jwt (OpenID4VP 1.0 §8.3): the ephemeral ECDH-ES P-256 key a session publishes, and the
 * decryption of the wallet's JWE. @vellum/crypto's createPresentationCrypto implements it.
 */
export interface PresentationCrypto {
  /** SHA-256 of raw bytes (the OpenID4VP handover, JWK thumbprints). */
  sha256(bytes: Uint8Array): Uint8Array;
  /** A fresh P-256 key: the public JWK (`kty`, `crv`, `x`, `y`, `kid`, `use: enc`, `alg: ECDH-ES`) and the private JWK as JSON text. */
  generateKey(): Promise<{ publicJwk: Record<string, unknown>; privateJwk: string }>;
  /**
   * The JSON object a compact JWE carries, when it is encrypted to `privateJwk` with alg ECDH-ES and
   * one of `encValues`; otherwise undefined with a reason safe to show. Never throws.
   */
  decrypt(jwe: string, privateJwk: string, encValues: readonly string[]): Promise<{ payload: Record<string, unknown> } | { reason: string }>;
}
