// A PKCS#11 token, through pkcs11js (PeculiarVentures' binding of the Cryptoki C API): opened once
// per process, logged in once, with a small pool of sessions so that signatures may run on libuv's
// thread pool (C_SignAsync) without two of them sharing a session's operation state.
//
// Keys are token objects: CKA_TOKEN, the private half CKA_SENSITIVE and not CKA_EXTRACTABLE, so no
// call of this module or any other can read it out. Each key pair carries CKA_ID (the Vellum key id)
// and CKA_LABEL `vellum:<tenant>:<key>`, and is found by both: a key row moved to another tenant
// names a label the token does not have, and cannot sign there.
//
// Wrapping keys (key-wrapper.ts) are AES-256 secret keys, token objects found by CKA_LABEL alone,
// equally sensitive and never extractable; they encrypt and decrypt with AES-GCM inside the token.

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { KeyAlgorithm, PublicJwk } from '@vellum/core';
import type * as Pkcs11Module from 'pkcs11js';

type Handle = Buffer;
type Binding = typeof Pkcs11Module;
type Cryptoki = InstanceType<Binding['PKCS11']>;

// Cryptoki constants (PKCS#11 3.0) that pkcs11js 2.1 does not name.
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
const CKM_EDDSA = 0x1057;
const CKK_EC_EDWARDS = 0x40;
const CKR_USER_ALREADY_LOGGED_IN = 0x100;
const CKR_CRYPTOKI_ALREADY_INITIALIZED = 0x191;
const CKR_KEY_HANDLE_INVALID = 0x60;
const CKR_OBJECT_HANDLE_INVALID = 0x82;
// What a token answers when an AES-GCM tag does not verify: SoftHSM 2.6.1 says CKR_GENERAL_ERROR;
// PKCS#11 2.40 names CKR_ENCRYPTED_DATA_INVALID, 3.0 CKR_AEAD_DECRYPT_FAILED.
const CKR_GENERAL_ERROR = 0x05;
const CKR_AEAD_DECRYPT_FAILED = 0x35;
const CKR_ENCRYPTED_DATA_INVALID = 0x40;
const CKR_ENCRYPTED_DATA_LEN_RANGE = 0x41;
const GCM_MISMATCH = new Set([CKR_GENERAL_ERROR, CKR_AEAD_DECRYPT_FAILED, CKR_ENCRYPTED_DATA_INVALID, CKR_ENCRYPTED_DATA_LEN_RANGE]);
const GCM_IV_BYTES = 12;
const GCM_TAG_BYTES = 16;
const AES_256_BYTES = 32;

// CKA_EC_PARAMS: the DER of each curve's object identifier (RFC 5480 §2.1.1.1, RFC 8410 §3).
const P256_OID = Buffer.from('06082a8648ce3d030107', 'hex');
const ED25519_OID = Buffer.from('06032b6570', 'hex');

export interface Pkcs11TokenOptions {
  /** The token's PKCS#11 library (for SoftHSM on Debian: /usr/lib/softhsm/libsofthsm2.so). */
  module: string;
  /** The token's label; one of `tokenLabel` and `slot` is required. */
  tokenLabel?: string;
  /** The slot id the token is in, when it is not found by label. */
  slot?: number;
  /** The user PIN. */
  pin: string;
  /** Sessions kept open for signing at once (default 4). */
  sessions?: number;
  /** The algorithms keys may be made for, where an operator restricts them; default: all the token can. */
  algorithms?: readonly KeyAlgorithm[];
  /**
   * Whether signatures run on libuv's thread pool (C_SignAsync; the default) or on the calling
   * thread (C_Sign). The pool keeps a network HSM's milliseconds off the event loop; a token in the
   * machine (SoftHSM, an HSM card) signs in about 100 µs, less than the hand-off to the pool and back
   * costs a busy server (docs/performance.md, "PKCS#11 key custody").
   */
  threadPool?: boolean;
}

/** The private key's (or the AES key's) protection as the token reports it. */
export interface PrivateKeyProtection {
  sensitive: boolean;
  extractable: boolean;
  alwaysSensitive: boolean;
  neverExtractable: boolean;
  /** Whether asking for CKA_VALUE (the private key itself) was refused. */
  valueRefused: boolean;
}

