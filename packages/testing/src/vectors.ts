// Fixed vectors that other people signed, shared by the tests of several packages.
import difDomainLinkage from './fixtures/dif-domain-linkage-credential.json' with { type: 'json' };

/**
 * The example domain linkage credential of the DIF Well Known DID Configuration, signed by DIF with
 * Ed25519Signature2018 under the published contexts: `credential`, and the did:key whose key signed it.
 */
export const DIF_DOMAIN_LINKAGE_CREDENTIAL: { source: string; publicKeyOf: string; credential: Record<string, unknown> } = difDomainLinkage;
