// A test wallet made with node:crypto only (no JOSE library), so that packages without one can
// play the wallet: keys, key proof JWTs (OpenID4VCI 1.0 §8.2.1.1), and compact JWE with ECDH-ES
// and AES-GCM written from RFC 7516 and RFC 7518 §4.6 — an implementation independent of jose's.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  verify,
  X509Certificate,
} from 'node:crypto';
import { type KeyProofVerification, type JwtProofVerifier, type ProofVerifier, type PublicJwk, type CredentialEncryption, didKeyOf } from '@vellum/core';

const b64u = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const fromB64u = (text: string) => Buffer.from(text, 'base64url');

/** A wallet key pair: the private key stays in the test, the public one goes into proofs. */
export interface WalletKey {
  privateKey: KeyObject;
  publicJwk: PublicJwk;
  alg: 'ES256' | 'EdDSA';
  /** The did:key DID URL naming the public key (`did:key:z…#z…`). */
  didUrl: string;
}

/** A new P-256 (ES256, the mDoc device key) or Ed25519 wallet key. */
export function walletKey(curve: 'P-256' | 'Ed25519' = 'P-256'): WalletKey {
  const pair = curve === 'P-256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const jwk = pair.publicKey.export({ format: 'jwk' });
  const publicJwk: PublicJwk =
    curve === 'P-256' ? { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string } : { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string };
  const did = didKeyOf(publicJwk);
  return { privateKey: pair.privateKey, publicJwk, alg: curve === 'P-256' ? 'ES256' : 'EdDSA', didUrl: `${did}#${did.slice('did:key:'.length)}` };
}

/** A compact JWS of `payload` signed with `key` (ES256 in the JOSE r‖s form, or EdDSA). */
export function signJwt(key: WalletKey, header: Record<string, unknown>, payload: Record<string, unknown> | string): string {
  const input = `${b64u(JSON.stringify({ alg: key.alg, ...header }))}.${b64u(typeof payload === 'string' ? payload : JSON.stringify(payload))}`;
  const signature =
    key.alg === 'ES256'
      ? sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
      : sign(null, Buffer.from(input), key.privateKey);
  return `${input}.${b64u(signature)}`;
}

export interface ProofOptions {
  audience: string | string[];
  nonce?: string;
  /** Unix seconds (default now). */
  iat?: number;
  /** Name the key by `jwk` (default) or by its did:key `kid`. */
  keyBy?: 'jwk' | 'did';
  /** Header members to add or override (e.g. a wrong `typ`). */
  header?: Record<string, unknown>;
  /** Payload members to add or override. */
  payload?: Record<string, unknown>;
}

/** An OpenID4VCI key proof JWT (`typ: openid4vci-proof+jwt`) for `key`. */
export function proofJwt(key: WalletKey, options: ProofOptions): string {
  const named = options.keyBy === 'did' ? { kid: key.didUrl } : { jwk: key.publicJwk };
  return signJwt(
    key,
    { typ: 'openid4vci-proof+jwt', ...named, ...options.header },
    {
      aud: options.audience,
      iat: options.iat ?? Math.floor(Date.now() / 1000),
      ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
      ...options.payload,
    },
  );
}

/**
 * A ProofVerifier for tests of the core: it checks ES256 and EdDSA signatures against a `jwk`
 * header with node:crypto. It does not read did:key ids (the real one in @vellum/crypto does).
 */
export function fakeProofVerifier(): ProofVerifier & { calls: number } {
  const verifier = {
    calls: 0,
    async verify(jwt: string, options: { algorithms?: readonly string[] } = {}): Promise<KeyProofVerification> {
      verifier.calls += 1;
      const fail = (reason: string): KeyProofVerification => ({ ok: false, reason });
      const parts = typeof jwt === 'string' ? jwt.split('.') : [];
      if (parts.length !== 3) return fail('The proof is not a compact JWT');
      try {
        const header = JSON.parse(fromB64u(parts[0] as string).toString('utf8')) as Record<string, unknown>;
        const payload = JSON.parse(fromB64u(parts[1] as string).toString('utf8')) as Record<string, unknown>;
        const algorithms = options.algorithms ?? ['ES256', 'EdDSA'];
        if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) return fail('The proof’s alg is not accepted');
        const jwk = header.jwk as PublicJwk | undefined;
        if (!jwk || typeof jwk !== 'object' || 'd' in jwk) return fail('The fake verifier reads public jwk headers only');
        const key = createPublicKey({ key: { ...jwk }, format: 'jwk' });
        const data = Buffer.from(`${parts[0]}.${parts[1]}`);
        const signature = fromB64u(parts[2] as string);
        const ok = header.alg === 'ES256' ? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature) : verify(null, data, key, signature);
        if (!ok) return fail('The proof’s signature does not verify with the key it names');
        const holderKey: PublicJwk = jwk.kty === 'EC' ? { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y as string } : { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
        return { ok: true, proof: { header, payload, holderKey } };
      } catch {
        return fail('The proof could not be read');
      }
    },
  };
  return verifier;
}

