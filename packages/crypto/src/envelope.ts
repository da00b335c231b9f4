// Envelope encryption of tenants' software keys (docs/key-custody.md "Envelope encryption"): each
// tenant's private keys are sealed under its own 256-bit data key, and the data key is kept only
// wrapped by a wrapping key (the master key, or an AES key inside a PKCS#11 token). Changing the
// wrapping key re-wraps one small row per tenant, never the keys sealed under the data keys; a data
// key may also be encrypted to an offline recovery key, the way back when the wrapping key is lost.

import {
  constants,
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  type KeyObject,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
} from 'node:crypto';
import type { Clock, DataKeyRecord, DataKeyRepository, Ids, KeyWrapper } from '@vellum/core';
import { createSealer, type SealerOptions } from './sealer.ts';
import { sharedLoads } from './shared-loads.ts';

const DATA_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The sealed form under a data key: `v2.<data key id>.<iv>.<ciphertext>.<tag>`, base64url. */
const VERSION = 'v2';
const B64URL = /^[A-Za-z0-9_-]*$/;
const DATA_KEY_ID = /^[A-Za-z0-9-]{1,64}$/;
const MISMATCH = 'Cannot open sealed data: the data key does not match or the data is corrupt';

/** What a data key's wrapping (and its recovery copy) is bound to: its tenant and id. */
const dataKeyContext = (tenantId: string, id: string) => `vellum-data-key:${tenantId}:${id}`;

/** A short, stable name for the master key, safe to store and show (it reveals nothing of the key). */
export function masterKeyFingerprint(masterKey: Uint8Array): string {
  return createHash('sha256').update('vellum-master-key-fingerprint:').update(masterKey).digest('hex').slice(0, 16);
}

/** The master key as a wrapping key: AES-256-GCM, as the master key seals everything else. */
export function createMasterKeyWrapper(masterKey: Uint8Array, options: SealerOptions = {}): KeyWrapper {
  const sealer = createSealer(masterKey, options);
  return {
    id: `master:${masterKeyFingerprint(masterKey)}`,
    async wrap(dataKey, associatedData) {
      return sealer.seal(dataKey, associatedData);
    },
    async unwrap(wrapped, associatedData) {
      return sealer.open(wrapped, associatedData);
    },
  };
}

/**
 * The platform's recovery key (docs/key-custody.md "Recovery"): an RSA public key, of at least 3072
 * bits, whose private half is kept offline. Every data key is also encrypted to it (RSA-OAEP with
 * SHA-256, the OAEP label binding it to its tenant and id), so that losing the wrapping key (a lost
 * token) does not lose the tenants' keys.
 */
export interface RecoveryKey {
  /** `rsa:<fingerprint of the public key>`. */
  readonly id: string;
  encrypt(dataKey: Uint8Array, context: string): string;
}

const RECOVERY_FORM = 'rsa-oaep-256';
const MIN_RSA_BITS = 3072;

