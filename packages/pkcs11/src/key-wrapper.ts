// A wrapping key inside a PKCS#11 token (docs/key-custody.md "Envelope encryption"): an AES-256
// key made in the token, sensitive and never extractable, that wraps tenants' data keys with
// AES-GCM there. The data key goes in and out; the wrapping key never does.
//
// The wrapped form is `p11.<iv>.<ciphertext‖tag>`, base64url: a fresh random 96-bit IV per wrap
// (node:crypto's CSPRNG, not the token's, so that no token's generator is trusted for uniqueness),
// the associated data (the data key's tenant and id) as the GCM AAD, and a 128-bit tag.

import { randomBytes } from 'node:crypto';
import type { KeyWrapper } from '@vellum/core';
import type { Pkcs11Token } from './token.ts';

const ID_PREFIX = 'pkcs11:';
const FORM = 'p11';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]+$/;

export interface Pkcs11KeyWrapperOptions {
  token: Pkcs11Token;
  /** The AES key's CKA_LABEL in the token; the wrapper's id is `pkcs11:<label>`. */
  label: string;
}

/** A KeyWrapper on an AES key in a PKCS#11 token. */
export interface Pkcs11KeyWrapper extends KeyWrapper {
  /** The AES key's label in the token. */
  readonly label: string;
  /** Whether the key was made in the token when this wrapper was (false: it was found there). */
  readonly created: boolean;
}

/** The label of a PKCS#11 wrapping key's id (`pkcs11:<label>`); undefined for any other id. */
export function pkcs11KeyWrapperLabel(id: string): string | undefined {
  return id.startsWith(ID_PREFIX) && id.length > ID_PREFIX.length ? id.slice(ID_PREFIX.length) : undefined;
}

/** The wrapping key labelled `label`, made in the token when it has none. */
export async function createPkcs11KeyWrapper(options: Pkcs11KeyWrapperOptions): Promise<Pkcs11KeyWrapper> {
  const { token, label } = options;
  if (label.length === 0) throw new Error('A PKCS#11 wrapping key needs a label');
  const { created } = await token.ensureAesKey(label);
  return wrapperOn(token, label, created);
}

/**
 * The wrapping key of `id` (`pkcs11:<label>`) when the token holds it, without making it: how data
 * keys wrapped under an older label are unwrapped after the wrapping key was changed. Undefined for
 * an id that is not a PKCS#11 wrapping key's, or a label the token has no AES key for.
 */
export async function findPkcs11KeyWrapper(token: Pkcs11Token, id: string): Promise<Pkcs11KeyWrapper | undefined> {
  const label = pkcs11KeyWrapperLabel(id);
  if (label === undefined || !(await token.hasAesKey(label))) return undefined;
  return wrapperOn(token, label, false);
}

function wrapperOn(token: Pkcs11Token, label: string, created: boolean): Pkcs11KeyWrapper {
  return {
    id: `${ID_PREFIX}${label}`,
    label,
    created,
    async wrap(dataKey, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const sealed = await token.aesGcmEncrypt(label, iv, Buffer.from(associatedData, 'utf8'), dataKey);
      return `${FORM}.${iv.toString('base64url')}.${Buffer.from(sealed).toString('base64url')}`;
    },
    async unwrap(wrapped, associatedData) {
      const { iv, sealed } = parseWrapped(wrapped, label);
      return token.aesGcmDecrypt(label, iv, Buffer.from(associatedData, 'utf8'), sealed);
    },
  };
}

/** Decodes canonical unpadded base64url only: no padding, no other alphabet, no stray bits. */
function decode(part: string): Buffer | undefined {
  if (!B64URL.test(part)) return undefined;
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}

function parseWrapped(wrapped: string, label: string): { iv: Buffer; sealed: Buffer } {
  const malformed = (why: string) => new Error(`Not a data key wrapped by the PKCS#11 key "${label}" (p11.<iv>.<ciphertext>): ${why}`);
  if (typeof wrapped !== 'string') throw malformed('it is not a string');
  const parts = wrapped.split('.');
  if (parts.length !== 3) throw malformed(`it has ${parts.length} parts, not 3`);
  const [form, ivPart, sealedPart] = parts as [string, string, string];
  if (form !== FORM) throw malformed(`its form is not "${FORM}"`);
  const iv = decode(ivPart);
  if (!iv || iv.length !== IV_BYTES) throw malformed(`its IV is not ${IV_BYTES} bytes of base64url`);
  const sealed = decode(sealedPart);
  if (!sealed || sealed.length < TAG_BYTES) throw malformed(`its ciphertext is not base64url of at least the ${TAG_BYTES}-byte tag`);
  return { iv, sealed };
}
