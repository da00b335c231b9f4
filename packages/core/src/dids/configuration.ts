import type { LinkedDataProof, LinkedDataSigner } from '../credential-formats/port.ts';
import type { Store } from '../ports.ts';
import type { Clock } from '../shared/ports.ts';
import { isDomainError } from '../shared/errors.ts';
import type { Addressing } from '../tenancy/addressing.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { JWS_2020_CONTEXT_V1 } from './documents.ts';
import type { DidKey, DidRecord } from './model.ts';

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

export interface DidConfigurationDeps {
  store: Store;
  clock: Clock;
  addressing: Addressing;
  signer: LinkedDataSigner;
  /** How long a credential is valid (default 365 days). */
  validityDays?: number;
  /** A credential is signed again once less than this remains of its validity (default 30 days). */
  renewWithinDays?: number;
  /** How many tenants' credentials the cache keeps (default 10,000; least recently served go first). */
  cachedTenants?: number;
}

const DAY_MS = 86_400_000;
/** xsd:dateTime at whole seconds, as Linked Data proofs usually write it. */
const dateTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Ed25519 keys sign with Ed25519Signature2018 (the suite DIF verifiers know best); P-256 keys with JsonWebSignature2020. */
function signingKeyOf(record: DidRecord): DidKey {
  return record.keys.find((k) => k.algorithm === 'Ed25519') ?? (record.keys[0] as DidKey);
}

interface CachedCredential {
  /** The KeyManager key that signed it: a DID deleted and created again has new keys. */
  keyId: string;
  credential: Promise<DomainLinkageCredential>;
  /** When to sign a fresh one (ms). */
  renewAt: number;
}

interface TenantCache {
  origin: string;
  byDid: Map<string, CachedCredential>;
  /** The last answer and what it was built from, so an unchanged configuration is one object. */
  last?: { fingerprint: string; renewAt: number; configuration: DidConfiguration };
}

/**
 * The DID configuration (DIF Well Known DID Configuration; docs/decisions.md "The DID configuration"). Signing is slow, so each credential
 * is signed once and kept for most of its validity, per tenant, DID, key and origin. The tenant's
 * DIDs are still read on every request, so a DID created or deleted on any server shows at once.
 */
export function createDidConfigurationService(deps: DidConfigurationDeps): DidConfigurationService {
  const { store, clock, addressing, signer } = deps;
  const validityMs = (deps.validityDays ?? 365) * DAY_MS;
  const renewWithinMs = (deps.renewWithinDays ?? 30) * DAY_MS;
  const maxTenants = deps.cachedTenants ?? 10_000;
  const tenants = new Map<string, TenantCache>();

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
    return signer
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

  function cacheOf(tenantId: string, origin: string): TenantCache {
    let cache = tenants.get(tenantId);
    if (cache) tenants.delete(tenantId); // re-inserted below: most recently served last
    if (!cache || cache.origin !== origin) cache = { origin, byDid: new Map() };
    tenants.set(tenantId, cache);
    if (tenants.size > maxTenants) tenants.delete(tenants.keys().next().value as string);
    return cache;
  }

  return {
    async get(ctx) {
      const tenantId = ctx.tenant.id;
      // The cheap read first: while the same DIDs are listed, the last answer stands.
      const [stamps, origin] = await Promise.all([store.dids.listStamps(tenantId), addressing.publicOrigin(ctx.tenant)]);
      const now = clock.now().getTime();
      const cache = cacheOf(tenantId, origin);
      // From the stamps read before the records: if the two differ, the next request rebuilds.
      const fingerprint = stamps.map((s) => `${s.did} ${s.revision}`).join('\n');
      if (cache.last && cache.last.fingerprint === fingerprint && now < cache.last.renewAt) return cache.last.configuration;

      const records = await allDids(tenantId);
      const byDid = new Map<string, CachedCredential>();
      for (const record of records) {
        const key = signingKeyOf(record);
        const hit = cache.byDid.get(record.did);
        if (hit && hit.keyId === key.kmsKeyId && now < hit.renewAt) {
          byDid.set(record.did, hit);
        } else {
          const credential = sign(tenantId, record, key, origin, now);
          // A failed signature is not kept: the next request tries again.
          credential.catch(() => cache.byDid.get(record.did)?.credential === credential && cache.byDid.delete(record.did));
          byDid.set(record.did, { keyId: key.kmsKeyId, credential, renewAt: now + validityMs - renewWithinMs });
        }
      }
      cache.byDid = byDid;

      const settled = await Promise.allSettled([...byDid.values()].map((c) => c.credential));
      const entries: DomainLinkageCredential[] = [];
      let complete = true;
      for (const outcome of settled) {
        if (outcome.status === 'fulfilled') entries.push(outcome.value);
        // A DID deleted while we signed has lost its key: it is simply no longer listed.
        else if (isDomainError(outcome.reason) && outcome.reason.code === 'NotFound') complete = false;
        else throw outcome.reason;
      }
      const configuration: DidConfiguration = { '@context': DID_CONFIGURATION_CONTEXT, entries, linked_dids: entries };
      const renewAt = Math.min(...[...byDid.values()].map((c) => c.renewAt), now + validityMs - renewWithinMs);
      if (complete) cache.last = { fingerprint, renewAt, configuration };
      else delete cache.last;
      return configuration;
    },
  };
}
