// OpenID4VP 1.0 §8.3 (direct_post.jwt) for presentation sessions: the per-session ephemeral
// ECDH-ES P-256 key and the decryption of the wallet's JWE, with jose; SHA-256 over raw bytes for
// the mDoc handover (node:crypto). The PresentationCrypto port of @vellum/core.

import { createHash } from 'node:crypto';
import type { PresentationCrypto } from '@vellum/core';
import { calculateJwkThumbprint, compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

const KEY_ALG = 'ECDH-ES';
/** A response is at most the API's 1 MB body limit. */
const MAX_JWE_LENGTH = 1024 * 1024;

/** The PresentationCrypto port: keys made fresh for each session, never reused. */
export function createPresentationCrypto(): PresentationCrypto {
  return {
    sha256: (bytes) => new Uint8Array(createHash('sha256').update(bytes).digest()),

    async generateKey() {
      const { publicKey, privateKey } = await generateKeyPair(KEY_ALG, { crv: 'P-256', extractable: true });
      const pub = await exportJWK(publicKey);
      const priv = await exportJWK(privateKey);
      const kid = await calculateJwkThumbprint(pub, 'sha256');
      return {
        publicJwk: { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y, kid, use: 'enc', alg: KEY_ALG },
        privateJwk: JSON.stringify({ kty: priv.kty, crv: priv.crv, x: priv.x, y: priv.y, d: priv.d }),
      };
    },

    async decrypt(jwe, privateJwk, encValues) {
      if (jwe.length > MAX_JWE_LENGTH || jwe.split('.').length !== 5) return { reason: 'Not a compact JWE' };
      let header: ReturnType<typeof decodeProtectedHeader>;
      try {
        header = decodeProtectedHeader(jwe);
      } catch {
        return { reason: 'Not a compact JWE' };
      }
      if (header.alg !== KEY_ALG) return { reason: `alg must be ${KEY_ALG}` };
      if (typeof header.enc !== 'string' || !encValues.includes(header.enc)) return { reason: `enc must be one of ${encValues.join(', ')}` };
      if (header.zip !== undefined) return { reason: 'Compressed responses are not accepted' };
      try {
        const key = await importJWK(JSON.parse(privateJwk) as JWK, KEY_ALG);
        const { plaintext } = await compactDecrypt(jwe, key, { keyManagementAlgorithms: [KEY_ALG], contentEncryptionAlgorithms: [...encValues] });
        const payload = JSON.parse(new TextDecoder().decode(plaintext)) as unknown;
        if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { reason: 'The payload is not a JSON object' };
        return { payload: payload as Record<string, unknown> };
      } catch {
        return { reason: 'It does not decrypt with this session’s key' };
      }
    },
  };
}
