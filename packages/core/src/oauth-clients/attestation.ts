// OAuth client attestation (draft-ietf-oauth-attestation-based-client-auth; docs/dpop-and-attestation.md): a
// wallet provider vouches for a wallet instance with a JWT whose `x5c` chains to a root the client
// registered, or that one of the tenant's trusted wallet providers signed, and the instance proves it holds the attested key (`cnf.jwk`), either with a
// separate proof of possession (Standard Mode) or with its DPoP proof (Combined Mode, when the
// client registered `dpopRequired`).

import type { PublicJwk } from '../keys/model.ts';
import type { Store } from '../ports.ts';
import type { Clock, Digests } from '../shared/ports.ts';
import { type JwtCheck, type JwtProofVerifier, PROOF_JWT_ALGORITHMS } from '../oauth/jwt-proofs.ts';
import type { VerifiedDpopProof } from '../oauth/dpop.ts';
import { markUsedOnce } from '../oauth/single-use.ts';
import { base64UrlToBytes } from '../shared/encoding.ts';
import { DomainError } from '../shared/errors.ts';
import type { WalletProviderTrust } from '../wallet-providers/trust.ts';
import type { WalletClient } from './model.ts';

/** How old a proof of possession's `iat` may be, and how far ahead; its `jti` is remembered that long. */
const POP_MAX_AGE_SECONDS = 300;
const POP_MAX_SKEW_SECONDS = 60;
const MAX_JWT_LENGTH = 32 * 1024;
const MAX_INSTANCE_ID_LENGTH = 256;

/** The attestation headers of a request, as received. */
export interface AttestationHeaders {
  /** `OAuth-Client-Attestation`. */
  attestation?: string | string[] | undefined;
  /** `OAuth-Client-Attestation-PoP`. */
  pop?: string | string[] | undefined;
}

/** What a checked attestation establishes about the client instance. */
export interface AttestedInstance {
  /** The `client_instance_id` the wallet provider attested, when it named one. */
  clientInstanceId?: string;
  /** The instance's key (`cnf.jwk`) and its thumbprint. */
  jwk: PublicJwk;
  jkt: string;
}

export interface ClientAttestationDeps {
  store: Pick<Store, 'nonces'>;
  clock: Clock;
  digests: Digests;
  verifier: JwtProofVerifier;
}

export interface AttestationContext {
  tenantId: string;
  /** What a proof of possession's `aud` may be: the issuer identifier, the endpoint's URL, its origin or host. */
  audiences: readonly string[];
  /** The request's verified DPoP proof, if it had one: Combined Mode proves possession with it. */
  dpop?: VerifiedDpopProof | undefined;
}

/** A presented attestation that does not hold (400, as the attestation draft's error registry says). */
const invalidAttestation = (message: string) => new DomainError('BadRequest', message, { oauthError: 'invalid_client_attestation' });
/** A client that must be attested and was not (401 invalid_client, RFC 6749 §5.2). */
export const notAttested = (message: string) => new DomainError('Unauthorized', message, { oauthError: 'invalid_client' });

/** The one value of a header, refused when it was sent twice. */
function single(value: string | string[] | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidAttestation(`Send one ${name} header`);
  if (value.length === 0 || value.length > MAX_JWT_LENGTH) throw invalidAttestation(`The ${name} header is not a compact JWT`);
  return value;
}

/**
 * The client an attestation names (`sub`), read without checking it: only to find the client whose
 * roots it is then checked against, and whose id it must then hold (checkClientAttestation).
 */
export function attestedClientId(headers: AttestationHeaders | undefined): string | undefined {
  const jwt = headers?.attestation;
  if (typeof jwt !== 'string' || jwt.length > MAX_JWT_LENGTH) return undefined;
  try {
    const bytes = base64UrlToBytes(jwt.split('.')[1] ?? '');
    const payload = bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as unknown) : undefined;
    const sub = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>).sub : undefined;
    return typeof sub === 'string' && sub.length <= 256 ? sub : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks an attestation's signature and chain and returns its header and payload: against the roots
 * a client registered, or against the tenant's trusted wallet providers.
 */
export type AttestationSignatureCheck = (jwt: string, algorithms: readonly string[], at: Date) => Promise<JwtCheck>;

