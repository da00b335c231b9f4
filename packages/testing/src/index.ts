export { fakeClock, fakeDns, fakeHasher, fakeIds, fakeKeyManager, fakeLinkedDataSigner, fakeTokenSigner } from './fakes.ts';
export type { FakeClock } from './fakes.ts';
export { describeStoreContract, makeClient, makeConfiguration, makeDid, makeDomain, makeEvent, makeTenant } from './store-contract.ts';
export { startDnsServer } from './dns-server.ts';
export { DIF_DOMAIN_LINKAGE_CREDENTIAL } from './vectors.ts';
export type { DnsTestServer } from './dns-server.ts';
export { fakeCertificatePem, fakeCsrBody, fakeMdocEngine, fakeX509Authority, readFakeMdoc } from './mdoc-fakes.ts';
export type { FakeCertificateBody, FakeMdoc } from './mdoc-fakes.ts';
export { makeDocumentSigner, makeIaca } from './store-contract-mdoc.ts';
