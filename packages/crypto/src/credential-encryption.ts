import { createECDH, hkdfSync } from 'node:crypto';
import { type Clock, type CredentialEncryption, JWE_ENCRYPTION_ALGORITHMS, type PlatformKeyRepository } from '@vellum/core';
import { calculateJwkThumbprint, CompactEncrypt, compactDecrypt, type CryptoKey, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { hasPrivateMembers } from './jws.ts';
import { loadPlatformSecret } from './platform-secret.ts';
import type { Sealer } from './sealer.ts';

/** The platform key record holding the seed every tenant's request encryption key derives from. */
export const REQUEST_ENCRYPTION_SEED_NAME = 'credential-request-encryption-seed';

const SEED_BYTES = 32;
const KEY_ALG = 'ECDH-ES';
// Changing the salt gives every tenant a new key: it names the derivation, and its version.
const DERIVATION_SALT = 'vellum/credential-request-encryption/p-256/v1';
/** The order of the P-256 group (SEC 2 §2.4.2). */
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
/** An encrypted request body is at most the API's 1 MB body limit. */
const MAX_JWE_LENGTH = 1024 * 1024;
/** The wallet key types ECDH-ES works with in jose (RFC 7518 §4.6, RFC 8037). */
const WALLET_CURVES: Record<string, readonly string[]> = { EC: ['P-256', 'P-384', 'P-521'], OKP: ['X25519'] };

export interface LoadCredentialEncryptionOptions {
  keys: PlatformKeyRepository;
  sealer: Sealer;
  clock: Clock;
  /** How many tenants' derived keys to keep in memory (default 10,000). */
  cacheSize?: number;
}

interface TenantKey {
  publicJwk: Record<string, unknown>;
  kid: string;
  privateKey: CryptoKey;
}

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/**
 * A tenant's P-256 key agreement key: HKDF-SHA256 of the platform seed with the tenant id as info
 * gives 48 bytes, reduced to a scalar in [1, n-1] as FIPS 186-5 A.2.1 does (the 16 extra bytes
 * make the bias negligible). The same seed gives every server the same key for a tenant.
 */
async function deriveTenantKey(seed: Uint8Array, tenantId: string): Promise<TenantKey> {
  const okm = Buffer.from(hkdfSync('sha256', seed, DERIVATION_SALT, `tenant:${tenantId}`, 48));
  const scalar = (BigInt(`0x${okm.toString('hex')}`) % (P256_N - 1n)) + 1n;
  const d = Buffer.from(scalar.toString(16).padStart(64, '0'), 'hex');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey(); // 0x04 ‖ x ‖ y
  const publicPart = { kty: 'EC', crv: 'P-256', x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33, 65)) };
  const kid = await calculateJwkThumbprint(publicPart as JWK, 'sha256');
  const privateKey = (await importJWK({ ...publicPart, d: b64u(d) }, KEY_ALG)) as CryptoKey;
  return { kid, privateKey, publicJwk: { ...publicPart, kid, use: 'enc', alg: KEY_ALG } };
}

/** Checks a wallet's `credential_response_encryption.jwk` is a usable public key agreement key. */
function walletKeyProblem(jwk: Record<string, unknown>): string | undefined {
  if (hasPrivateMembers(jwk)) return 'The jwk holds private key material';
  const curves = typeof jwk.kty === 'string' ? WALLET_CURVES[jwk.kty] : undefined;
  if (!curves || typeof jwk.crv !== 'string' || !curves.includes(jwk.crv)) return 'The jwk must be an EC (P-256, P-384, P-521) or OKP X25519 public key';
  if (jwk.use !== undefined && jwk.use !== 'enc') return 'The jwk’s use must be enc';
  return undefined;
}

/**
 * The CredentialEncryption port with jose (docs/decisions.md "The credential endpoint"). Requests are decrypted with a per-tenant
 * P-256 key derived from one sealed platform seed (docs/decisions.md explains why); responses are
 * encrypted to the wallet's key with ECDH-ES and A128GCM or A256GCM. Nothing here throws on input.
 * Loading throws when the stored seed cannot be opened, so a wrong master key stops the server at start.
 */
export async function loadCredentialEncryption(options: LoadCredentialEncryptionOptions): Promise<CredentialEncryption> {
  const seed = await loadPlatformSecret(options, REQUEST_ENCRYPTION_SEED_NAME, SEED_BYTES);
  const cacheSize = options.cacheSize ?? 10_000;
  const cache = new Map<string, Promise<TenantKey>>();
  const keyOf = (tenantId: string): Promise<TenantKey> => {
    let hit = cache.get(tenantId);
    if (hit === undefined) {
      hit = deriveTenantKey(seed, tenantId);
      cache.set(tenantId, hit);
      if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    }
    return hit;
  };
  const encryptions = new Set<string>(JWE_ENCRYPTION_ALGORITHMS);

  return {
    async requestEncryptionKeys(tenantId) {
      return [{ ...(await keyOf(tenantId)).publicJwk }];
    },

    async decryptRequest(tenantId, jwe) {
      if (typeof jwe !== 'string' || jwe.length === 0 || jwe.length > MAX_JWE_LENGTH) return { ok: false, reason: 'The body is not a compact JWE' };
      let header: Record<string, unknown>;
      try {
        header = decodeProtectedHeader(jwe) as Record<string, unknown>;
      } catch {
        return { ok: false, reason: 'The body is not a compact JWE' };
      }
      if (jwe.split('.').length !== 5) return { ok: false, reason: 'The body is not a compact JWE' };
      const key = await keyOf(tenantId);
      if (header.alg !== KEY_ALG || typeof header.enc !== 'string' || !encryptions.has(header.enc)) {
        return { ok: false, reason: `The request must be encrypted with ${KEY_ALG} and one of ${JWE_ENCRYPTION_ALGORITHMS.join(', ')}` };
      }
      if (header.kid !== undefined && header.kid !== key.kid) return { ok: false, reason: 'The request is encrypted to a key this issuer does not publish' };
      if (header.zip !== undefined) return { ok: false, reason: 'Compressed requests (zip) are not supported' };
      try {
        const { plaintext } = await compactDecrypt(jwe, key.privateKey, {
          keyManagementAlgorithms: [KEY_ALG],
          contentEncryptionAlgorithms: [...JWE_ENCRYPTION_ALGORITHMS],
        });
        return { ok: true, plaintext: new TextDecoder('utf-8', { fatal: true }).decode(plaintext) };
      } catch {
        return { ok: false, reason: 'The request could not be decrypted with this issuer’s key' };
      }
    },

    async responseEncrypter({ jwk, alg, enc }) {
      const problem =
        walletKeyProblem(jwk) ?? (alg !== KEY_ALG || !encryptions.has(enc) ? `Only ${KEY_ALG} with ${JWE_ENCRYPTION_ALGORITHMS.join(' or ')}` : undefined);
      if (problem !== undefined) return { ok: false, reason: problem };
      const { kid, use: _use, alg: _alg, key_ops: _ops, ...material } = jwk;
      let key: CryptoKey;
      try {
        key = (await importJWK(material as JWK, KEY_ALG)) as CryptoKey;
      } catch {
        return { ok: false, reason: 'The jwk is not a valid public key' };
      }
      // The header names the wallet's key when it has a kid, so a wallet with several can pick it.
      const header = { alg: KEY_ALG, enc, ...(typeof kid === 'string' ? { kid } : {}) };
      return {
        ok: true,
        encrypt: (plaintext: string) => new CompactEncrypt(new TextEncoder().encode(plaintext)).setProtectedHeader(header).encrypt(key),
      };
    },
  };
}
