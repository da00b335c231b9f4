// DPoP (RFC 9449): a wallet proves, on each request, that it holds the key its access token is
// bound to. The token endpoint binds the token (`cnf.jkt`); the credential and notification
// endpoints check the proof against the token (`ath`) and the key. Proofs are single use across
// every server sharing the store, and servers may demand a nonce of their own (`DPoP-Nonce`).

import type { PublicJwk } from '../keys/model.ts';
import type { Store } from '../ports.ts';
import type { Clock, Digests } from '../shared/ports.ts';
import type { NonceCodec } from './ports.ts';
import { authChallenge } from '../shared/auth-challenge.ts';
import { DomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { type JwtProofVerifier, PROOF_JWT_ALGORITHMS } from './jwt-proofs.ts';
import { markUsedOnce } from './single-use.ts';

/** How old a proof's `iat` may be, and how far ahead of our clock (RFC 9449 §11.1 leaves both to the server). */
export const DPOP_MAX_AGE_SECONDS = 300;
export const DPOP_MAX_SKEW_SECONDS = 60;
/** How long a server nonce is accepted after it was handed out. */
export const DPOP_NONCE_TTL_SECONDS = 300;
const MAX_PROOF_LENGTH = 8 * 1024;
const MAX_JTI_LENGTH = 256;

/** Where a proof is presented: the token endpoint (an authorization server) or a resource endpoint. */
export type DpopEndpoint = 'token' | 'resource';

/** The request a proof must name. */
export interface DpopTarget {
  /** `htm`: the HTTP method. */
  method: string;
  /** `htu`: the endpoint's URL, as the wallet reaches it (no query, no fragment). */
  url: string;
  /** The access token sent with the request: the proof's `ath` must be its hash (RFC 9449 §4.3 step 11). */
  accessToken?: string;
  /** Token endpoint or resource: decides the status and the challenge of a refusal. */
  endpoint: DpopEndpoint;
}

/** A proof that passed every check: the key it was signed with and that key's RFC 7638 thumbprint. */
export interface VerifiedDpopProof {
  jkt: string;
  jwk: PublicJwk;
}

export interface DpopDeps {
  store: Pick<Store, 'nonces'>;
  clock: Clock;
  digests: Digests;
  verifier: JwtProofVerifier;
  /** Mints and opens the server's DPoP nonces (the codec of `c_nonce`s, under its own domain). */
  nonces: NonceCodec;
  /** Whether every proof must carry a nonce this server handed out (RFC 9449 §8); default false. */
  requireNonce?: boolean;
}

export interface Dpop {
  /** The `alg` values proofs may use (metadata `dpop_signing_alg_values_supported`). */
  readonly algorithms: readonly string[];
  /** Whether proofs must carry a server nonce. */
  readonly requireNonce: boolean;
  /**
   * Checks the request's `DPoP` header for `target` (RFC 9449 §4.3) and records its `jti` as used:
   * undefined when there is no header, the proof's key otherwise. Any failure is thrown as the
   * endpoint's error: `invalid_dpop_proof` or `use_dpop_nonce`, 400 at the token endpoint and 401
   * with a `DPoP` challenge at a resource.
   */
  check(ctx: RequestContext, header: string | string[] | undefined, target: DpopTarget): Promise<VerifiedDpopProof | undefined>;
  /** A nonce to send as `DPoP-Nonce` with an answer, when this server asks for them; else undefined. */
  freshNonce(ctx: RequestContext): string | undefined;
  /** The `WWW-Authenticate` challenge of a resource refusal (RFC 9449 §7.1), for `error` when there is one. */
  challenge(error?: string, description?: string): string;
}

/** Origin and path of a URL, normalised as WHATWG URL parsing does; undefined when it is not an absolute http(s) URL. */
function withoutQuery(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
    return `${u.origin}${u.pathname}`;
  } catch {
    return undefined;
  }
}

