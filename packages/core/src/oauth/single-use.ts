// Single-use values that are not c_nonces: the `jti` of DPoP proofs and of client attestation
// proofs of possession. They share the store's record of used nonces (one atomic insert guarded by
// the key (tenant, value), swept after expiry), each kind under its own prefix, so that no value of
// one kind can collide with another's or with a c_nonce (c_nonces are base64url, without ':').

import type { Store } from '../ports.ts';

export type SingleUseKind = 'dpop' | 'attestation-pop';

/**
 * Records `digest` (a fixed-length hash of the value) as used by the tenant: true the first time,
 * false for any repeat, on this server or any other sharing the store.
 */
export function markUsedOnce(store: Pick<Store, 'nonces'>, tenantId: string, kind: SingleUseKind, digest: string, expiresAt: Date): Promise<boolean> {
  return store.nonces.markUsed({ tenantId, nonce: `${kind}:${digest}`, expiresAt: expiresAt.toISOString() });
}