/** Reads the recovery public key (PEM); refuses anything but RSA of 3072 bits or more. */
export function createRecoveryKey(publicKeyPem: string): RecoveryKey {
  let key: KeyObject;
  try {
    key = createPublicKey(publicKeyPem);
  } catch (cause) {
    throw new Error('The recovery key is not a PEM public key', { cause });
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (key.asymmetricKeyType !== 'rsa' || bits < MIN_RSA_BITS) {
    throw new Error(`The recovery key must be an RSA public key of at least ${MIN_RSA_BITS} bits`);
  }
  const spki = key.export({ format: 'der', type: 'spki' });
  const id = `rsa:${createHash('sha256').update(spki).digest('hex').slice(0, 16)}`;
  return {
    id,
    encrypt(dataKey, context) {
      const encrypted = publicEncrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256', oaepLabel: Buffer.from(context, 'utf8') }, dataKey);
      return `${RECOVERY_FORM}.${encrypted.toString('base64url')}`;
    },
  };
}

/** Decrypts a data key's recovery copy with the recovery private key (PEM); throws when they do not match. */
export function openRecoveryCopy(privateKeyPem: string, record: DataKeyRecord): Uint8Array {
  const [form, body, ...rest] = (record.recoveryWrapped ?? '').split('.');
  if (form !== RECOVERY_FORM || body === undefined || rest.length > 0 || !B64URL.test(body)) {
    throw new Error(`The data key of tenant ${record.tenantId} has no recovery copy`);
  }
  const key = createPrivateKey(privateKeyPem);
  const plain = privateDecrypt(
    { key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256', oaepLabel: Buffer.from(dataKeyContext(record.tenantId, record.id), 'utf8') },
    Buffer.from(body, 'base64url'),
  );
  if (plain.length !== DATA_KEY_BYTES) throw new Error(`The recovery copy of tenant ${record.tenantId}'s data key is not a data key`);
  return new Uint8Array(plain);
}

/** The wrapping keys a server has: the one that wraps new data keys, and how to find older ones. */
export interface WrappingKeys {
  current: KeyWrapper;
  /** The wrapping key named `id`, when this server has it (the master key, a label in its token). */
  find(id: string): KeyWrapper | undefined | Promise<KeyWrapper | undefined>;
}

export interface EnvelopeSealerOptions {
  dataKeys: DataKeyRepository;
  wrapping: WrappingKeys;
  /** When set, every data key is also encrypted to it. */
  recovery?: RecoveryKey;
  ids: Pick<Ids, 'uuid'>;
  clock: Clock;
  /** Where IVs and new data keys come from: a CSPRNG (node:crypto's randomBytes by default). */
  random?: (n: number) => Uint8Array;
}

/** The result of one pass of re-wrapping (or recovery) over the data keys. */
export interface RewrapReport {
  /** Data keys written anew. */
  rewrapped: number;
  /** Data keys that could not be, with why (never any key material). */
  failed: Array<{ tenantId: string; reason: string }>;
  /** Whether the pass stopped at its limit, so that another may find more. */
  more: boolean;
}

/** Seals tenants' secrets under their data keys, and keeps the data keys' wrapping up to date. */
export interface EnvelopeSealer {
  /** The wrapping key new data keys are wrapped under. */
  readonly wrappingKeyId: string;
  /** Seals `plaintext` under the tenant's data key (made on first use), bound to `associatedData`. */
  seal(tenantId: string, plaintext: Uint8Array, associatedData: string): Promise<string>;
  /** Opens what `seal` made for this tenant with the same associated data; throws when it cannot. */
  open(tenantId: string, sealed: string, associatedData: string): Promise<Uint8Array>;
  /**
   * Re-wraps up to `limit` data keys that are not under the current wrapping key (or lack a copy
   * for the current recovery key). Each is unwrapped with the key it names and written back with a
   * compare-and-set, so that servers doing this at once write each row once.
   */
  rewrap(limit: number): Promise<RewrapReport>;
  /**
   * Like `rewrap`, for data keys whose wrapping key is lost: each is read from its recovery copy
   * with the recovery private key (PEM) and wrapped under the current wrapping key.
   */
  recover(recoveryPrivateKeyPem: string, limit: number): Promise<RewrapReport>;
}

/** Whether `sealed` is sealed under a data key (the envelope's form) rather than the master key. */
export const sealedUnderDataKey = (sealed: string): boolean => typeof sealed === 'string' && sealed.startsWith(`${VERSION}.`);

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Seals tenants' software keys under per-tenant data keys (docs/key-custody.md "Envelope encryption"). */
export function createEnvelopeSealer(options: EnvelopeSealerOptions): EnvelopeSealer {
  const { dataKeys, wrapping, recovery, ids, clock } = options;
  const random = options.random ?? ((n: number) => randomBytes(n));

  const currentWrapping = () => ({ wrappingKeyId: wrapping.current.id, ...(recovery ? { recoveryKeyId: recovery.id } : {}) });
  const isCurrent = (record: DataKeyRecord) => record.wrappingKeyId === wrapping.current.id && (recovery === undefined || record.recoveryKeyId === recovery.id);

  async function unwrap(record: DataKeyRecord): Promise<Uint8Array> {
    const wrapper = await wrapping.find(record.wrappingKeyId);
    if (!wrapper) {
      throw new Error(
        `The data key of tenant ${record.tenantId} is wrapped under ${record.wrappingKeyId}, which this server does not have (docs/key-custody.md "Envelope encryption")`,
      );
    }
    const raw = await wrapper.unwrap(record.wrapped, dataKeyContext(record.tenantId, record.id));
    if (raw.length !== DATA_KEY_BYTES) throw new Error(`The data key of tenant ${record.tenantId} does not unwrap to ${DATA_KEY_BYTES} bytes`);
    return raw;
  }

  /** Writes the data key wrapped by the current wrapping key (and recovery key); false when another server did first. */
  async function writeCurrent(record: DataKeyRecord, raw: Uint8Array): Promise<boolean> {
    const context = dataKeyContext(record.tenantId, record.id);
    return dataKeys.replaceWrapping(
      record.tenantId,
      record.id,
      { wrappingKeyId: record.wrappingKeyId, ...(record.recoveryKeyId !== undefined ? { recoveryKeyId: record.recoveryKeyId } : {}) },
      {
        wrapped: await wrapping.current.wrap(raw, context),
        wrappingKeyId: wrapping.current.id,
        ...(recovery ? { recoveryWrapped: recovery.encrypt(raw, context), recoveryKeyId: recovery.id } : {}),
        updatedAt: clock.now().toISOString(),
      },
    );
  }

  // Each tenant's data key, unwrapped once per process (dataKey below): a data key never changes once
  // made (only its wrapping does), and signing reads it only when a private key is not cached already.
  async function load(tenantId: string, create: boolean): Promise<{ id: string; key: KeyObject } | undefined> {
    let record = await dataKeys.get(tenantId);
    let raw: Uint8Array | undefined;
    if (!record) {
      if (!create) return undefined;
      const made = new Uint8Array(random(DATA_KEY_BYTES));
      if (made.length !== DATA_KEY_BYTES) throw new Error(`The random source gave ${made.length} bytes for a ${DATA_KEY_BYTES}-byte data key`);
      const id = ids.uuid();
      const context = dataKeyContext(tenantId, id);
      const now = clock.now().toISOString();
      record = await dataKeys.insertIfAbsent({
        tenantId,
        id,
        wrapped: await wrapping.current.wrap(made, context),
        wrappingKeyId: wrapping.current.id,
        ...(recovery ? { recoveryWrapped: recovery.encrypt(made, context), recoveryKeyId: recovery.id } : {}),
        createdAt: now,
        updatedAt: now,
      });
      // Another server made the tenant's data key first: ours never sealed anything, and is dropped.
      if (record.id === id) raw = made;
    }
    if (!raw) {
      raw = await unwrap(record);
      // Wrapped under an older wrapping key: wrapped anew now, once, by whichever server reads it
      // first (the job does the rest). A failure here leaves the row as it was, still readable.
      if (!isCurrent(record)) await writeCurrent(record, raw).catch(() => false);
    }
    const entry = { id: record.id, key: createSecretKey(Buffer.from(raw)) };
    raw.fill(0);
    return entry;
  }

  const dataKeysHeld = sharedLoads(load);
  async function dataKey(tenantId: string, create: boolean): Promise<{ id: string; key: KeyObject } | undefined> {
    return dataKeysHeld.cache.get(tenantId) ?? dataKeysHeld.load(tenantId, create);
  }

  /** One pass over stale data keys, each turned into its raw bytes by `rawOf` and written back wrapped as today. */
  async function pass(limit: number, rawOf: (record: DataKeyRecord) => Promise<Uint8Array>): Promise<RewrapReport> {
    const stale = await dataKeys.listStale(currentWrapping(), limit);
    const report: RewrapReport = { rewrapped: 0, failed: [], more: stale.length >= limit };
    for (const record of stale) {
      try {
        const raw = await rawOf(record);
        if (await writeCurrent(record, raw)) report.rewrapped++;
        raw.fill(0);
      } catch (error) {
        report.failed.push({ tenantId: record.tenantId, reason: reasonOf(error) });
      }
    }
    return report;
  }

  return {
    wrappingKeyId: wrapping.current.id,

    async seal(tenantId, plaintext, associatedData) {
      const entry = await dataKey(tenantId, true);
      if (!entry) throw new Error(`No data key for tenant ${tenantId}`);
      const iv = Buffer.from(random(IV_BYTES));
      if (iv.length !== IV_BYTES) throw new Error(`The random source gave ${iv.length} bytes for a ${IV_BYTES}-byte IV`);
      const cipher = createCipheriv('aes-256-gcm', entry.key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(`${VERSION}.${entry.id}:${associatedData}`, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return [VERSION, entry.id, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },

    async open(tenantId, sealed, associatedData) {
      const parts = typeof sealed === 'string' ? sealed.split('.') : [];
      const [version, id, iv64, ciphertext64, tag64] = parts;
      if (parts.length !== 5 || version !== VERSION || !DATA_KEY_ID.test(id as string) || ![iv64, ciphertext64, tag64].every((p) => B64URL.test(p as string))) {
        throw new Error(MISMATCH);
      }
      const entry = await dataKey(tenantId, false);
      if (!entry) throw new Error(`Cannot open sealed data: tenant ${tenantId} has no data key`);
      if (entry.id !== id) throw new Error(MISMATCH);
      const iv = Buffer.from(iv64 as string, 'base64url');
      const tag = Buffer.from(tag64 as string, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error(MISMATCH);
      try {
        const decipher = createDecipheriv('aes-256-gcm', entry.key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(`${VERSION}.${entry.id}:${associatedData}`, 'utf8'));
        decipher.setAuthTag(tag);
        const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext64 as string, 'base64url')), decipher.final()]);
        return new Uint8Array(plain.buffer, plain.byteOffset, plain.byteLength);
      } catch (cause) {
        throw new Error(MISMATCH, { cause });
      }
    },

    rewrap(limit) {
      return pass(limit, unwrap);
    },

    recover(recoveryPrivateKeyPem, limit) {
      // A data key its wrapping key still opens is re-wrapped from there; only a lost one needs the copy.
      return pass(limit, async (record) => {
        try {
          return await unwrap(record);
        } catch {
          return openRecoveryCopy(recoveryPrivateKeyPem, record);
        }
      });
    },
  };
}