/** The DPoP checks over the ports: signature by the port, every claim here, single use in the store. */
export function createDpop(deps: DpopDeps): Dpop {
  const { store, clock, digests, verifier, nonces } = deps;
  const algorithms = PROOF_JWT_ALGORITHMS;
  const requireNonce = deps.requireNonce ?? false;
  // The nonce codec binds each value to a domain: DPoP nonces are not c_nonces, nor the reverse.
  const nonceDomain = (ctx: RequestContext) => `${ctx.tenant.id}#dpop-nonce`;

  function challenge(error?: string, description?: string): string {
    return authChallenge('DPoP', { error, error_description: error === undefined ? undefined : description, algs: algorithms.join(' ') });
  }

  function freshNonce(ctx: RequestContext): string | undefined {
    if (!requireNonce) return undefined;
    return nonces.mint(nonceDomain(ctx), new Date(clock.now().getTime() + DPOP_NONCE_TTL_SECONDS * 1000));
  }

  /** The refusal of a proof, as the endpoint answers it. */
  function refuse(ctx: RequestContext, endpoint: DpopEndpoint, error: 'invalid_dpop_proof' | 'use_dpop_nonce', message: string): DomainError {
    const headers: Record<string, string> = {};
    const nonce = error === 'use_dpop_nonce' ? freshNonce(ctx) : undefined;
    if (nonce !== undefined) headers['dpop-nonce'] = nonce;
    if (endpoint === 'resource') headers['www-authenticate'] = challenge(error, message);
    return new DomainError(endpoint === 'resource' ? 'Unauthorized' : 'BadRequest', message, { oauthError: error, headers });
  }

  return {
    algorithms,
    requireNonce,
    challenge,
    freshNonce,
    async check(ctx, header, target) {
      if (header === undefined) return undefined;
      const bad = (message: string) => refuse(ctx, target.endpoint, 'invalid_dpop_proof', message);
      // RFC 9449 §4.3 step 1: exactly one DPoP header, one JWT.
      if (typeof header !== 'string') throw bad('Send one DPoP header');
      if (header.length === 0 || header.length > MAX_PROOF_LENGTH) throw bad('The DPoP proof is not a compact JWT');
      const verified = await verifier.verifySelfSigned(header, algorithms);
      if (!verified.ok) throw bad(`The DPoP proof is not valid: ${verified.reason}`);
      const { header: h, payload: p } = verified;
      if (h.typ !== 'dpop+jwt') throw bad('The DPoP proof must have typ dpop+jwt');
      if (p.htm !== target.method) throw bad(`The DPoP proof's htm must be ${target.method}`);
      const expectedUrl = withoutQuery(target.url);
      if (typeof p.htu !== 'string' || withoutQuery(p.htu) === undefined || withoutQuery(p.htu) !== expectedUrl)
        throw bad(`The DPoP proof's htu must be ${expectedUrl}`);
      const now = Math.floor(clock.now().getTime() / 1000);
      if (typeof p.iat !== 'number' || !Number.isFinite(p.iat)) throw bad('The DPoP proof needs iat (seconds)');
      if (p.iat > now + DPOP_MAX_SKEW_SECONDS) throw bad('The DPoP proof was issued in the future');
      if (p.iat < now - DPOP_MAX_AGE_SECONDS) throw bad('The DPoP proof is too old: make a new one for each request');
      if (typeof p.jti !== 'string' || p.jti.length === 0 || p.jti.length > MAX_JTI_LENGTH)
        throw bad(`The DPoP proof needs a jti of 1 to ${MAX_JTI_LENGTH} characters`);
      if (target.accessToken !== undefined) {
        // RFC 9449 §4.3 step 11: toward a resource, the proof names the token by its hash.
        if (p.ath === undefined) throw bad('The DPoP proof must carry ath, the hash of the access token');
        if (p.ath !== digests.sha256(target.accessToken)) throw bad("The DPoP proof's ath is not the hash of this access token");
      }
      if (requireNonce) {
        if (p.nonce === undefined)
          throw refuse(ctx, target.endpoint, 'use_dpop_nonce', 'This server requires a nonce in DPoP proofs: use the DPoP-Nonce header sent with this answer');
        const opened = typeof p.nonce === 'string' ? nonces.open(nonceDomain(ctx), p.nonce) : undefined;
        if (!opened || opened.expiresAt.getTime() <= clock.now().getTime())
          throw refuse(ctx, target.endpoint, 'use_dpop_nonce', 'The DPoP nonce is unknown or expired: use the one sent with this answer');
      }
      // Single use (RFC 9449 §11.1), remembered until the proof could no longer be accepted anyway.
      const first = await markUsedOnce(
        store,
        ctx.tenant.id,
        'dpop',
        digests.sha256(`${verified.thumbprint}.${p.jti}`),
        new Date((now + DPOP_MAX_AGE_SECONDS + DPOP_MAX_SKEW_SECONDS) * 1000),
      );
      if (!first) throw bad('This DPoP proof has been used: make a new one for each request');
      return { jkt: verified.thumbprint, jwk: verified.jwk };
    },
  };
}
