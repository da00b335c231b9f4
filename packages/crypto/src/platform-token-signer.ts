import { randomBytes } from 'node:crypto';

import type { Clock, PlatformKeyRepository, TokenSigner } from '@vellum/core';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';

import type { Sealer } from './sealer.ts';

/** The name of the platform key that signs admin access tokens. */
export const ADMIN_TOKEN_KEY_NAME = 'admin-token-signing';

const ALG = 'ES256';
// RFC 9068 access-token type: verify requires it, so no other JWT the platform key might one day
// sign can be replayed as an admin access token.
const TYP = 'at+jwt';

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

function unseal(sealer: Sealer, sealed: string): PrivateEcJwk {
  const plaintext = sealer.open(sealed, ADMIN_TOKEN_KEY_NAME);
  let jwk: unknown;
  try {
    jwk = JSON.parse(Buffer.from(plaintext).toString('utf8'));
  } catch (cause) {
    throw new Error(`The platform key ${ADMIN_TOKEN_KEY_NAME} is not valid JSON after decryption`, { cause });
  }
  if (!isPrivateEcJwk(jwk)) throw new Error(`The platform key ${ADMIN_TOKEN_KEY_NAME} is not a P-256 private JWK`);
  return jwk;
}

async function newSealedKey(sealer: Sealer): Promise<string> {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const { kty, crv, x, y, d } = await exportJWK(privateKey);
  return sealer.seal(Buffer.from(JSON.stringify({ kty, crv, x, y, d }), 'utf8'), ADMIN_TOKEN_KEY_NAME);
}

/**
 * The admin access token signer on the platform's ES256 key, creating and storing the key (sealed)
 * on first start. Throws when the stored key cannot be opened, so a wrong master key stops the
 * server at start rather than at the first token request.
 */
export async function loadPlatformTokenSigner(options: LoadPlatformTokenSignerOptions): Promise<PlatformTokenSigner> {
  const { keys, sealer, clock, issuer } = options;
  let record = await keys.get(ADMIN_TOKEN_KEY_NAME);
  if (!record) {
    const sealed = await newSealedKey(sealer);
    // Another server may have stored its key meanwhile; use whichever won so all servers agree.
    record = await keys.insertIfAbsent({ name: ADMIN_TOKEN_KEY_NAME, sealed, createdAt: clock.now().toISOString() });
  }
  const jwk = unseal(sealer, record.sealed);
  const publicPart = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const kid = await calculateJwkThumbprint(publicPart, 'sha256');
  const publicJwk: PublicJwk = Object.freeze({ ...publicPart, kid, alg: ALG, use: 'sig' });
  const privateKey = await importJWK({ ...jwk, alg: ALG } satisfies JWK, ALG);
  const publicKey = await importJWK({ ...publicPart, alg: ALG } satisfies JWK, ALG);

  return {
    keyId: kid,
    publicJwk,

    async sign(claims, o) {
      const iat = Math.floor(clock.now().getTime() / 1000);
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: ALG, typ: TYP, kid })
        .setSubject(o.subject)
        .setAudience(o.audience)
        .setIssuedAt(iat)
        .setExpirationTime(iat + o.expiresInSeconds)
        .setJti(randomBytes(16).toString('base64url'));
      if (issuer !== undefined) jwt.setIssuer(issuer);
      return jwt.sign(privateKey);
    },

    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, publicKey, {
          algorithms: [ALG],
          typ: TYP,
          currentDate: clock.now(),
          requiredClaims: ['sub', 'aud', 'exp', 'iat'],
          ...(issuer !== undefined ? { issuer } : {}),
        });
        return { ...payload };
      } catch {
        return undefined;
      }
    },
  };
}