/**
 * A CredentialEncryption for tests of the core, with no cryptography: a request "encrypted" to a
 * tenant is `fake-jwe.<tenantId>.<base64url plaintext>`, and a response is
 * `fake-jwe.<enc>.<the jwk's x>.<base64url plaintext>` (readFakeJwe reads it).
 */
export function fakeCredentialEncryption(): CredentialEncryption {
  return {
    async requestEncryptionKeys(tenantId) {
      return [{ kty: 'EC', crv: 'P-256', x: b64u(`x-${tenantId}`), y: b64u(`y-${tenantId}`), kid: `enc-${tenantId}`, use: 'enc', alg: 'ECDH-ES' }];
    },
    async decryptRequest(tenantId, jwe) {
      const [tag, to, body] = jwe.split('.');
      if (tag !== 'fake-jwe' || to !== tenantId || body === undefined)
        return { ok: false, reason: 'The request could not be decrypted with this issuer’s key' };
      return { ok: true, plaintext: fromB64u(body).toString('utf8') };
    },
    async responseEncrypter({ jwk, enc }) {
      if ('d' in jwk) return { ok: false, reason: 'The jwk holds private key material' };
      if (typeof jwk.x !== 'string') return { ok: false, reason: 'The jwk is not a valid public key' };
      return { ok: true, encrypt: async (plaintext) => `fake-jwe.${enc}.${jwk.x as string}.${b64u(plaintext)}` };
    },
  };
}

/** What fakeCredentialEncryption sealed for a wallet: the enc, the key it named, and the JSON inside. */
export function readFakeJwe(jwe: string): { enc: string; x: string; json: unknown } {
  const [tag, enc, x, body] = jwe.split('.');
  if (tag !== 'fake-jwe' || !enc || !x || body === undefined) throw new Error('not a fake JWE');
  return { enc, x, json: JSON.parse(fromB64u(body).toString('utf8')) };
}

/** A request body "encrypted" to `tenantId` by fakeCredentialEncryption's rules. */
export function fakeRequestJwe(tenantId: string, body: unknown): string {
  return `fake-jwe.${tenantId}.${b64u(JSON.stringify(body))}`;
}

/** An ECDH key pair a wallet would send in `credential_response_encryption.jwk`. */
export function encryptionKey(): { privateKey: KeyObject; publicJwk: Record<string, string> } {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = pair.publicKey.export({ format: 'jwk' });
  return { privateKey: pair.privateKey, publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string, use: 'enc', alg: 'ECDH-ES' } };
}

const lengthPrefixed = (bytes: Uint8Array) => {
  const out = Buffer.alloc(4 + bytes.length);
  out.writeUInt32BE(bytes.length, 0);
  out.set(bytes, 4);
  return out;
};

/** RFC 7518 §4.6.2: the Concat KDF (one SHA-256 round suffices for 128 and 256 bits). */
function concatKdf(z: Uint8Array, enc: string, keyBits: number, apu: Uint8Array, apv: Uint8Array): Buffer {
  const bits = Buffer.alloc(4);
  bits.writeUInt32BE(keyBits, 0);
  const otherInfo = Buffer.concat([lengthPrefixed(Buffer.from(enc, 'ascii')), lengthPrefixed(apu), lengthPrefixed(apv), bits]);
  return createHash('sha256')
    .update(Buffer.from([0, 0, 0, 1]))
    .update(z)
    .update(otherInfo)
    .digest()
    .subarray(0, keyBits / 8);
}

const KEY_BITS: Record<string, number> = { A128GCM: 128, A256GCM: 256 };

