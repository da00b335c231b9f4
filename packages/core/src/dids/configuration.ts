import type { LinkedDataProof, LinkedDataSigner } from '../credential-formats/port.ts';
import type { Store } from '../ports.ts';
import type { Clock } from '../shared/ports.ts';
import { isDomainError } from '../shared/errors.ts';
import type { Addressing } from '../tenancy/addressing.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { JWS_2020_CONTEXT_V1 } from './documents.ts';
import { currentDidKey, type DidKey, type DidRecord } from './model.ts';

export const DID_CONFIGURATION_CONTEXT = 'https://identity.foundation/.well-known/did-configuration/v1';
export const CREDENTIALS_CONTEXT_V1 = 'https://www.w3.org/2018/credentials/v1';

/** A DIF Well Known DID Configuration domain linkage credential (JSON-LD, with a Linked Data proof). */
export interface DomainLinkageCredential {
  '@context': string[];
  issuer: string;
  issuanceDate: string;
  expirationDate: string;
  type: ['VerifiableCredential', 'DomainLinkageCredential'];
  credentialSubject: { id: string; origin: string };
  proof: LinkedDataProof;
}

/** The public DID configuration (DIF Well Known DID Configuration; docs/decisions.md "The DID configuration"). `linked_dids` is the DIF name of `entries`. */
export interface DidConfiguration {
  '@context': typeof DID_CONFIGURATION_CONTEXT;
  entries: DomainLinkageCredential[];
  linked_dids: DomainLinkageCredential[];
}

export interface DidConfigurationService {
  /** The tenant's DID configuration: one domain linkage credential per DID, for its public origin. */
  get(ctx: RequestContext): Promise<DidConfiguration>;
}

/** One DID's domain linkage credential, as it is being signed. */
export interface LinkageCredential {
  /** The KeyManager key that signs it: a DID deleted and created again has new keys. */
  keyId: string;
  /** Rejects with DomainError `NotFound` when the key is gone (the DID was deleted meanwhile). */
  credential: Promise<DomainLinkageCredential>;
  /** When a fresh one should be signed instead (ms). */
  renewAt: number;
}

/** Signs domain linkage credentials (the port the cache wraps: docs/decisions.md, "Caches live outside the core (issue 17)"). */
export interface LinkageCredentials {
  /** One credential for each record, in order, for `origin`, issued at `now` (ms). */
  forDids(tenantId: string, records: DidRecord[], origin: string, now: number): LinkageCredential[];
}

export interface LinkageCredentialsDeps {
  signer: LinkedDataSigner;
  /** How long a credential is valid (default 365 days). */
  validityDays?: number;
  /** A credential is signed again once less than this remains of its validity (default 30 days). */
  renewWithinDays?: number;
}

/** The document with what a cache around the service needs to know about it. */
export interface BuiltDidConfiguration {
  configuration: DidConfiguration;
  /** The earliest `renewAt` of its credentials (Infinity when it has none). */
  renewAt: number;
  /** False when a DID was left out because its key was gone: a DID deleted while the document was built. */
  complete: boolean;
}

export interface DidConfigurationBuilder extends DidConfigurationService {
  build(ctx: RequestContext): Promise<BuiltDidConfiguration>;
}

export interface DidConfigurationDeps {
  store: Store;
  clock: Clock;
  addressing: Addressing;
  linkage: LinkageCredentials;
}

const DAY_MS = 86_400_000;
/** xsd:dateTime at whole seconds, as Linked Data proofs usually write it. */
const dateTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Ed25519 keys sign with Ed25519Signature2018 (the suite DIF verifiers know best); P-256 keys with JsonWebSignature2020. */
export function signingKeyOf(record: DidRecord): DidKey {
  return currentDidKey(record, 'Ed25519') ?? currentDidKey(record, 'P-256') ?? (record.keys[0] as DidKey);
}

/** Signs every DID it is given, with the DID's signing key. */
export function createLinkageCredentials(deps: LinkageCredentialsDeps): LinkageCredentials {
  const validityMs = (deps.validityDays ?? 365) * DAY_MS;
  const renewWithinMs = (deps.renewWithinDays ?? 30) * DAY_MS;

  function sign(tenantId: string, record: DidRecord, key: DidKey, origin: string, now: number): Promise<DomainLinkageCredential> {
    const issued = dateTime(now);
    const ed25519 = key.algorithm === 'Ed25519';
    const document = {
      '@context': ed25519 ? [CREDENTIALS_CONTEXT_V1, DID_CONFIGURATION_CONTEXT] : [CREDENTIALS_CONTEXT_V1, DID_CONFIGURATION_CONTEXT, JWS_2020_CONTEXT_V1],
      issuer: record.did,
      issuanceDate: issued,
      expirationDate: dateTime(now + validityMs),
      type: ['VerifiableCredential', 'DomainLinkageCredential'],
      credentialSubject: { id: record.did, origin },
    };
    return deps.signer
      .sign({
        tenantId,
        keyId: key.kmsKeyId,
        type: ed25519 ? 'Ed25519Signature2018' : 'JsonWebSignature2020',
        verificationMethod: key.didDocumentKeyId,
        proofPurpose: 'assertionMethod',
        created: issued,
        document,
      })
      .then((signed) => signed as unknown as DomainLinkageCredential);
  }

  return {
    forDids: (tenantId, records, origin, now) =>
      records.map((record) => {
        const key = signingKeyOf(record);
        return { keyId: key.kmsKeyId, credential: sign(tenantId, record, key, origin, now), renewAt: now + validityMs - renewWithinMs };
      }),
  };
}

/**
 * The DID configuration (DIF Well Known DID Configuration; docs/decisions.md "The DID configuration"):
 * every call reads the tenant's origin and DIDs and has each DID's credential signed by `linkage`.
 * Signing is slow: `cacheLinkageCredentials` and `cacheDidConfiguration` (cached-configuration.ts)
 * keep what it makes.
 */
export function createDidConfigurationService(deps: DidConfigurationDeps): DidConfigurationBuilder {
  const { store, clock, addressing, linkage } = deps;

  async function allDids(tenantId: string): Promise<DidRecord[]> {
    const all: DidRecord[] = [];
    let after: number | undefined;
    for (;;) {
      const slice = await store.dids.list(tenantId, after === undefined ? { limit: 1000 } : { limit: 1000, after });
      all.push(...slice.items);
      if (slice.items.length < 1000 || slice.last === undefined) return all;
      after = slice.last;
    }
  }

  async function build(ctx: RequestContext): Promise<BuiltDidConfiguration> {
    const tenantId = ctx.tenant.id;
    const [records, origin] = await Promise.all([allDids(tenantId), addressing.publicOrigin(ctx.tenant)]);
    const signed = linkage.forDids(tenantId, records, origin, clock.now().getTime());
    const settled = await Promise.allSettled(signed.map((c) => c.credential));
    const entries: DomainLinkageCredential[] = [];
    let complete = true;
    for (const outcome of settled) {
      if (outcome.status === 'fulfilled') entries.push(outcome.value);
      // A DID deleted while we signed has lost its key: it is simply no longer listed.
      else if (isDomainError(outcome.reason) && outcome.reason.code === 'NotFound') complete = false;
      else throw outcome.reason;
    }
    const configuration: DidConfiguration = { '@context': DID_CONFIGURATION_CONTEXT, entries, linked_dids: entries };
    return { configuration, renewAt: Math.min(...signed.map((c) => c.renewAt)), complete };
  }

  return {
    build,
    get: async (ctx) => (await build(ctx)).configuration,
  };
}
