import { type KeyObject, randomBytes } from 'node:crypto';
import {
  type Clock,
  completeWalletClaims,
  conflict,
  type Ids,
  type KeyAttestationLevels,
  type KeyManager,
  type TenantSigningKeyRepository,
  type WalletAccessClaims,
  WALLET_TOKEN_KEY_REFRESH_SECONDS,
  type WalletTokens,
} from '@vellum/core';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { decodeJwsHeader, publicKeyFromJwk, verifyCompactJws } from './jws.ts';
import { sharedLoads } from './shared-loads.ts';

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
  /**
   * How long a process keeps a tenant's token keys before reading them again, so that it signs with
   * a key rotated on another server (default WALLET_TOKEN_KEY_REFRESH_SECONDS). A token naming a key
   * this process does not know makes it read them again sooner, at most once a second per tenant.
   */
  refreshMs?: number;
}

interface TenantKey {
  keyId: string;
  kid: string;
  publicJwk: Record<string, unknown>;
  verifyKey: KeyObject;
}

/** A tenant's token keys as one process holds them: the one that signs, and the one it replaced while it still verifies. */
interface TenantKeys {
  current: TenantKey;
  previous?: TenantKey & { until: number };
  /** When to read them again (clock milliseconds). */
  refreshAt: number;
}

/** How soon after one read a token with an unknown `kid` may make a process read the tenant's keys again. */
const RELOAD_ON_UNKNOWN_KID_MS = 1000;

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
 * agree on one key (a loser destroys the key it made). A rotation makes a new key that signs from
 * then on; the old one verifies, and stays in the JWKS, until the overlap ends. Each process keeps a
 * tenant's public keys for `refreshMs`.
 */
export function createWalletTokens(options: WalletTokensOptions): WalletTokens {
  const { signingKeys, keys, clock } = options;
  const { ids } = options;
  const tokenId = ids ? () => ids.token(16) : () => randomBytes(16).toString('base64url');
  const refreshMs = options.refreshMs ?? WALLET_TOKEN_KEY_REFRESH_SECONDS * 1000;
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

  async function keyOf(tenantId: string, keyId: string): Promise<TenantKey> {
    const key = await keys.get(tenantId, keyId);
    if (!key || key.publicJwk.kty !== 'EC') throw new Error(`The wallet token key ${keyId} of tenant ${tenantId} is missing or not P-256`);
    const { kty, crv, x, y } = key.publicJwk;
    const kid = await calculateJwkThumbprint({ kty, crv, x, y } as JWK, 'sha256');
    const publicJwk = { kty, crv, x, y, kid, alg: ALG, use: 'sig' };
    return { keyId, kid, publicJwk, verifyKey: publicKeyFromJwk({ kty, crv, x, y }) };
  }

  // Each tenant's keys, read at most once at a time (tenantKeys below).
  async function load(tenantId: string, create: boolean): Promise<TenantKeys | undefined> {
    let record = await signingKeys.get(tenantId, WALLET_TOKEN_KEY_PURPOSE);
    if (!record) {
      if (!create) return undefined;
      const made = await keys.create(tenantId, 'P-256');
      record = await signingKeys.insertIfAbsent({ tenantId, purpose: WALLET_TOKEN_KEY_PURPOSE, keyId: made.id, createdAt: clock.now().toISOString() });
      // Another server recorded its key first: ours is never used.
      if (record.keyId !== made.id) await keys.destroy(tenantId, made.id);
    }
    const now = clock.now().getTime();
    const until = record.previousUntil === undefined ? Number.NaN : Date.parse(record.previousUntil);
    // The key a rotation replaced verifies the tokens it signed until the overlap ends; a key since
    // destroyed (by the next rotation) verifies nothing.
    const previous =
      record.previousKeyId !== undefined && until > now
        ? await keyOf(tenantId, record.previousKeyId).then(
            (k) => ({ ...k, until }),
            () => undefined,
          )
        : undefined;
    return { current: await keyOf(tenantId, record.keyId), ...(previous ? { previous } : {}), refreshAt: now + refreshMs };
  }

  const held = sharedLoads(load);

  /**
   * The tenant's token keys, read once per `refreshMs` per process (concurrent reads share one
   * load). Signing and the JWKS make a key when the tenant has none; verifying never does (no key,
   * no valid token).
   */
  async function tenantKeys(tenantId: string, create: boolean, reload = false): Promise<TenantKeys | undefined> {
    const hit = held.cache.get(tenantId);
    if (hit && !reload && hit.refreshAt > clock.now().getTime()) return hit;
    return held.load(tenantId, create);
  }

  async function signingKey(tenantId: string): Promise<TenantKey> {
    const loaded = await tenantKeys(tenantId, true);
    if (!loaded) throw new Error(`No wallet token key for tenant ${tenantId}`);
    return loaded.current;
  }

  /** The key that verifies a token naming `kid`: the current one, or the one it replaced during the overlap. */
  async function verifyingKey(tenantId: string, kid: unknown, now: number): Promise<TenantKey | undefined> {
    let loaded = await tenantKeys(tenantId, false);
    const match = (k: TenantKeys | undefined) =>
      k && (k.current.kid === kid ? k.current : k.previous && k.previous.kid === kid && k.previous.until > now ? k.previous : undefined);
    const found = match(loaded);
    if (found || !loaded || typeof kid !== 'string') return found;
    // A kid this process does not know may be a key another server rotated in: read again, not more than once a second.
    if (loaded.refreshAt - refreshMs + RELOAD_ON_UNKNOWN_KID_MS > now) return undefined;
    loaded = await tenantKeys(tenantId, false, true);
    return match(loaded);
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
        const key = await verifyingKey(tenantId, header.kid, now * 1000);
        if (!key) return undefined;
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
      await signingKey(tenantId);
      const loaded = (await tenantKeys(tenantId, true)) as TenantKeys;
      const now = clock.now().getTime();
      // The key that signs first, then the one it replaced while tokens it signed may still be presented.
      const published = [loaded.current, ...(loaded.previous && loaded.previous.until > now ? [loaded.previous] : [])];
      return { keys: published.map((k) => ({ ...k.publicJwk })) };
    },

    async rotate(tenantId, previousUntil) {
      const now = clock.now();
      const record = await signingKeys.get(tenantId, WALLET_TOKEN_KEY_PURPOSE);
      // A tenant that never had a token key gets its first one: there is nothing to overlap with.
      if (!record) {
        const first = await signingKey(tenantId);
        return { activeKid: first.kid };
      }
      if (record.previousUntil !== undefined && Date.parse(record.previousUntil) > now.getTime()) {
        throw conflict(`The last rotation of the access-token key overlaps until ${record.previousUntil}; rotate again after that`);
      }
      const made = await keys.create(tenantId, 'P-256');
      const rotated = await signingKeys.rotate(tenantId, WALLET_TOKEN_KEY_PURPOSE, record.keyId, {
        keyId: made.id,
        previousUntil: previousUntil.toISOString(),
        rotatedAt: now.toISOString(),
      });
      if (!rotated) {
        await keys.destroy(tenantId, made.id);
        throw conflict('Another rotation of the access-token key happened at the same time; try again');
      }
      // The key the last rotation replaced has verified its last token: it goes now.
      if (record.previousKeyId !== undefined) await keys.destroy(tenantId, record.previousKeyId);
      held.cache.delete(tenantId);
      const loaded = (await tenantKeys(tenantId, false)) as TenantKeys;
      return { activeKid: loaded.current.kid, ...(loaded.previous ? { retiredKid: loaded.previous.kid, retiredUntil: rotated.previousUntil as string } : {}) };
    },
  };
}
