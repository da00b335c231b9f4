// The public surface of @vellum/pkcs11: PKCS#11 key custody (docs/key-custody.md).

export { openPkcs11Token, Pkcs11TokenError } from './token.ts';
export type { Pkcs11Token, Pkcs11TokenOptions, PrivateKeyProtection } from './token.ts';
export { createPkcs11KeyManager, pkcs11LabelOf } from './key-manager.ts';
export type { Pkcs11KeyManagerOptions } from './key-manager.ts';
export { createPkcs11KeyWrapper, findPkcs11KeyWrapper, pkcs11KeyWrapperLabel } from './key-wrapper.ts';
export type { Pkcs11KeyWrapper, Pkcs11KeyWrapperOptions } from './key-wrapper.ts';
export { createPkcs11PlatformKeyHolder, pkcs11PlatformLabelOf } from './platform-keys.ts';
