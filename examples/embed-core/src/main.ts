// Vellum's core alone, with no HTTP: a script builds the use cases over the in-memory store, sets
// up a tenant that issues mDLs (mso_mdoc), and issues one for a holder's key.
// Run it with `node examples/embed-core/src/main.ts`; README.md beside this file says more.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createVellum, type PublicJwk, ROLE_PERMISSIONS, type RequestContext, type Store, type Vellum } from '@vellum/core';
import {
  createJwtProofVerifier,
  createKeyManager,
  createProofVerifier,
  createScryptHasher,
  createSealer,
  createSecretBox,
  createSessionTokens,
  createWalletTokens,
  createX509Authority,
  loadCredentialEncryption,
  loadDigests,
  loadNonceCodec,
  loadPlatformTokenSigner,
} from '@vellum/crypto';
import { createFormatSigners } from '@vellum/formats';
import { createDnsResolver, createHttpClient, createIdentityProvider, createNodeIds, systemClock } from '@vellum/node';
import { createMemoryStore } from '@vellum/storage-memory';

export const DOC_TYPE = 'org.iso.18013.5.1.mDL';
export const NAMESPACE = 'org.iso.18013.5.1';
/** The credential issuer identifier the mDoc is issued under; nothing is served there in this example. */
const ISSUER = 'https://issuer.example';

/**
 * Every Vellum use case over the in-memory store and the Node adapters. The OAuth and HTTP-facing
 * adapters are wired too (createVellum builds every use case), though this script uses none of them.
 */
async function buildVellum(): Promise<{ vellum: Vellum; store: Store; close(): Promise<void> }> {
  const store = createMemoryStore();
  const clock = systemClock;
  const ids = createNodeIds();
  // The key that seals every private key at rest; with a database it must be kept (and secret).
  const sealer = createSealer(randomBytes(32));
  const keys = createKeyManager({ keys: store.keys, sealer, ids, clock });
  const platformSecrets = { keys: store.platformKeys, sealer, clock };
  const http = createHttpClient();
  const vellum = createVellum({
    store,
    clock,
    ids,
    keys,
    publicUrl: ISSUER,
    platformDomain: 'tenants.invalid',
    hasher: createScryptHasher(),
    tokens: await loadPlatformTokenSigner(platformSecrets),
    adminTokenTtlSeconds: 600,
    // What issues mDocs: X.509 for the IACA and document signer, and the signers of every format.
    x509: createX509Authority({ keys }),
    ...createFormatSigners({ keys }),
    digests: await loadDigests(platformSecrets),
    walletTokens: createWalletTokens({ signingKeys: store.tenantSigningKeys, keys, clock, ids }),
    proofVerifier: createProofVerifier(),
    jwtProofs: createJwtProofVerifier(),
    credentialEncryption: await loadCredentialEncryption(platformSecrets),
    nonceCodec: await loadNonceCodec({ ...platformSecrets, ids }),
    secretBox: createSecretBox(sealer),
    sessionTokens: createSessionTokens(),
    identityProvider: createIdentityProvider({ http, clock }),
    dns: createDnsResolver(),
  });
  return {
    vellum,
    store,
    async close() {
      await vellum.recorder.flush();
      http.close();
      await store.close();
    },
  };
}

/** What the script issued: the mDoc (base64url IssuerSigned) and the IACA certificate that verifies it. */
export interface Issued {
  credential: string;
  iacaPem: string;
}

/** Sets up a tenant (an active IACA and an mDL configuration) and issues one mDL bound to `holderKey`. */
export async function issueMdl(holderKey: PublicJwk): Promise<Issued> {
  const { vellum, store, close } = await buildVellum();
  try {
    const { tenant } = await vellum.tenants.createTenant({ subdomain: 'dmv', region: 'us01', name: 'Example DMV' });
    // The script calls the core as the tenant's administrator: trusted code, with no token to check.
    const ctx: RequestContext = {
      tenant,
      origin: ISSUER,
      requestor: { clientId: 'example-script', role: 'admin', permissions: new Set(ROLE_PERMISSIONS.admin) },
      requestId: randomUUID(),
      ip: '127.0.0.1',
    };
    const iaca = await vellum.iacas.create(ctx, { country: 'US' });
    await vellum.iacas.update(ctx, iaca.id, { active: true });
    const view = await vellum.credentialConfigurations.create(ctx, 'mso_mdoc', {
      type: DOC_TYPE,
      expiresIn: { days: 365 },
      claimMappings: {
        [NAMESPACE]: {
          family_name: { mapFrom: 'claims.familyName', required: true },
          birth_date: { mapFrom: 'claims.birthDate', type: 'date', required: true },
          age_over_18: { mapFrom: 'claims.adult', type: 'boolean' },
          issuing_country: { defaultValue: 'US' },
        },
      },
    });
    // Issuance takes the configuration as stored (the service's view leaves out its tenant and format).
    const configuration = await store.credentialConfigurations.get(tenant.id, view.id);
    if (!configuration) throw new Error('the configuration just created is missing');

    // The one call that issues, whatever the format and whatever the flow around it.
    const { credential } = await vellum.credentialIssuance.issue({
      tenant,
      configuration,
      subject: { claims: { familyName: 'Turner', birthDate: '1990-05-15', adult: true } },
      holderKey,
      credentialIssuer: ISSUER,
    });
    return { credential: credential as string, iacaPem: iaca.certificatePem };
  } finally {
    await close();
  }
}

if (import.meta.main) {
  // A holder key made up on the spot; a wallet would send its own (the proof's key in OpenID4VCI).
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const issued = await issueMdl({ kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string });
  console.log(`mDL (base64url IssuerSigned, ${issued.credential.length} characters):\n${issued.credential}\n`);
  console.log(`Verify it under this IACA:\n${issued.iacaPem}`);
}
