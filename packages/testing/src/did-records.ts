import { type DidRecord, didKeyOf, type KeyAlgorithm, keyFingerprint, type KeyManager, type Store } from '@vellum/core';

/**
 * A did:key over a new KeyManager key of `algorithm`, stored for the tenant as the DID service
 * stores one: what the format handlers find and sign with, without the DID service's events.
 */
export async function addDidKey(
  store: Pick<Store, 'dids'>,
  keys: Pick<KeyManager, 'create'>,
  tenantId: string,
  algorithm: KeyAlgorithm,
  createdAt = new Date().toISOString(),
): Promise<DidRecord> {
  const key = await keys.create(tenantId, algorithm);
  const did = didKeyOf(key.publicJwk);
  const record: DidRecord = {
    tenantId,
    did,
    method: 'key',
    keys: [{ didDocumentKeyId: `${did}#${keyFingerprint(key.publicJwk)}`, kmsKeyId: key.id, algorithm, publicJwk: key.publicJwk }],
    createdAt,
  };
  await store.dids.insert(record);
  return record;
}
