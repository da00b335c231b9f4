import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

import { type Clock, conflict, type PlatformKeyHolder, type PlatformKeyRepository, type TokenSigner, WALLET_TOKEN_KEY_REFRESH_SECONDS } from '@vellum/core';
import { calculateJwkThumbprint } from 'jose';

import { signEs256 } from './ecdsa.ts';
import { decodeJwsHeader, verifyCompactJws } from './jws.ts';
import type { Sealer } from './sealer.ts';

/** The name of the platform key that signs admin access tokens. */
export const ADMIN_TOKEN_KEY_NAME = 'admin-token-signing';

const ALG = 'ES256';
// RFC 9068 access-token type: verify requires it, so no other JWT the platform key might one day
// sign can be replayed as an admin access token.
const TYP = 'at+jwt';
/** How many verified tokens each signer remembers; the oldest is dropped first. */
const VERIFIED_CACHE_SIZE = 10_000;

/** A public EC P-256 JWK, as a JWKS endpoint would publish it. */
export interface PublicJwk {
  readonly kty: 'EC';
  readonly crv: 'P-256';
  readonly x: string;
  readonly y: string;
  readonly kid: string;
  readonly alg: 'ES256';
  readonly use: 'sig';
}

export interface PlatformTokenSigner extends TokenSigner {
  /** The `kid` in every token's header: the key's RFC 7638 thumbprint. */
  readonly keyId: string;
  readonly publicJwk: PublicJwk;
}

export interface LoadPlatformTokenSignerOptions {
  keys: PlatformKeyRepository;
  sealer: Sealer;
  clock: Clock;
  /** When set, tokens carry this `iss` and verify requires it. */
  issuer?: string;
  /**
   * How long a process keeps the key before reading it again, so that it signs with a key rotated
   * by another server (default WALLET_TOKEN_KEY_REFRESH_SECONDS, five minutes). A token naming a key
   * this process does not know makes it read the key again sooner, at most once a second.
   */
  refreshMs?: number;
  /**
   * Where a new admin-token key is made and used instead of being sealed here: a PKCS#11 token
   * (docs/key-custody.md "The platform's keys"). A key keeps working where it was made: a record of
   * a software key goes on signing in software until a rotation makes the next key in the holder.
   */
  holder?: PlatformKeyHolder;
  /** Whether a new key (the first) is made in the holder (the default when there is one) or in software; a held key is used either way. */
  newKeysInHolder?: boolean;
}

/** The admin-token key, held: its reference in the holder and its public half; nothing private. */
interface HeldKeyRef {
  held: string;
  holder: string;
  publicJwk: Omit<PrivateEcJwk, 'd'>;
}

/**
 * What the sealed record holds: the private key that signs, and after a rotation the public key it
 * replaced and until when that one verifies. Records from before rotation hold the bare private JWK.
 */
interface StoredTokenKeys {
  v: 2;
  current: PrivateEcJwk | HeldKeyRef;
  previous?: { jwk: Omit<PrivateEcJwk, 'd'>; until: string };
}

interface PrivateEcJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  d: string;
}

function isPrivateEcJwk(value: unknown): value is PrivateEcJwk {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.kty === 'EC' && v.crv === 'P-256' && [v.x, v.y, v.d].every((p) => typeof p === 'string' && p.length > 0);
}

function isHeldKeyRef(value: unknown): value is HeldKeyRef {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.held === 'string' && typeof v.holder === 'string' && isPrivateEcJwk({ ...(v.publicJwk as object), d: 'x' });
}

function unseal(sealer: Sealer, sealed: string): StoredTokenKeys {
  const plaintext = sealer.open(sealed, ADMIN_TOKEN_KEY_NAME);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(plaintext).toString('utf8'));
  } catch (cause) {
    throw new Error(`The platform key ${ADMIN_TOKEN_KEY_NAME} is not valid JSON after decryption`, { cause });
  }
  if (isPrivateEcJwk(value)) return { v: 2, current: value };
  const stored = value as Partial<StoredTokenKeys> | null;
  if (stored?.v !== 2 || !(isPrivateEcJwk(stored.current) || isHeldKeyRef(stored.current))) {
    throw new Error(`The platform key ${ADMIN_TOKEN_KEY_NAME} is not a P-256 private JWK`);
  }
  return stored as StoredTokenKeys;
}

