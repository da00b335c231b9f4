// `@vellum/testing/fakes`: the fakes alone, without the store contracts (which import vitest), so
// that scripts outside a test run (the benchmarks) can use them.
export {
  fakeClock,
  fakeCwtSigner,
  fakeDns,
  fakeHasher,
  fakeIds,
  fakeKeyManager,
  fakeLinkedDataSigner,
  fakeSdJwtSigner,
  fakeSecretBox,
  fakeStatusListTokenSigner,
  fakeTokenStatusListSigner,
  fakeRevocationListSigner,
  fakeTokenSigner,
} from './fakes.ts';
export { fakeIdentityProvider, fakeSessionTokens } from './auth-fakes.ts';
export { addDidKey } from './did-records.ts';
// A SoftHSM 2 token in a temporary directory, for the PKCS#11 benchmark as for the tests.
export { initSoftHsmToken, SOFTHSM_MODULE, softHsmInstalled } from './softhsm.ts';
export type { SoftHsmToken } from './softhsm.ts';
