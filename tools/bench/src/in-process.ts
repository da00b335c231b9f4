// Vellum wired in process over real adapters (keys, X.509, every format's signer) on a given store,
// with the sign-in adapters faked: what the in-process benchmarks and the credential samples use.
import { createVellum, type Store, type Vellum } from '@vellum/core';
import {
  createDigests,
  createKeyManager,
  createJwtProofVerifier,
  createProofVerifier,
  createScryptHasher,
  createSealer,
  createWalletTokens,
  createX509Authority,
  loadCredentialEncryption,
  loadNonceCodec,
  loadPlatformTokenSigner,
} from '@vellum/crypto';
import { createFormatSigners } from '@vellum/formats';
import { createDnsResolver, createNodeIds, systemClock } from '@vellum/node';
import { fakeIdentityProvider, fakeSecretBox, fakeSessionTokens } from '@vellum/testing/fakes';

export async function inProcessVellum(
  store: Store,
  options: { publicUrl?: string; mdocSignerCacheMs?: number } = {},
): Promise<{ vellum: Vellum; keys: ReturnType<typeof createKeyManager> }> {
  const sealer = createSealer(new Uint8Array(32).fill(1));
  const ids = createNodeIds();
  const keys = createKeyManager({ keys: store.keys, sealer, ids, clock: systemClock });
  const vellum = createVellum({
    store,
    clock: systemClock,
    ids,
    hasher: createScryptHasher({ N: 1024 }),
    tokens: await loadPlatformTokenSigner({ keys: store.platformKeys, sealer, clock: systemClock }),
    dns: createDnsResolver({}),
    keys,
    x509: createX509Authority({ keys }),
    ...createFormatSigners({ keys }),
    digests: createDigests(),
    walletTokens: createWalletTokens({ signingKeys: store.tenantSigningKeys, keys, clock: systemClock }),
    proofVerifier: createProofVerifier(),
    jwtProofs: createJwtProofVerifier(),
    credentialEncryption: await loadCredentialEncryption({ keys: store.platformKeys, sealer, clock: systemClock }),
    nonceCodec: await loadNonceCodec({ keys: store.platformKeys, sealer, clock: systemClock }),
    ...(options.mdocSignerCacheMs !== undefined ? { mdocSignerCacheMs: options.mdocSignerCacheMs } : {}),
    // Not used in process: sign-in belongs to the Authorization Code flow.
    identityProvider: fakeIdentityProvider(),
    sessionTokens: fakeSessionTokens(systemClock),
    secretBox: fakeSecretBox(),
    platformDomain: 'vellum.bench',
    publicUrl: options.publicUrl ?? 'http://localhost:3000',
    adminTokenTtlSeconds: 600,
  });
  return { vellum, keys };
}