/** Encrypts `plaintext` to a public EC key as a compact JWE with ECDH-ES (direct key agreement). */
export function encryptJwe(
  plaintext: string,
  recipient: Record<string, unknown>,
  enc: 'A128GCM' | 'A256GCM' = 'A128GCM',
  extraHeader: Record<string, unknown> = {},
): string {
  const crv = recipient.crv as string;
  const ephemeral = generateKeyPairSync('ec', { namedCurve: crv });
  const epk = ephemeral.publicKey.export({ format: 'jwk' });
  const header = {
    alg: 'ECDH-ES',
    enc,
    epk: { kty: 'EC', crv, x: epk.x, y: epk.y },
    ...(typeof recipient.kid === 'string' ? { kid: recipient.kid } : {}),
    ...extraHeader,
  };
  const z = diffieHellman({
    privateKey: ephemeral.privateKey,
    publicKey: createPublicKey({ key: { kty: 'EC', crv, x: recipient.x as string, y: recipient.y as string }, format: 'jwk' }),
  });
  const cek = concatKdf(z, enc, KEY_BITS[enc] as number, new Uint8Array(), new Uint8Array());
  const protectedHeader = b64u(JSON.stringify(header));
  const iv = randomBytes(12);
  const cipher = createCipheriv(enc === 'A128GCM' ? 'aes-128-gcm' : 'aes-256-gcm', cek, iv);
  cipher.setAAD(Buffer.from(protectedHeader, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [protectedHeader, '', b64u(iv), b64u(ciphertext), b64u(cipher.getAuthTag())].join('.');
}

/** Decrypts a compact ECDH-ES JWE with the recipient's private key; returns the header and the plaintext. */
export function decryptJwe(jwe: string, privateKey: KeyObject): { header: Record<string, unknown>; plaintext: string } {
  const [protectedHeader, encryptedKey, iv, ciphertext, tag] = jwe.split('.');
  if (protectedHeader === undefined || encryptedKey !== '' || iv === undefined || ciphertext === undefined || tag === undefined)
    throw new Error('not a compact ECDH-ES JWE');
  const header = JSON.parse(fromB64u(protectedHeader).toString('utf8')) as Record<string, unknown>;
  if (header.alg !== 'ECDH-ES') throw new Error(`unexpected alg ${String(header.alg)}`);
  const enc = header.enc as string;
  const keyBits = KEY_BITS[enc];
  if (keyBits === undefined) throw new Error(`unexpected enc ${enc}`);
  const z = diffieHellman({ privateKey, publicKey: createPublicKey({ key: header.epk as Record<string, string>, format: 'jwk' }) });
  const apu = typeof header.apu === 'string' ? fromB64u(header.apu) : new Uint8Array();
  const apv = typeof header.apv === 'string' ? fromB64u(header.apv) : new Uint8Array();
  const cek = concatKdf(z, enc, keyBits, apu, apv);
  const decipher = createDecipheriv(keyBits === 128 ? 'aes-128-gcm' : 'aes-256-gcm', cek, fromB64u(iv));
  decipher.setAAD(Buffer.from(protectedHeader, 'ascii'));
  decipher.setAuthTag(fromB64u(tag));
  const plaintext = Buffer.concat([decipher.update(fromB64u(ciphertext)), decipher.final()]).toString('utf8');
  return { header, plaintext };
}

/** RFC 7638 thumbprint of a P-256 or Ed25519 public JWK, written here from the RFC. */
export function jwkThumbprint(jwk: PublicJwk): string {
  const members = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

/** A DPoP proof (RFC 9449 §4.2) for `key`: `htm` POST, a fresh `jti`, and `ath` when a token is given. */
export function dpopProof(
  key: WalletKey,
  htu: string,
  options: { accessToken?: string; nonce?: string; iat?: number; jti?: string; header?: Record<string, unknown>; payload?: Record<string, unknown> } = {},
): string {
  return signJwt(
    key,
    { typ: 'dpop+jwt', jwk: key.publicJwk, ...options.header },
    {
      htm: 'POST',
      htu,
      iat: options.iat ?? Math.floor(Date.now() / 1000),
      jti: options.jti ?? randomBytes(12).toString('base64url'),
      ...(options.accessToken !== undefined ? { ath: createHash('sha256').update(options.accessToken).digest('base64url') } : {}),
      ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
      ...options.payload,
    },
  );
}

/**
 * A JwtProofVerifier for tests of the core, on node:crypto: signatures by a `jwk` header or a given
 * key, and `x5c` chains checked link by link against the roots. The real one is @vellum/crypto's.
 */
export function fakeJwtProofVerifier(): JwtProofVerifier {
  const publicJwkOf = (value: unknown): PublicJwk | undefined => {
    if (value === null || typeof value !== 'object') return undefined;
    const j = value as Record<string, unknown>;
    if ('d' in j) return undefined;
    if (j.kty === 'EC' && j.crv === 'P-256' && typeof j.x === 'string' && typeof j.y === 'string') return { kty: 'EC', crv: 'P-256', x: j.x, y: j.y };
    if (j.kty === 'OKP' && j.crv === 'Ed25519' && typeof j.x === 'string') return { kty: 'OKP', crv: 'Ed25519', x: j.x };
    return undefined;
  };
  const check = (
    jwt: string,
    key: KeyObject,
    algorithms: readonly string[],
  ): { header: Record<string, unknown>; payload: Record<string, unknown> } | string => {
    const parts = typeof jwt === 'string' ? jwt.split('.') : [];
    if (parts.length !== 3) return 'Not a compact JWT';
    try {
      const header = JSON.parse(fromB64u(parts[0] as string).toString('utf8')) as Record<string, unknown>;
      const payload = JSON.parse(fromB64u(parts[1] as string).toString('utf8')) as Record<string, unknown>;
      if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) return 'alg not accepted';
      const data = Buffer.from(`${parts[0]}.${parts[1]}`);
      const signature = fromB64u(parts[2] as string);
      const ok = header.alg === 'ES256' ? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature) : verify(null, data, key, signature);
      return ok ? { header, payload } : 'The signature does not verify';
    } catch {
      return 'The JWT could not be read';
    }
  };
  const result = (checked: ReturnType<typeof check>) =>
    typeof checked === 'string' ? { ok: false as const, reason: checked } : { ok: true as const, ...checked };
  return {
    async verifySelfSigned(jwt, algorithms) {
      const parts = typeof jwt === 'string' ? jwt.split('.') : [];
      let jwk: PublicJwk | undefined;
      try {
        jwk = publicJwkOf((JSON.parse(fromB64u(parts[0] ?? '').toString('utf8')) as Record<string, unknown>).jwk);
      } catch {
        jwk = undefined;
      }
      if (!jwk) return { ok: false, reason: 'No public jwk header' };
      const checked = check(jwt, createPublicKey({ key: { ...jwk }, format: 'jwk' }), algorithms);
      return typeof checked === 'string' ? { ok: false, reason: checked } : { ok: true, ...checked, jwk, thumbprint: jwkThumbprint(jwk) };
    },
    async verifyWithKey(jwt, jwk, algorithms) {
      const key = publicJwkOf(jwk);
      if (!key) return { ok: false, reason: 'Not a public P-256 or Ed25519 JWK' };
      return result(check(jwt, createPublicKey({ key: { ...key }, format: 'jwk' }), algorithms));
    },
    async verifyWithX5c(jwt, roots, algorithms, at) {
      try {
        const header = JSON.parse(fromB64u(jwt.split('.')[0] ?? '').toString('utf8')) as Record<string, unknown>;
        const chain = (header.x5c as string[]).map((b64) => new X509Certificate(Buffer.from(b64, 'base64')));
        const anchors = roots.map((pem) => new X509Certificate(pem));
        const valid = (c: X509Certificate) => new Date(c.validFrom) <= at && at <= new Date(c.validTo);
        for (let i = 0; i + 1 < chain.length; i++) {
          if (!(chain[i] as X509Certificate).verify((chain[i + 1] as X509Certificate).publicKey)) return { ok: false, reason: 'Broken chain' };
        }
        const last = chain[chain.length - 1] as X509Certificate;
        const anchor = anchors.find((r) => r.raw.equals(last.raw) || last.verify(r.publicKey));
        if (!anchor) return { ok: false, reason: 'The chain does not lead to a trusted root' };
        if (![...chain, anchor].every(valid)) return { ok: false, reason: 'A certificate is not valid now' };
        return result(check(jwt, (chain[0] as X509Certificate).publicKey, algorithms));
      } catch {
        return { ok: false, reason: 'The x5c chain could not be read' };
      }
    },
    thumbprint(jwk) {
      const key = publicJwkOf(jwk);
      return key && jwkThumbprint(key);
    },
  };
}
