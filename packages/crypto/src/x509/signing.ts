import { createHash, createPublicKey, webcrypto } from 'node:crypto';
import { DomainError, type KeyManager, type ManagedKey, type PublicJwk } from '@vellum/core';

/** Signs with ES256 (P-256, SHA-256) and returns IEEE P1363 `r‖s` (64 bytes), as KeyManager.sign does. */
export type Es256Sign = (data: Uint8Array) => Promise<Uint8Array>;

/** A P-256 key whose private half stays where it is (the KeyManager): its public JWK and a way to sign. */
export interface CertificateSigningKey {
  publicJwk: PublicJwk;
  sign: Es256Sign;
}

/** A key held by the KeyManager as a certificate signing key; every signature goes through the port. */
export function managedSigningKey(keys: KeyManager, key: ManagedKey): CertificateSigningKey {
  if (key.algorithm !== 'P-256') throw new DomainError('BadRequest', 'mDoc certificates are signed with P-256 keys');
  return { publicJwk: key.publicJwk, sign: (data) => keys.sign(key.tenantId, key.id, data) };
}

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** What @peculiar/x509 is told to sign with: ECDSA with SHA-256 (ecdsa-with-SHA256). */
export const ES256_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;

/**
 * A stand-in for a private CryptoKey that is never in this process. @peculiar/x509 only reads its
 * `algorithm` (to name the signature algorithm and to turn r‖s into DER) and hands it back to
 * `subtle.sign`, which {@link signingCrypto} answers through the KeyManager.
 */
export function heldPrivateKey(): webcrypto.CryptoKey {
  return { type: 'private', algorithm: EC_P256, extractable: false, usages: ['sign'] } as unknown as webcrypto.CryptoKey;
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function toBytes(data: webcrypto.BufferSource): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * A WebCrypto for @peculiar/x509's generators: Node's own, except that signing with `privateKey`
 * (the stand-in) calls `sign`. WebCrypto's ECDSA signature is r‖s, which is exactly what
 * KeyManager.sign returns, so @peculiar/x509 encodes it into the DER `ECDSA-Sig-Value` as usual.
 * Signing with any other key is refused, so nothing can slip past the KeyManager.
 */
export function signingCrypto(sign: Es256Sign, privateKey: webcrypto.CryptoKey): webcrypto.Crypto {
  const subtle = webcrypto.subtle;
  const bridged = {
    async sign(_algorithm: unknown, key: webcrypto.CryptoKey, data: webcrypto.BufferSource): Promise<ArrayBuffer> {
      if (key !== privateKey) throw new Error('Only the held key can sign here');
      const signature = await sign(toBytes(data));
      if (signature.length !== 64) throw new DomainError('InternalServerError', 'The signing key did not return an ES256 signature');
      return toArrayBuffer(signature);
    },
    verify: subtle.verify.bind(subtle),
    digest: subtle.digest.bind(subtle),
    importKey: subtle.importKey.bind(subtle),
    exportKey: subtle.exportKey.bind(subtle),
  };
  return {
    subtle: bridged,
    getRandomValues: webcrypto.getRandomValues.bind(webcrypto),
    randomUUID: webcrypto.randomUUID.bind(webcrypto),
  } as unknown as webcrypto.Crypto;
}

/** Checks a JWK is a P-256 public key and returns its SubjectPublicKeyInfo (DER). */
export function p256Spki(jwk: PublicJwk, param: string): Uint8Array {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw new DomainError('BadRequest', 'Validation Error', {
      details: [{ msg: 'Expected an EC P-256 public key', param, location: 'body', value: { kty: jwk.kty, crv: jwk.crv } }],
    });
  }
  try {
    return new Uint8Array(createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, format: 'jwk' }).export({ type: 'spki', format: 'der' }));
  } catch (cause) {
    throw new DomainError('BadRequest', 'Validation Error', { cause, details: [{ msg: 'Not a point on P-256', param, location: 'body' }] });
  }
}

/**
 * The subject key identifier of RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits,
 * which for P-256 is the uncompressed point 04‖x‖y.
 */
export function keyIdentifier(jwk: PublicJwk): string {
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y ?? '', 'base64url')]);
  return createHash('sha1').update(point).digest('hex');
}