const sealKeys = (sealer: Sealer, keys: StoredTokenKeys) => sealer.seal(Buffer.from(JSON.stringify(keys), 'utf8'), ADMIN_TOKEN_KEY_NAME);

function newPrivateJwk(): PrivateEcJwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y, d } = privateKey.export({ format: 'jwk' });
  return { kty: 'EC', crv: 'P-256', x: x as string, y: y as string, d: d as string } satisfies PrivateEcJwk & { kty: typeof kty; crv: typeof crv };
}

/** A new admin-token key: in the holder when there is one, else a software key. */
async function newKey(holder: PlatformKeyHolder | undefined): Promise<PrivateEcJwk | HeldKeyRef> {
  if (!holder) return newPrivateJwk();
  const { ref, publicJwk } = await holder.generate();
  return { held: ref, holder: holder.name, publicJwk: { kty: 'EC', crv: 'P-256', x: publicJwk.x, y: publicJwk.y } };
}

const publicOf = (key: PrivateEcJwk | HeldKeyRef): Omit<PrivateEcJwk, 'd'> => {
  if (isHeldKeyRef(key)) return key.publicJwk;
  const { d: _private, ...rest } = key;
  return rest;
};

/** A public key of the platform's and its RFC 7638 thumbprint. */
async function publicKeyOf(jwk: Pick<PrivateEcJwk, 'kty' | 'crv' | 'x' | 'y'>): Promise<{ kid: string; publicJwk: PublicJwk; publicKey: KeyObject }> {
  const publicPart = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const kid = await calculateJwkThumbprint(publicPart, 'sha256');
  return { kid, publicJwk: Object.freeze({ ...publicPart, kid, alg: ALG, use: 'sig' }), publicKey: createPublicKey({ key: publicPart, format: 'jwk' }) };
}

/** A verified token's claims as JSON (so every caller gets its own copy) and its time bounds. */
interface VerifiedToken {
  json: string;
  exp: number;
  nbf: number | undefined;
}

const utf8 = new TextDecoder();
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const epoch = (date: Date) => Math.floor(date.getTime() / 1000);
// RFC 7515 §4.1.9: `typ` is a media type (case-insensitive) whose `application/` prefix may be left out.
const isAccessTokenTyp = (typ: unknown) => typeof typ === 'string' && (typ.toLowerCase() === TYP || typ.toLowerCase() === `application/${TYP}`);
const isAudience = (aud: unknown) => typeof aud === 'string' || (Array.isArray(aud) && aud.every((a) => typeof a === 'string'));
/** The time checks, without clock tolerance: expired at `exp`, valid from `nbf`. */
const inTime = (t: Pick<VerifiedToken, 'exp' | 'nbf'>, now: number) => t.exp > now && (t.nbf === undefined || t.nbf <= now);

/**
 * Checks a token's signature (ES256 by the platform key), its `typ` and the claims every admin token
 * has; undefined for anything else. Expiry is left to the caller, which checks it on every use.
 */
