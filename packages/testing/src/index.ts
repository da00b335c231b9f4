export { fakeClock, fakeDns, fakeHasher, fakeIds, fakeTokenSigner } from './fakes.ts';
export type { FakeClock } from './fakes.ts';
export { describeStoreContract, makeClient, makeDomain, makeEvent, makeTenant } from './store-contract.ts';
export { startDnsServer } from './dns-server.ts';
export type { DnsTestServer } from './dns-server.ts';
