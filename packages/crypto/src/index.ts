// The public surface of @vellum/crypto.

export { createScryptHasher } from './hasher.ts';
export type { ScryptHasherOptions } from './hasher.ts';
export { ADMIN_TOKEN_KEY_NAME, loadPlatformTokenSigner } from './platform-token-signer.ts';
export type { LoadPlatformTokenSignerOptions, PlatformTokenSigner, PublicJwk } from './platform-token-signer.ts';
export { createSealer, parseMasterKey } from './sealer.ts';
export type { Sealer } from './sealer.ts';
export { createKeyManager } from './key-manager.ts';
export type { KeyManagerOptions } from './key-manager.ts';