/** Who may be attested, and how the instance proves it holds the attested key. */
interface AttestationRules {
  verifySignature: AttestationSignatureCheck;
  /** The client the attestation must name (`sub`); undefined for an anonymous wallet, whose `sub` names it. */
  clientId?: string | undefined;
  /** Combined Mode: possession is proven by the request's DPoP proof instead of a separate PoP. */
  combined: boolean;
  /** Without a `client_instance_id`, the attestation's `sub` names the instance (wallet provider attestations). */
  subNamesInstance: boolean;
}

/**
 * Checks the client attestation of a request from `client` (docs/dpop-and-attestation.md): required, and only
 * checked, when the client registered `clientAttestation`. Returns what it attests, or undefined for
 * a client that registered none.
 */
export async function checkClientAttestation(
  deps: ClientAttestationDeps,
  client: WalletClient,
  headers: AttestationHeaders | undefined,
  context: AttestationContext,
): Promise<AttestedInstance | undefined> {
  const settings = client.clientAttestation;
  // A client without registered roots has nothing to check an attestation against; what it sends is not read.
  if (!settings) return undefined;
  return checkAttestation(deps, headers, context, {
    verifySignature: (jwt, algorithms, at) => deps.verifier.verifyWithX5c(jwt, settings.rootCertificates, algorithms, at),
    clientId: client.clientId,
    combined: settings.dpopRequired === true,
    subNamesInstance: false,
  });
}

/**
 * Checks a wallet attestation against the tenant's trusted wallet providers (docs/dpop-and-attestation.md
 * "Wallet requirements"): no registered client needed. `clientId`, when the request named one, must be
 * the attestation's `sub`. Combined Mode when the request sent a DPoP proof and no separate PoP.
 */
export function checkProviderAttestation(
  deps: ClientAttestationDeps,
  trust: WalletProviderTrust,
  headers: AttestationHeaders | undefined,
  context: AttestationContext,
  clientId: string | undefined,
): Promise<AttestedInstance> {
  return checkAttestation(deps, headers, context, {
    verifySignature: (jwt, algorithms, at) => trust.verify(context.tenantId, jwt, { purpose: 'walletAttestation', algorithms, at }),
    clientId,
    combined: headers?.pop === undefined && context.dpop !== undefined,
    subNamesInstance: true,
  });
}

/**
 * The attestation of a request, wherever it is checked (token endpoint, PAR): against the roots the
 * client registered when it registered some (then required); otherwise, when it sent one and the
 * tenant trusts any wallet provider for wallet attestations, against those providers; otherwise it
 * is not read, as before wallet providers (docs/dpop-and-attestation.md "Wallet requirements").
 */
export async function attestationOf(
  deps: ClientAttestationDeps,
  trust: WalletProviderTrust | undefined,
  client: WalletClient | undefined,
  headers: AttestationHeaders | undefined,
  context: AttestationContext,
  clientId: string | undefined,
): Promise<AttestedInstance | undefined> {
  if (client?.clientAttestation) return checkClientAttestation(deps, client, headers, context);
  if (headers?.attestation === undefined || !trust || !(await trust.any(context.tenantId, 'walletAttestation'))) return undefined;
  return checkProviderAttestation(deps, trust, headers, context, client?.clientId ?? clientId);
}

