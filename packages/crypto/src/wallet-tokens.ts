import { type KeyObject, randomBytes } from 'node:crypto';
import {
  type Clock,
  completeWalletClaims,
  type Ids,
  type KeyAttestationLevels,
  type KeyManager,
  type TenantSigningKeyRepository,
  type WalletAccessClaims,
  type WalletTokens,
} from '@vellum/core';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { decodeJwsHeader, publicKeyFromJwk, verifyCompactJws } from './jws.ts';

/** The purpose under which a tenant's wallet access token key is recorded. */
export const WALLET_TOKEN_KEY_PURPOSE = 'wallet-access-token';

const ALG = 'ES256';
// RFC 9068: the access token type. The admin tokens use it too, but with the platform key: neither
// verifies under the other's key.
const TYP = 'at+jwt';

export interface WalletTokensOptions {
  /** Where each tenant's token key id is recorded (the store's `tenantSigningKeys`). */
  signingKeys: TenantSigningKeyRepository;
  keys: KeyManager;
  clock: Clock;
  /** Where token ids come from (the server passes its pooled Ids); node:crypto's CSPRNG by default. */
  ids?: Pick<Ids, 'token'>;
}

interface TenantKey {
  keyId: string;
  kid: string;
  publicJwk: Record<string, unknown>;
  verifyKey: KeyObject;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const b64url = (data: Uint8Array | string) => Buffer.from(typeof data === 'string' ? encoder.encode(data) : data).toString('base64url');

/** How many tokens each process remembers as good (about 1 MB). */
const KNOWN_TOKENS = 2048;

const copyOf = (claims: WalletAccessClaims): WalletAccessClaims => ({ ...claims, configurationIds: [...claims.configurationIds] });

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The key attestation levels a token's `kar` names, when it names them. */
function levelsOf(kar: unknown): KeyAttestationLevels | undefined {
  if (kar === null || typeof kar !== 'object') return undefined;
  const { keyStorage, userAuthentication } = kar as Record<string, unknown>;
  return {
    ...(isStringArray(keyStorage) ? { keyStorage } : {}),
    ...(isStringArray(userAuthentication) ? { userAuthentication } : {}),
  };
}

/** The `cnf.jkt` of a token's payload (RFC 9449 §6.1), when it has one. */
function jktOf(cnf: unknown): string | undefined {
  const jkt = cnf !== null && typeof cnf === 'object' ? (cnf as Record<string, unknown>).jkt : undefined;
  return typeof jkt === 'string' ? jkt : undefined;
}

/**
 * Wallet access tokens (the core's WalletTokens port): ES256 JWTs signed inside the KeyManager with
 * a P-256 key per tenant, made on first use and recorded with insert-if-absent, so racing servers
 * agree on one key (a loser destroys the key it made). Public keys are cached per tenant; the key
 * never changes once recorded.
 */
export function createWalletTokens(options: WalletTokensOptions): WalletTokens {
  const { signingKeys, keys, clock } = options;
  const { ids } = options;
  const tokenId = ids ? () => ids.token(16) : () => randomBytes(16).toString('base64url');
  const cache = new Map<string, TenantKey>();
  const loading = new Map<string, Promise<TenantKey | undefined>>();
  // Tokens this process signed or verified, with their claims. A wallet presents its token within
  // seconds, usually to the process that issued it (its connection is kept alive), and a token equal
  // to one whose signature is known good is good: its ES256 verification, the most expensive step of
  // a credential request after the proof's, is skipped. The time checks still run on every use. Only
  // good tokens get in, so nobody can fill it with others; the oldest leave first.
  const known = new Map<string, WalletAccessClaims>();
  const remember = (token: string, claims: WalletAccessClaims) => {
    known.set(token, claims);
    if (known.size > KNOWN_TOKENS) known.delete(known.keys().next().value as string);
  };

  async function load(tenantId: string, create: boolean): Promise<TenantKey | undefined> {
    let record = await signingKeys.get(tenantId, WALLET_TOKEN_KEY_PURPOSE);
    if (!record) {
      if (!create) return undefined;
      const made = await keys.create(tenantId, 'P-256');
      record = await signingKeys.insertIfAbsent({ tenantId, purpose: WALLET_TOKEN_KEY_PURPOSE, keyId: made.id, createdAt: clock.now().toISOString() });
      // Another server recorded its key first: ours is never used.
      if (record.keyId !== made.id) await keys.destroy(tenantId, made.id);
    }
    const key = await keys.get(tenantId, record.keyId);
    if (!key || key.publicJwk.kty !== 'EC') throw new Error(`The wallet token key of tenant ${tenantId} is missing or not P-256`);
    const { kty, crv, x, y } = key.publicJwk;
    const kid = await calculateJwkThumbprint({ kty, crv, x, y } as JWK, 'sha256');
    const publicJwk = { kty, crv, x, y, kid, alg: ALG, use: 'sig' };
    return { keyId: record.keyId, kid, publicJwk, verifyKey: publicKeyFromJwk({ kty, crv, x, y }) };
  }

  /**
   * The tenant's token key, loaded once per process (concurrent first uses share one load). Signing
   * and the JWKS make it when the tenant has none; verifying never does (no key, no valid token).
   */
  async function tenantKey(tenantId: string, create: boolean): Promise<TenantKey | undefined> {
    const hit = cache.get(tenantId);
    if (hit) return hit;
    const flight = `${tenantId} ${create}`;
    let pending = loading.get(flight);
    if (!pending) {
      pending = load(tenantId, create).finally(() => loading.delete(flight));
      loading.set(flight, pending);
    }
    const key = await pending;
    if (key) cache.set(tenantId, key);
    return key;
  }

  async function signingKey(tenantId: string): Promise<TenantKey> {
    const key = await tenantKey(tenantId, true);
    if (!key) throw new Error(`No wallet token key for tenant ${tenantId}`);
    return key;
  }

  return {
    async issue(claims, ttlSeconds) {
      const key = await signingKey(claims.tenantId);
      const full = completeWalletClaims(claims, ttlSeconds, clock.now(), tokenId());
      const payload = {
        iss: full.issuer,
        aud: full.issuer,
        sub: full.userId,
        tid: full.tenantId,
        oid: full.offerId,
        cfg: full.configurationIds,
        scope: full.scope,
        // Only when true: tokens without credential identifiers keep their size.
        ...(full.credentialIdentifiers === true ? { cids: true } : {}),
        ...(full.grant !== undefined ? { gty: full.grant } : {}),
        // RFC 9449 §6.1: a DPoP-bound token names the key's thumbprint.
        ...(full.dpopJkt !== undefined ? { cnf: { jkt: full.dpopJkt } } : {}),
        ...(full.clientId !== undefined ? { client_id: full.clientId } : {}),
        ...(full.clientInstanceId !== undefined ? { client_instance_id: full.clientInstanceId } : {}),
        // The offer's key attestation levels (Vellum's claim `kar`), for the credential endpoint.
        ...(full.keyAttestationsRequired !== undefined ? { kar: full.keyAttestationsRequired } : {}),
        jti: full.jti,
        iat: full.issuedAt,
        exp: full.expiresAt,
      };
      const signingInput = `${b64url(JSON.stringify({ alg: ALG, typ: TYP, kid: key.kid }))}.${b64url(JSON.stringify(payload))}`;
      // The KeyManager signs ES256 in the IEEE P1363 form (r‖s) that JWS uses.
      const signature = await keys.sign(claims.tenantId, key.keyId, encoder.encode(signingInput));
      const token = `${signingInput}.${b64url(signature)}`;
      remember(token, copyOf(full));
      return { token, claims: full };
    },

    async verify(tenantId, issuer, token) {
      try {
        if (typeof token !== 'string' || token.length > 8192) return undefined;
        const now = Math.floor(clock.now().getTime() / 1000);
        const seen = known.get(token);
        if (seen) return seen.tenantId === tenantId && seen.issuer === issuer && seen.expiresAt > now ? copyOf(seen) : undefined;
        // The header is read before the key is looked up, so junk never costs a store read.
        const header = decodeJwsHeader(token);
        if (!header || header.alg !== ALG || header.typ !== TYP) return undefined;
        const key = await tenantKey(tenantId, false);
        if (!key || header.kid !== key.kid) return undefined;
        const verified = verifyCompactJws(token, key.verifyKey, [ALG]);
        if (!verified) return undefined;
        const p = JSON.parse(decoder.decode(verified.payload)) as Record<string, unknown>;
        const audiences = Array.isArray(p.aud) ? p.aud : [p.aud];
        if (p.tid !== tenantId || p.iss !== issuer || !audiences.includes(issuer)) return undefined;
        if (typeof p.exp !== 'number' || typeof p.iat !== 'number' || p.exp <= now) return undefined;
        if (typeof p.sub !== 'string' || typeof p.oid !== 'string' || typeof p.jti !== 'string' || typeof p.scope !== 'string' || !isStringArray(p.cfg))
          return undefined;
        const claims: WalletAccessClaims = {
          tenantId,
          issuer,
          userId: p.sub,
          offerId: p.oid,
          configurationIds: p.cfg,
          scope: p.scope,
          ...(p.cids === true ? { credentialIdentifiers: true } : {}),
          ...(p.gty === 'authorization_code' || p.gty === 'refresh_token' ? { grant: p.gty } : {}),
          ...(jktOf(p.cnf) !== undefined ? { dpopJkt: jktOf(p.cnf) as string } : {}),
          ...(typeof p.client_id === 'string' ? { clientId: p.client_id } : {}),
          ...(typeof p.client_instance_id === 'string' ? { clientInstanceId: p.client_instance_id } : {}),
          ...(levelsOf(p.kar) !== undefined ? { keyAttestationsRequired: levelsOf(p.kar) as KeyAttestationLevels } : {}),
          jti: p.jti,
          issuedAt: p.iat,
          expiresAt: p.exp,
        };
        remember(token, copyOf(claims));
        return claims;
      } catch {
        return undefined;
      }
    },

    async jwks(tenantId) {
      const key = await signingKey(tenantId);
      return { keys: [{ ...key.publicJwk }] };
    },
  };
}