export interface Pkcs11Token {
  /** The token's label as it reports it. */
  readonly label: string;
  /** Whether keys of `algorithm` may be made and used here (the token's mechanisms and the operator's list). */
  supports(algorithm: KeyAlgorithm): boolean;
  /** Makes a key pair inside the token and returns its public half. */
  generate(algorithm: KeyAlgorithm, keyId: string, label: string): Promise<PublicJwk>;
  /** Signs with the key: r‖s for P-256 (ECDSA over SHA-256), 64 bytes for Ed25519 (EdDSA). Throws when the token lacks it. */
  sign(keyId: string, label: string, algorithm: KeyAlgorithm, data: Uint8Array): Promise<Uint8Array>;
  /** Destroys both halves; false when the token has neither. */
  destroy(keyId: string, label: string): Promise<boolean>;
  /** The private half's protection attributes, or undefined when the token has no such key. */
  protectionOf(keyId: string, label: string): Promise<PrivateKeyProtection | undefined>;
  /**
   * Finds the AES key labelled `label`, or makes one inside the token: AES-256, sensitive, never
   * extractable, for encryption and decryption only. `created` says which.
   */
  ensureAesKey(label: string): Promise<{ created: boolean }>;
  /** Whether the token holds an AES key labelled `label` (it makes none). */
  hasAesKey(label: string): Promise<boolean>;
  /** AES-256-GCM inside the token with the key labelled `label`: ciphertext‖tag (16 bytes). `iv` is 12 bytes, never reused with the key. */
  aesGcmEncrypt(label: string, iv: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array>;
  /** Opens what `aesGcmEncrypt` made; throws Pkcs11TokenError when the key, IV, AAD or data do not match. */
  aesGcmDecrypt(label: string, iv: Uint8Array, aad: Uint8Array, ciphertextAndTag: Uint8Array): Promise<Uint8Array>;
  /** The AES key's protection attributes, or undefined when the token has no such key. */
  secretKeyProtection(label: string): Promise<PrivateKeyProtection | undefined>;
  /** Closes the sessions; the library is finalized when its last token in this process closes. */
  close(): Promise<void>;
}

/** Thrown when the token cannot be opened or used; its message names the cause, never the PIN. */
export class Pkcs11TokenError extends Error {
  override name = 'Pkcs11TokenError';
}

const require = createRequire(import.meta.url);

function loadBinding(): Binding {
  try {
    return require('pkcs11js') as Binding;
  } catch (cause) {
    throw new Pkcs11TokenError(
      'PKCS#11 key custody needs the pkcs11js binding, an optional dependency built with node-gyp on install; it is not installed here (docs/key-custody.md)',
      { cause },
    );
  }
}

// One loaded and initialized library per module path in this process, shared by its tokens.
const libraries = new Map<string, { cryptoki: Cryptoki; binding: Binding; users: number; initializedHere: boolean }>();

function openLibrary(module: string): { cryptoki: Cryptoki; binding: Binding } {
  const open = libraries.get(module);
  if (open) {
    open.users++;
    return open;
  }
  const binding = loadBinding();
  const cryptoki = new binding.PKCS11();
  try {
    cryptoki.load(module);
  } catch (cause) {
    throw new Pkcs11TokenError(`The PKCS#11 library ${module} could not be loaded`, { cause });
  }
  let initializedHere = true;
  try {
    cryptoki.C_Initialize({ flags: binding.CKF_OS_LOCKING_OK });
  } catch (error) {
    if (codeOf(error) !== CKR_CRYPTOKI_ALREADY_INITIALIZED) throw new Pkcs11TokenError(`C_Initialize failed for ${module}`, { cause: error });
    initializedHere = false;
  }
  const entry = { cryptoki, binding, users: 1, initializedHere };
  libraries.set(module, entry);
  return entry;
}

function closeLibrary(module: string): void {
  const open = libraries.get(module);
  if (!open || --open.users > 0) return;
  libraries.delete(module);
  if (open.initializedHere) open.cryptoki.C_Finalize();
  open.cryptoki.close();
}

const codeOf = (error: unknown): number | undefined =>
  typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : undefined;

const slotId = (slot: Handle): bigint => (slot.length >= 8 ? slot.readBigUInt64LE(0) : BigInt(slot.readUInt32LE(0)));

/** The point's bytes from CKA_EC_POINT: a DER OCTET STRING around them, or (some tokens) the bare point. */
function ecPoint(value: Buffer, size: number): Buffer {
  if (value.length === size) return value;
  // A short-form DER OCTET STRING: tag 0x04, one length byte.
  if (value.length === size + 2 && value[0] === 0x04 && value[1] === size) return value.subarray(2);
  throw new Pkcs11TokenError(`The token returned an EC point of ${value.length} bytes; expected ${size}`);
}

const bool = (value: Buffer | undefined) => value !== undefined && value.length > 0 && value[0] !== 0;

/** Opens the token: finds its slot, opens the sessions and logs in once for all of them. */
export function openPkcs11Token(options: Pkcs11TokenOptions): Pkcs11Token {
  if (options.tokenLabel === undefined && options.slot === undefined) throw new Pkcs11TokenError('Name the PKCS#11 token by its label or its slot');
  const { cryptoki, binding: b } = openLibrary(options.module);
  const sessions: Handle[] = [];
  try {
    const slots = cryptoki.C_GetSlotList(true);
    const slot = slots.find((s) =>
      options.tokenLabel !== undefined ? cryptoki.C_GetTokenInfo(s).label.trim() === options.tokenLabel : slotId(s) === BigInt(options.slot as number),
    );
    if (!slot) {
      throw new Pkcs11TokenError(
        options.tokenLabel !== undefined ? `No PKCS#11 token is labelled "${options.tokenLabel}"` : `No PKCS#11 token is in slot ${options.slot}`,
      );
    }
    const label = cryptoki.C_GetTokenInfo(slot).label.trim();
    const mechanisms = new Set(cryptoki.C_GetMechanismList(slot));
    const can: Record<KeyAlgorithm, boolean> = {
      'P-256': mechanisms.has(b.CKM_EC_KEY_PAIR_GEN) && mechanisms.has(b.CKM_ECDSA),
      Ed25519: mechanisms.has(CKM_EC_EDWARDS_KEY_PAIR_GEN) && mechanisms.has(CKM_EDDSA),
    };
    const allowed = (algorithm: KeyAlgorithm) => can[algorithm] && (options.algorithms === undefined || options.algorithms.includes(algorithm));
    const aesGcm = mechanisms.has(b.CKM_AES_KEY_GEN) && mechanisms.has(b.CKM_AES_GCM);
    const size = Math.max(1, options.sessions ?? 4);
    for (let i = 0; i < size; i++) sessions.push(cryptoki.C_OpenSession(slot, b.CKF_RW_SESSION | b.CKF_SERIAL_SESSION));
    try {
      cryptoki.C_Login(sessions[0] as Handle, b.CKU_USER, options.pin);
    } catch (error) {
      if (codeOf(error) !== CKR_USER_ALREADY_LOGGED_IN) {
        throw new Pkcs11TokenError(`Login to the PKCS#11 token "${label}" failed (${(error as Error).message.split(':')[0]})`);
      }
    }
    return tokenOn(cryptoki, b, { label, sessions, allowed, aesGcm, threadPool: options.threadPool ?? true }, () => closeLibrary(options.module));
  } catch (error) {
    for (const session of sessions) cryptoki.C_CloseSession(session);
    closeLibrary(options.module);
    throw error instanceof Pkcs11TokenError ? error : new Pkcs11TokenError('The PKCS#11 token could not be opened', { cause: error });
  }
}

interface OpenedToken {
  label: string;
  sessions: Handle[];
  allowed: (algorithm: KeyAlgorithm) => boolean;
  /** Whether the token can make AES keys and use AES-GCM. */
  aesGcm: boolean;
  threadPool: boolean;
}

function tokenOn(cryptoki: Cryptoki, b: Binding, opened: OpenedToken, release: () => void): Pkcs11Token {
  const { label, sessions, allowed, aesGcm, threadPool } = opened;
  // The session pool: a signature takes a session for its C_SignInit and C_SignAsync, and gives it back.
  const free = [...sessions];
  const waiting: Array<(session: Handle) => void> = [];
  const acquire = (): Promise<Handle> => {
    const session = free.pop();
    return session ? Promise.resolve(session) : new Promise((resolve) => waiting.push(resolve));
  };
  const giveBack = (session: Handle) => {
    const next = waiting.shift();
    if (next) next(session);
    else free.push(session);
  };
  // Object handles stay valid for the application while the objects exist: found once per key.
  const handles = new Map<string, Handle>();
  let closed = false;
  const anySession = () => {
    if (closed) throw new Pkcs11TokenError('The PKCS#11 token is closed');
    return sessions[0] as Handle;
  };

  const find = (session: Handle, keyId: string, keyLabel: string, objectClass: number): Handle[] => {
    cryptoki.C_FindObjectsInit(session, [
      { type: b.CKA_CLASS, value: objectClass },
      { type: b.CKA_ID, value: Buffer.from(keyId, 'utf8') },
      { type: b.CKA_LABEL, value: keyLabel },
    ]);
    try {
      return cryptoki.C_FindObjects(session, 4);
    } finally {
      cryptoki.C_FindObjectsFinal(session);
    }
  };
  const privateHandle = (session: Handle, keyId: string, keyLabel: string): Handle | undefined => {
    const cacheKey = `${keyLabel}`;
    const known = handles.get(cacheKey);
    if (known) return known;
    const found = find(session, keyId, keyLabel, b.CKO_PRIVATE_KEY)[0];
    if (found) handles.set(cacheKey, found);
    return found;
  };

  // A session of the pool for one operation, given back whatever happens.
  const withSession = async <T>(use: (session: Handle) => T | Promise<T>): Promise<T> => {
    if (closed) throw new Pkcs11TokenError('The PKCS#11 token is closed');
    const session = await acquire();
    try {
      if (closed) throw new Pkcs11TokenError('The PKCS#11 token is closed');
      return await use(session);
    } finally {
      giveBack(session);
    }
  };

  // AES keys are found by label alone. Two servers that make the same label's key at once (both
  // search, find nothing, generate) leave two keys with one label: every handle found is kept, and
  // decryption tries each, so that what either server wrapped stays readable (aesGcmDecrypt).
  const secretHandles = new Map<string, Handle[]>();
  const findSecret = (session: Handle, keyLabel: string): Handle[] => {
    cryptoki.C_FindObjectsInit(session, [
      { type: b.CKA_CLASS, value: b.CKO_SECRET_KEY },
      { type: b.CKA_KEY_TYPE, value: b.CKK_AES },
      { type: b.CKA_LABEL, value: keyLabel },
    ]);
    try {
      return cryptoki.C_FindObjects(session, 8);
    } finally {
      cryptoki.C_FindObjectsFinal(session);
    }
  };
  /** The label's AES key handles: the cached ones, or (when `fresh` or none is cached) a search of the token. */
  const secretKeys = (session: Handle, keyLabel: string, fresh: boolean): Handle[] => {
    const known = fresh ? undefined : secretHandles.get(keyLabel);
    if (known) return known;
    const found = findSecret(session, keyLabel);
    if (found.length > 0) secretHandles.set(keyLabel, found);
    else secretHandles.delete(keyLabel);
    return found;
  };
  const noAesKey = (keyLabel: string) => new Pkcs11TokenError(`The PKCS#11 token "${label}" holds no AES key labelled "${keyLabel}"`);
  const requireAesGcm = () => {
    if (!aesGcm) throw new Pkcs11TokenError(`The PKCS#11 token "${label}" cannot make AES keys or use AES-GCM (CKM_AES_KEY_GEN, CKM_AES_GCM)`);
  };
  // CKM_AES_GCM's parameters. pkcs11js 2.1.7 offers three kinds for them (CK_PARAMS_AES_GCM,
  // CK_PARAMS_AES_GCM_v240, CK_PARAMS_GCM); with SoftHSM 2.6.1 all three work, and give the same
  // ciphertext‖tag as node:crypto's aes-256-gcm (tried with an extractable key). All three pass a
  // struct of the v2.40 layout (pIv, ulIvLen, ulIvBits, pAAD, ulAADLen, ulTagBits; pkcs11js's own
  // headers give the deprecated CK_AES_GCM_PARAMS that layout too), but CK_PARAMS_AES_GCM leaves
  // ulIvBits unset (malloc'd memory): SoftHSM evidently ignores it, a token that checks it may not.
  // CK_PARAMS_AES_GCM_v240 (the same code as CK_PARAMS_GCM) sets every field, so it is used here.
  // SoftHSM also takes an IV of any length, even none: the length is checked here.
  const gcm = (iv: Uint8Array, aad: Uint8Array) => {
    if (iv.length !== GCM_IV_BYTES) throw new Pkcs11TokenError(`AES-GCM takes a ${GCM_IV_BYTES}-byte IV here, not ${iv.length} bytes`);
    return {
      mechanism: b.CKM_AES_GCM,
      parameter: { type: b.CK_PARAMS_AES_GCM_v240, iv: Buffer.from(iv), ivBits: GCM_IV_BYTES * 8, aad: Buffer.from(aad), tagBits: GCM_TAG_BYTES * 8 },
    };
  };
  const handleGone = (error: unknown) => {
    const code = codeOf(error);
    return code === CKR_KEY_HANDLE_INVALID || code === CKR_OBJECT_HANDLE_INVALID;
  };
  const cryptokiFailure = (what: string, error: unknown) =>
    error instanceof Pkcs11TokenError ? error : new Pkcs11TokenError(`${what} (${String((error as Error).message).split(/[:\n]/)[0]})`, { cause: error });

  const protectionOfHandle = (session: Handle, handle: Handle): PrivateKeyProtection => {
    const [sensitive, extractable, alwaysSensitive, neverExtractable] = cryptoki.C_GetAttributeValue(session, handle, [
      { type: b.CKA_SENSITIVE },
      { type: b.CKA_EXTRACTABLE },
      { type: b.CKA_ALWAYS_SENSITIVE },
      { type: b.CKA_NEVER_EXTRACTABLE },
    ]);
    let valueRefused = false;
    try {
      cryptoki.C_GetAttributeValue(session, handle, [{ type: b.CKA_VALUE }]);
    } catch {
      valueRefused = true;
    }
    return {
      sensitive: bool(sensitive?.value as Buffer | undefined),
      extractable: bool(extractable?.value as Buffer | undefined),
      alwaysSensitive: bool(alwaysSensitive?.value as Buffer | undefined),
      neverExtractable: bool(neverExtractable?.value as Buffer | undefined),
      valueRefused,
    };
  };

  return {
    label,
    supports: allowed,

    async generate(algorithm, keyId, keyLabel) {
      if (!allowed(algorithm)) throw new Pkcs11TokenError(`The PKCS#11 token "${label}" is not set up to make ${algorithm} keys`);
      const session = anySession();
      // SoftHSM's file store re-reads the token only when its generation counter moved since it
      // last looked, and making an object takes in whatever the counter says: a process that makes
      // a key without looking first would never see the keys other processes made before it. A
      // search first lets it look (docs/key-custody.md, "How a key lives in the token").
      find(session, keyId, keyLabel, b.CKO_PRIVATE_KEY);
      const ed = algorithm === 'Ed25519';
      const common = [
        { type: b.CKA_TOKEN, value: true },
        { type: b.CKA_ID, value: Buffer.from(keyId, 'utf8') },
        { type: b.CKA_LABEL, value: keyLabel },
        { type: b.CKA_KEY_TYPE, value: ed ? CKK_EC_EDWARDS : b.CKK_EC },
      ];
      const pair = cryptoki.C_GenerateKeyPair(
        session,
        { mechanism: ed ? CKM_EC_EDWARDS_KEY_PAIR_GEN : b.CKM_EC_KEY_PAIR_GEN },
        [
          ...common,
          { type: b.CKA_CLASS, value: b.CKO_PUBLIC_KEY },
          { type: b.CKA_PRIVATE, value: false },
          { type: b.CKA_VERIFY, value: true },
          { type: b.CKA_EC_PARAMS, value: ed ? ED25519_OID : P256_OID },
        ],
        [
          ...common,
          { type: b.CKA_CLASS, value: b.CKO_PRIVATE_KEY },
          { type: b.CKA_PRIVATE, value: true },
          { type: b.CKA_SENSITIVE, value: true },
          { type: b.CKA_EXTRACTABLE, value: false },
          { type: b.CKA_SIGN, value: true },
        ],
      );
      const [point] = cryptoki.C_GetAttributeValue(session, pair.publicKey, [{ type: b.CKA_EC_POINT }]);
      const bytes = point?.value as Buffer | undefined;
      if (!bytes) throw new Pkcs11TokenError('The token gave no public point for the new key');
      handles.set(keyLabel, pair.privateKey);
      if (ed) return { kty: 'OKP', crv: 'Ed25519', x: ecPoint(bytes, 32).toString('base64url') };
      const raw = ecPoint(bytes, 65);
      if (raw[0] !== 0x04) throw new Pkcs11TokenError('The token gave a compressed P-256 point');
      return { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') };
    },

    async sign(keyId, keyLabel, algorithm, data) {
      const session = await acquire();
      try {
        // ECDSA signs a digest: SHA-256 here, so that the token gets 32 bytes whatever was signed.
        const input = algorithm === 'Ed25519' ? Buffer.from(data) : createHash('sha256').update(data).digest();
        const mechanism = { mechanism: algorithm === 'Ed25519' ? CKM_EDDSA : b.CKM_ECDSA };
        for (let attempt = 0; ; attempt++) {
          if (closed) throw new Pkcs11TokenError('The PKCS#11 token is closed');
          const handle = privateHandle(session, keyId, keyLabel);
          if (!handle) throw new Pkcs11TokenError(`The PKCS#11 token "${label}" does not hold the key ${keyId}`);
          try {
            cryptoki.C_SignInit(session, mechanism, handle);
          } catch (error) {
            // Destroyed by another process since it was found: look it up once more.
            const code = codeOf(error);
            handles.delete(keyLabel);
            if (attempt === 0 && (code === CKR_KEY_HANDLE_INVALID || code === CKR_OBJECT_HANDLE_INVALID)) continue;
            throw error;
          }
          const out = Buffer.alloc(128);
          const signature = threadPool ? await cryptoki.C_SignAsync(session, input, out) : cryptoki.C_Sign(session, input, out);
          return new Uint8Array(signature);
        }
      } finally {
        giveBack(session);
      }
    },

    async destroy(keyId, keyLabel) {
      const session = anySession();
      handles.delete(keyLabel);
      const objects = [...find(session, keyId, keyLabel, b.CKO_PRIVATE_KEY), ...find(session, keyId, keyLabel, b.CKO_PUBLIC_KEY)];
      for (const object of objects) cryptoki.C_DestroyObject(session, object);
      return objects.length > 0;
    },

    async protectionOf(keyId, keyLabel) {
      const session = anySession();
      const handle = find(session, keyId, keyLabel, b.CKO_PRIVATE_KEY)[0];
      return handle && protectionOfHandle(session, handle);
    },

    async ensureAesKey(keyLabel) {
      requireAesGcm();
      return withSession((session) => {
        // A search first, as generate does: it also lets SoftHSM take in the keys other processes made.
        if (secretKeys(session, keyLabel, true).length > 0) return { created: false };
        let handle: Handle;
        try {
          handle = cryptoki.C_GenerateKey(session, { mechanism: b.CKM_AES_KEY_GEN }, [
            { type: b.CKA_CLASS, value: b.CKO_SECRET_KEY },
            { type: b.CKA_KEY_TYPE, value: b.CKK_AES },
            { type: b.CKA_VALUE_LEN, value: AES_256_BYTES },
            { type: b.CKA_LABEL, value: keyLabel },
            { type: b.CKA_TOKEN, value: true },
            { type: b.CKA_PRIVATE, value: true },
            { type: b.CKA_SENSITIVE, value: true },
            { type: b.CKA_EXTRACTABLE, value: false },
            { type: b.CKA_ENCRYPT, value: true },
            { type: b.CKA_DECRYPT, value: true },
            { type: b.CKA_WRAP, value: false },
            { type: b.CKA_UNWRAP, value: false },
            { type: b.CKA_SIGN, value: false },
            { type: b.CKA_VERIFY, value: false },
            { type: b.CKA_DERIVE, value: false },
          ]);
        } catch (error) {
          throw cryptokiFailure(`The PKCS#11 token "${label}" could not make the AES key "${keyLabel}"`, error);
        }
        secretHandles.set(keyLabel, [handle]);
        return { created: true };
      });
    },

    async hasAesKey(keyLabel) {
      return withSession((session) => secretKeys(session, keyLabel, true).length > 0);
    },

    async aesGcmEncrypt(keyLabel, iv, aad, plaintext) {
      const mechanism = gcm(iv, aad);
      return withSession(async (session) => {
        for (let attempt = 0; ; attempt++) {
          // The first of the label's keys; a handle gone (destroyed by another process) is looked up once more.
          const [handle] = secretKeys(session, keyLabel, attempt > 0);
          if (!handle) throw noAesKey(keyLabel);
          try {
            cryptoki.C_EncryptInit(session, mechanism, handle);
          } catch (error) {
            if (attempt === 0 && handleGone(error)) continue;
            throw cryptokiFailure(`AES-GCM encryption with the key "${keyLabel}" could not start`, error);
          }
          // The output is sized for the tag: CKR_BUFFER_TOO_SMALL would leave the operation active in the session.
          const out = Buffer.alloc(plaintext.length + GCM_TAG_BYTES);
          try {
            const input = Buffer.from(plaintext);
            return new Uint8Array(threadPool ? await cryptoki.C_EncryptAsync(session, input, out) : cryptoki.C_Encrypt(session, input, out));
          } catch (error) {
            throw cryptokiFailure(`AES-GCM encryption with the key "${keyLabel}" failed`, error);
          }
        }
      });
    },

    async aesGcmDecrypt(keyLabel, iv, aad, ciphertextAndTag) {
      const mechanism = gcm(iv, aad);
      if (ciphertextAndTag.length < GCM_TAG_BYTES) {
        throw new Pkcs11TokenError(`AES-GCM data is at least its ${GCM_TAG_BYTES}-byte tag; this is ${ciphertextAndTag.length} bytes`);
      }
      const input = Buffer.from(ciphertextAndTag);
      return withSession(async (session) => {
        // Each of the label's keys in turn (one, unless two servers made it at once), then, when none
        // opens it, the token searched again for keys this process has not seen.
        const tried = new Set<string>();
        let opened = 0;
        for (const fresh of [false, true]) {
          for (const handle of secretKeys(session, keyLabel, fresh)) {
            const id = handle.toString('hex');
            if (tried.has(id)) continue;
            tried.add(id);
            try {
              cryptoki.C_DecryptInit(session, mechanism, handle);
            } catch (error) {
              if (handleGone(error)) continue;
              throw cryptokiFailure(`AES-GCM decryption with the key "${keyLabel}" could not start`, error);
            }
            opened++;
            const out = Buffer.alloc(input.length);
            try {
              return new Uint8Array(threadPool ? await cryptoki.C_DecryptAsync(session, input, out) : cryptoki.C_Decrypt(session, input, out));
            } catch (error) {
              if (!GCM_MISMATCH.has(codeOf(error) ?? -1)) throw cryptokiFailure(`AES-GCM decryption with the key "${keyLabel}" failed`, error);
            }
          }
        }
        if (opened === 0) throw noAesKey(keyLabel);
        throw new Pkcs11TokenError(
          `AES-GCM decryption with the key "${keyLabel}" failed: the associated data does not match, or the data is corrupt or not encrypted under this key`,
        );
      });
    },

    async secretKeyProtection(keyLabel) {
      return withSession((session) => {
        const [handle] = secretKeys(session, keyLabel, true);
        return handle && protectionOfHandle(session, handle);
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      // Signatures under way keep their sessions until they finish; the rest close now.
      for (const session of sessions) {
        try {
          cryptoki.C_CloseSession(session);
        } catch {
          // Already gone with the library: nothing to close.
        }
      }
      release();
    },
  };
}