/** The claim checks every attestation passes, whoever vouches for its signature. */
async function checkAttestation(
  deps: ClientAttestationDeps,
  headers: AttestationHeaders | undefined,
  context: AttestationContext,
  rules: AttestationRules,
): Promise<AttestedInstance> {
  if (headers?.attestation === undefined) throw notAttested('This client must authenticate with a client attestation (OAuth-Client-Attestation header)');
  const attestationJwt = single(headers.attestation, 'OAuth-Client-Attestation') as string;
  const popJwt = single(headers.pop, 'OAuth-Client-Attestation-PoP');

  const now = deps.clock.now();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const verified = await rules.verifySignature(attestationJwt, PROOF_JWT_ALGORITHMS, now);
  if (!verified.ok) throw invalidAttestation(`The client attestation is not valid: ${verified.reason}`);
  const { header, payload } = verified;
  if (header.typ !== 'oauth-client-attestation+jwt') throw invalidAttestation('The client attestation must have typ oauth-client-attestation+jwt');
  if (rules.clientId !== undefined && payload.sub !== rules.clientId) throw invalidAttestation('The client attestation was issued for another client (sub)');
  if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > MAX_INSTANCE_ID_LENGTH)
    throw invalidAttestation('The client attestation must name its client (sub)');
  const clientId = payload.sub;
  if (typeof payload.exp !== 'number' || payload.exp <= nowSeconds) throw invalidAttestation('The client attestation has expired (or has no exp)');
  if (payload.iat !== undefined && (typeof payload.iat !== 'number' || payload.iat > nowSeconds + POP_MAX_SKEW_SECONDS))
    throw invalidAttestation('The client attestation was issued in the future');
  const instanceId = payload.client_instance_id;
  if (instanceId !== undefined && (typeof instanceId !== 'string' || instanceId.length === 0 || instanceId.length > MAX_INSTANCE_ID_LENGTH)) {
    throw invalidAttestation(`client_instance_id must be a string of 1 to ${MAX_INSTANCE_ID_LENGTH} characters`);
  }
  const cnf = payload.cnf !== null && typeof payload.cnf === 'object' ? (payload.cnf as Record<string, unknown>) : undefined;
  const jkt = deps.verifier.thumbprint(cnf?.jwk);
  if (jkt === undefined) throw invalidAttestation('The client attestation must carry the instance key as cnf.jwk (P-256 or Ed25519, public)');
  const instance = (instanceId as string | undefined) ?? (rules.subNamesInstance ? clientId : undefined);
  const attested: AttestedInstance = { jwk: cnf?.jwk as PublicJwk, jkt, ...(instance !== undefined ? { clientInstanceId: instance } : {}) };

  if (rules.combined) {
    // Combined Mode: the DPoP proof, already checked, was signed with the attested key.
    if (!context.dpop) throw invalidAttestation('This client proves its attestation with DPoP: send a DPoP proof signed with the attested key (cnf.jwk)');
    if (context.dpop.jkt !== jkt) throw invalidAttestation('The DPoP proof was not signed with the attested key (cnf.jwk)');
    return attested;
  }
  // Standard Mode: a proof of possession signed by the attested key, once.
  if (popJwt === undefined) throw invalidAttestation('Send the OAuth-Client-Attestation-PoP header: a proof of possession of the attested key');
  const pop = await deps.verifier.verifyWithKey(popJwt, cnf?.jwk, PROOF_JWT_ALGORITHMS);
  if (!pop.ok) throw invalidAttestation(`The client attestation proof of possession is not valid: ${pop.reason}`);
  const p = pop.payload;
  if (pop.header.typ !== 'oauth-client-attestation-pop+jwt') throw invalidAttestation('The proof of possession must have typ oauth-client-attestation-pop+jwt');
  if (p.iss !== undefined && p.iss !== clientId) throw invalidAttestation('The proof of possession names another client (iss)');
  const audiences = Array.isArray(p.aud) ? p.aud : [p.aud];
  if (!audiences.some((a) => typeof a === 'string' && context.audiences.includes(a)))
    throw invalidAttestation(`The proof of possession's aud must be ${context.audiences[0]}`);
  if (typeof p.iat !== 'number' || p.iat > nowSeconds + POP_MAX_SKEW_SECONDS || p.iat < nowSeconds - POP_MAX_AGE_SECONDS)
    throw invalidAttestation('The proof of possession must be fresh (iat)');
  if (p.exp !== undefined && (typeof p.exp !== 'number' || p.exp <= nowSeconds)) throw invalidAttestation('The proof of possession has expired');
  if (typeof p.jti !== 'string' || p.jti.length === 0 || p.jti.length > 256) throw invalidAttestation('The proof of possession needs a jti');
  const first = await markUsedOnce(
    deps.store,
    context.tenantId,
    'attestation-pop',
    deps.digests.sha256(`${jkt}.${p.jti}`),
    new Date((nowSeconds + POP_MAX_AGE_SECONDS + POP_MAX_SKEW_SECONDS) * 1000),
  );
  if (!first) throw invalidAttestation('This proof of possession has been used: make a new one for each request');
  return attested;
}
