export { fakeClock, fakeDns, fakeHasher, fakeIds, fakeTokenSigner } from './fakes.ts';
export type { FakeClock } from './fakes.ts';
export { describeStoreContract, makeClient, makeDomain, makeEvent, makeTenant } from './store-contract.ts';