function checkToken(token: string, publicKey: KeyObject, issuer: string | undefined): { claims: Record<string, unknown>; verified: VerifiedToken } | undefined {
  const jws = verifyCompactJws(token, publicKey, [ALG]);
  if (!jws || !isAccessTokenTyp(jws.header.typ)) return undefined;
  const json = utf8.decode(jws.payload);
  let payload: unknown;
  try {
    payload = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const p = payload as Record<string, unknown>;
  if (typeof p.sub !== 'string' || !isAudience(p.aud) || typeof p.iat !== 'number' || typeof p.exp !== 'number') return undefined;
  if (p.nbf !== undefined && typeof p.nbf !== 'number') return undefined;
  if (issuer !== undefined && p.iss !== issuer) return undefined;
  return { claims: p, verified: { json, exp: p.exp, nbf: p.nbf } };
}

/**
 * The admin access token signer on the platform's ES256 key, creating and storing the key (sealed)
 * on first start. Throws when the stored key cannot be opened, so a wrong master key stops the
 * server at start rather than at the first token request.
 */
export async function loadPlatformTokenSigner(options: LoadPlatformTokenSignerOptions): Promise<PlatformTokenSigner> {
  const { keys, sealer, clock, issuer } = options;
  const refreshMs = options.refreshMs ?? WALLET_TOKEN_KEY_REFRESH_SECONDS * 1000;
  let record = await keys.get(ADMIN_TOKEN_KEY_NAME);
  if (!record) {
    const sealed = sealKeys(sealer, { v: 2, current: await newKey(options.newKeysInHolder === false ? undefined : options.holder) });
    // Another server may have stored its key meanwhile; use whichever won so all servers agree.
    record = await keys.insertIfAbsent({ name: ADMIN_TOKEN_KEY_NAME, sealed, createdAt: clock.now().toISOString() });
  }

  /** The keys as one process holds them: the one that signs, the one a rotation replaced while it verifies, and when to look again. */
  interface Held {
    sealed: string;
    kid: string;
    publicJwk: PublicJwk;
    /** Signs a JWS signing input (r‖s): in this process, or in the holder. */
    signWith: (data: Uint8Array) => Promise<Uint8Array>;
    publicKey: KeyObject;
    previous?: { kid: string; publicKey: KeyObject; until: number };
    loadedAt: number;
  }
  async function hold(sealed: string): Promise<Held> {
    const stored = unseal(sealer, sealed);
    const { kid, publicJwk, publicKey } = await publicKeyOf(publicOf(stored.current));
    const current = stored.current;
    let signWith: Held['signWith'];
    if (isHeldKeyRef(current)) {
      const holder = options.holder;
      // A key made in a token this server has no access to: refused at start, never a software key instead.
      if (!holder || holder.name !== current.holder) {
        throw new Error(`The admin-token key is held in ${current.holder}, which this server has not configured (docs/key-custody.md "The platform's keys")`);
      }
      signWith = (data) => holder.sign(current.held, data);
    } else {
      const privateKey = createPrivateKey({ key: { ...current }, format: 'jwk' });
      signWith = async (data) => new Uint8Array(signEs256(data, privateKey));
    }
    const previous = stored.previous ? { ...(await publicKeyOf(stored.previous.jwk)), until: Date.parse(stored.previous.until) } : undefined;
    return {
      sealed,
      kid,
      publicJwk,
      publicKey,
      signWith,
      ...(previous ? { previous: { kid: previous.kid, publicKey: previous.publicKey, until: previous.until } } : {}),
      loadedAt: clock.now().getTime(),
    };
  }
  // A wrong master key throws here, at start.
  let held = await hold(record.sealed);
  let reading: Promise<Held> | undefined;
  /** Reads the record again (one read at a time); keeps what is held when it did not change. */
  const reread = (): Promise<Held> =>
    (reading ??= (async () => {
      try {
        const now = await keys.get(ADMIN_TOKEN_KEY_NAME);
        held = now && now.sealed !== held.sealed ? await hold(now.sealed) : { ...held, loadedAt: clock.now().getTime() };
        return held;
      } finally {
        reading = undefined;
      }
    })());
  const fresh = async (): Promise<Held> => (clock.now().getTime() - held.loadedAt >= refreshMs ? reread() : held);
  /** The public key a token's `kid` names: the one that signs, or the one it replaced during the overlap. */
  const verifyingKey = async (kid: unknown): Promise<KeyObject | undefined> => {
    const now = clock.now().getTime();
    const match = (h: Held) =>
      kid === h.kid ? h.publicKey : h.previous && kid === h.previous.kid && h.previous.until > now ? h.previous.publicKey : undefined;
    const current = await fresh();
    const found = match(current);
    // A kid this process does not know may be a key another server rotated in: read again, not more than once a second.
    if (found || typeof kid !== 'string' || now - current.loadedAt < 1000) return found;
    return match(await reread());
  };
  // Admin clients send the same token on every call until it expires. A token is a bearer
  // credential: whoever holds these exact bytes may use it, whether its signature is checked once
  // or on every call, so remembering a successful check keyed by the whole token string changes no
  // security property. Only tokens that verified are kept, so the cache cannot be filled by others,
  // and the clock is still checked on every use.
  const verified = new Map<string, VerifiedToken>();

  return {
    get keyId() {
      return held.kid;
    },
    get publicJwk() {
      return held.publicJwk;
    },

    async sign(claims, o) {
      const { kid, signWith } = await fresh();
      const iat = epoch(clock.now());
      const exp = iat + o.expiresInSeconds;
      if (!Number.isFinite(iat) || !Number.isFinite(exp)) throw new TypeError('Admin tokens need a valid clock and a finite lifetime');
      const payload = {
        ...claims,
        sub: o.subject,
        aud: o.audience,
        iat,
        exp,
        jti: randomBytes(16).toString('base64url'),
        ...(issuer !== undefined ? { iss: issuer } : {}),
      };
      const signingInput = `${b64(JSON.stringify({ alg: ALG, typ: TYP, kid }))}.${b64(JSON.stringify(payload))}`;
      return `${signingInput}.${Buffer.from(await signWith(Buffer.from(signingInput, 'latin1'))).toString('base64url')}`;
    },

    async verify(token) {
      if (typeof token !== 'string') return undefined;
      const now = epoch(clock.now());
      const hit = verified.get(token);
      if (hit) {
        if (inTime(hit, now)) return JSON.parse(hit.json) as Record<string, unknown>;
        // Past its exp a token never verifies again; should the clock go back, it is checked anew.
        if (hit.exp <= now) verified.delete(token);
        return undefined;
      }
      const publicKey = await verifyingKey(decodeJwsHeader(token)?.kid);
      if (!publicKey) return undefined;
      const checked = checkToken(token, publicKey, issuer);
      if (!checked || !inTime(checked.verified, now)) return undefined;
      if (verified.size >= VERIFIED_CACHE_SIZE) {
        const oldest = verified.keys().next();
        if (!oldest.done) verified.delete(oldest.value);
      }
      verified.set(token, checked.verified);
      return checked.claims;
    },
  };
}

export interface RotatePlatformTokenKeyOptions {
  keys: PlatformKeyRepository;
  sealer: Sealer;
  clock: Clock;
  /** Where the next key is made (a PKCS#11 token), when not in software. */
  holder?: PlatformKeyHolder;
  /** Until when the replaced key verifies the admin tokens it signed. */
  previousUntil: Date;
}

/**
 * Rotates the platform's admin-token key (docs/key-custody.md "Rotation"): a new key signs from now
 * on, in every server within its refresh time; the old one verifies until `previousUntil`, and is
 * dropped at the next rotation, which is refused (Conflict) until then.
 */
export async function rotatePlatformTokenKey(options: RotatePlatformTokenKeyOptions): Promise<{ activeKid: string; retiredKid: string; retiredUntil: string }> {
  const { keys, sealer, clock, previousUntil, holder } = options;
  const record = await keys.get(ADMIN_TOKEN_KEY_NAME);
  if (!record) throw conflict('The platform has no admin-token key yet: start the server once');
  const stored = unseal(sealer, record.sealed);
  const now = clock.now();
  if (stored.previous && Date.parse(stored.previous.until) > now.getTime()) {
    throw conflict(`The last rotation of the admin-token key overlaps until ${stored.previous.until}; rotate again after that`);
  }
  const oldPublic = publicOf(stored.current);
  const next: StoredTokenKeys = { v: 2, current: await newKey(holder), previous: { jwk: oldPublic, until: previousUntil.toISOString() } };
  const replaced = await keys.replace(record.sealed, { name: ADMIN_TOKEN_KEY_NAME, sealed: sealKeys(sealer, next), createdAt: now.toISOString() });
  if (!replaced) throw conflict('Another rotation of the admin-token key happened at the same time; try again');
  return {
    activeKid: (await publicKeyOf(publicOf(next.current))).kid,
    retiredKid: (await publicKeyOf(oldPublic)).kid,
    retiredUntil: previousUntil.toISOString(),
  };
}
