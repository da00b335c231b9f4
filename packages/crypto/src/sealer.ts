import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';

/** Encrypts small secrets (private keys) at rest with the master key. */
export interface Sealer {
  /** Encrypts `plaintext`, binding it to `associatedData` (e.g. the record's name) so it cannot be moved. */
  seal(plaintext: Uint8Array, associatedData: string): string;
  /** Decrypts what `seal` produced with the same associated data; throws if the key or data do not match. */
  open(sealed: string, associatedData: string): Uint8Array;
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';
const B64URL = /^[A-Za-z0-9_-]*$/;

const MISMATCH = 'Cannot open sealed data: the master key does not match or the data is corrupt';

export interface SealerOptions {
  /**
   * Where each seal's 12-byte IV comes from: a CSPRNG, each byte used once. The server passes its
   * pooled Ids (a call of randomBytes cost about 16 µs in a busy server); node:crypto's randomBytes
   * by default.
   */
  random?: (n: number) => Uint8Array;
}

/** An AES-256-GCM sealer; the sealed form is `v1.<iv>.<ciphertext>.<tag>` in base64url. */
export function createSealer(masterKey: Uint8Array, options: SealerOptions = {}): Sealer {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== KEY_BYTES) {
    throw new Error(`The master key must be exactly ${KEY_BYTES} bytes`);
  }
  // A private copy (the caller may reuse or wipe its buffer), held as a KeyObject: node:crypto
  // checks a raw key's type on every cipher by trying it as a KeyObject first, which cost about
  // 24 µs per seal or open on Node 24 (docs/performance.md, "Where a flow's CPU goes").
  const key = createSecretKey(Buffer.from(masterKey));

  const random = options.random ?? ((n: number) => randomBytes(n));

  return {
    seal(plaintext, associatedData) {
      const iv = Buffer.from(random(IV_BYTES));
      if (iv.length !== IV_BYTES) throw new Error(`The sealer's random source gave ${iv.length} bytes for a ${IV_BYTES}-byte IV`);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv, ciphertext, tag].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },

    open(sealed, associatedData) {
      const parts = typeof sealed === 'string' ? sealed.split('.') : [];
      if (parts[0] !== VERSION) {
        throw new Error(parts.length === 4 ? `Cannot open sealed data: unknown format version ${JSON.stringify(parts[0])}` : MISMATCH);
      }
      if (parts.length !== 4 || !parts.every((p) => B64URL.test(p))) throw new Error(MISMATCH);
      const iv = Buffer.from(parts[1] as string, 'base64url');
      const ciphertext = Buffer.from(parts[2] as string, 'base64url');
      const tag = Buffer.from(parts[3] as string, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error(MISMATCH);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(associatedData, 'utf8'));
        decipher.setAuthTag(tag);
        const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
        return new Uint8Array(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength);
      } catch (cause) {
        throw new Error(MISMATCH, { cause });
      }
    },
  };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes VELLUM_MASTER_KEY (base64 of 32 bytes); the error never echoes the value, which is secret. */
export function parseMasterKey(base64: string): Uint8Array {
  const value = typeof base64 === 'string' ? base64.trim() : '';
  const hint = 'generate one with `openssl rand -base64 32`';
  if (value === '' || !BASE64.test(value)) {
    throw new Error(`VELLUM_MASTER_KEY must be base64 of exactly ${KEY_BYTES} bytes (${hint})`);
  }
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length !== KEY_BYTES) {
    throw new Error(`VELLUM_MASTER_KEY must be base64 of exactly ${KEY_BYTES} bytes, but it decodes to ${bytes.length} (${hint})`);
  }
  return new Uint8Array(bytes);
}
