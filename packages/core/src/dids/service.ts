import type { EventRecorder } from '../events/recorder.ts';
import type { KeyAlgorithm, KeyCustody, ManagedKey } from '../keys/model.ts';
import type { KeyManager } from '../keys/ports.ts';
import { withNewKeys } from '../keys/new-keys.ts';
import type { Store } from '../ports.ts';
import type { Clock } from '../shared/ports.ts';
import { conflict, invalidField, notFound } from '../shared/errors.ts';
import type { Page, PageQuery } from '../shared/pagination.ts';
import { adminOperations, requireFound } from '../shared/admin-resource.ts';
import type { Addressing } from '../tenancy/addressing.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { didKeyOf, keyFingerprint } from './did-key.ts';
import { didWebOf, isDidWebSegment, MAX_DID_WEB_PATH_SEGMENTS } from './did-web.ts';
import { didDocumentOf } from './documents.ts';
import type { DidDocument, DidKey, DidRecord } from './model.ts';
import { checkCreateDidInput, checkDidParam, type CreateDidInput } from './rules.ts';

export interface DidDeps {
  store: Store;
  clock: Clock;
  keys: KeyManager;
  events: EventRecorder;
  addressing: Addressing;
}

/** docs/decisions.md "DIDs": what Vellum keeps about a DID beyond its document. */
export interface DidLocalMetadata {
  keys: Array<{ didDocumentKeyId: string; kmsKeyId: string; retiredAt?: string; verifiesUntil?: string }>;
  /** When the DID was created (ISO 8601). */
  registered: string;
  initialDidDocument: DidDocument;
}

/** docs/decisions.md "DIDs": `GET /v1/dids/{did}` and each item of the list. */
export interface DidView {
  did: string;
  didDocument: DidDocument;
  localMetadata: DidLocalMetadata;
}

/** docs/decisions.md "DIDs": the 201 answer of `POST /v1/dids`. */
export interface CreatedDidView {
  did: string;
  registrationStatus: 'COMPLETED';
  localMetadata: DidLocalMetadata;
}

export interface DidService {
  create(ctx: RequestContext, input: CreateDidInput): Promise<CreatedDidView>;
  list(ctx: RequestContext, query: PageQuery): Promise<Page<DidView>>;
  get(ctx: RequestContext, did: string): Promise<DidView>;
  /** Removes the DID and destroys its private keys. */
  delete(ctx: RequestContext, did: string): Promise<void>;
  /**
   * Public: the document of the tenant's did:web whose host is the one the request arrived on and
   * whose path is `path` (`/.well-known/did.json` for none, else `/{path}/did.json`).
   */
  webDocument(ctx: RequestContext, path: string[]): Promise<DidDocument>;
  /**
   * docs/key-custody.md "Rotation": gives a did:web a new key of each algorithm it signs with; the
   * new keys sign from now on, and the old ones stay in the DID document (verifying what they
   * signed) for `overlapSeconds`, or for good when it is not given. Keys whose overlap has ended
   * leave the record and are destroyed. A did:key cannot rotate (400). Not an admin operation by
   * itself: the signing key rotation service checks and records it.
   */
  rotateKeys(tenantId: string, did: string, now: Date, overlapSeconds?: number): Promise<{ created: DidKey[]; retired: DidKey[] }>;
}

/** How many keys a DID is created with: one for a did:key, one of each algorithm for a did:web. */
const INITIAL_KEYS: Record<DidRecord['method'], number> = { key: 1, web: 2 };

function localMetadataOf(record: DidRecord): DidLocalMetadata {
  return {
    keys: record.keys.map((k) => ({
      didDocumentKeyId: k.didDocumentKeyId,
      kmsKeyId: k.kmsKeyId,
      ...(k.retiredAt !== undefined ? { retiredAt: k.retiredAt } : {}),
      ...(k.verifiesUntil !== undefined ? { verifiesUntil: k.verifiesUntil } : {}),
    })),
    registered: record.createdAt,
    // Rotations append keys: the first ones are those the DID was created with.
    initialDidDocument: didDocumentOf({ did: record.did, keys: record.keys.slice(0, INITIAL_KEYS[record.method]) }),
  };
}

/** Renders a stored DID as the API shows it, its document as it is published at `at`. */
export function didView(record: DidRecord, at?: number): DidView {
  return { did: record.did, didDocument: didDocumentOf(record, at), localMetadata: localMetadataOf(record) };
}

const didKeyOfManaged = (did: string, key: ManagedKey): DidKey => ({
  didDocumentKeyId: `${did}#${keyFingerprint(key.publicJwk)}`,
  kmsKeyId: key.id,
  algorithm: key.algorithm,
  publicJwk: key.publicJwk,
});

const missing = () => notFound('The tenant has no such DID');

/** DIDs of a tenant: did:key and did:web, their documents and keys (docs/decisions.md "DIDs"). */
export function createDidService(deps: DidDeps): DidService {
  const { store, clock, keys, events, addressing } = deps;
  const { run, list } = adminOperations(events, 'dids');

  /** Creates the keys, then the record; keys made for a record that could not be stored are destroyed. */
  function createWithKeys(
    ctx: RequestContext,
    algorithms: KeyAlgorithm[],
    custody: KeyCustody | undefined,
    build: (made: ManagedKey[]) => DidRecord,
  ): Promise<DidRecord> {
    return withNewKeys(
      keys,
      ctx.tenant.id,
      algorithms,
      async (made) => {
        const record = build(made);
        await store.dids.insert(record);
        return record;
      },
      custody !== undefined ? { custody } : undefined,
    );
  }

  const meta = (v: { did: string }) => ({ did: v.did, method: v.did.split(':')[1] });

  return {
    create(ctx, input) {
      return run(ctx, 'DID_CREATE', { input, meta }, async () => {
        const checked = checkCreateDidInput(input);
        const createdAt = clock.now().toISOString();
        let record: DidRecord;
        if (checked.method === 'key') {
          record = await createWithKeys(ctx, [checked.keyType], checked.keyCustody, ([key]) => {
            const did = didKeyOf((key as ManagedKey).publicJwk);
            return { tenantId: ctx.tenant.id, did, method: 'key', keys: [didKeyOfManaged(did, key as ManagedKey)], createdAt };
          });
        } else {
          const hosts = (await addressing.originsOf(ctx.tenant)).map((origin) => new URL(origin).host);
          if (!hosts.includes(checked.location.host)) {
            throw invalidField('options.url', `Must be on the tenant’s own host or its verified custom domain (${hosts.join(', ')})`, input.options?.url);
          }
          const did = didWebOf(checked.location);
          if (await store.dids.get(ctx.tenant.id, did)) {
            throw conflict('The tenant already has this DID', [{ value: input.options?.url, msg: `${did} exists`, param: 'options.url', location: 'body' }]);
          }
          // A did:web gets both key types, so it can sign Ed25519 and P-256 suites alike.
          record = await createWithKeys(ctx, ['Ed25519', 'P-256'], checked.keyCustody, (made) => ({
            tenantId: ctx.tenant.id,
            did,
            method: 'web',
            keys: made.map((key) => didKeyOfManaged(did, key)),
            createdAt,
          }));
        }
        return { did: record.did, registrationStatus: 'COMPLETED' as const, localMetadata: localMetadataOf(record) };
      });
    },

    list(ctx, query) {
      return list(
        ctx,
        'DID_LIST',
        query,
        (page) => store.dids.list(ctx.tenant.id, page),
        (record) => didView(record, clock.now().getTime()),
      );
    },

    get(ctx, did) {
      return run(ctx, 'DID_RETRIEVE', { meta }, async () =>
        didView(await requireFound(store.dids.get(ctx.tenant.id, checkDidParam(did)), missing), clock.now().getTime()),
      );
    },

    delete(ctx, did) {
      return run(ctx, 'DID_DELETE', { meta: () => ({ did }) }, async () => {
        const record = await store.dids.get(ctx.tenant.id, checkDidParam(did));
        // The record goes first: from then on the DID is in no listing, document or configuration,
        // even if destroying a key fails below.
        if (!record || !(await store.dids.delete(ctx.tenant.id, record.did))) throw missing();
        for (const key of record.keys) await keys.destroy(ctx.tenant.id, key.kmsKeyId);
      });
    },

    async webDocument(ctx, path) {
      if (path.length > MAX_DID_WEB_PATH_SEGMENTS || !path.every(isDidWebSegment)) throw notFound('No DID document here');
      const did = didWebOf({ host: new URL(ctx.origin).host, path });
      const record = await store.dids.get(ctx.tenant.id, did);
      if (!record) throw notFound('No DID document here');
      return didDocumentOf(record, clock.now().getTime());
    },

    async rotateKeys(tenantId, did, now, overlapSeconds) {
      const record = await requireFound(store.dids.get(tenantId, checkDidParam(did)), missing);
      if (record.method !== 'web') throw invalidField('did', 'A did:key cannot rotate: its key is the DID itself. Create a new DID instead', did);
      const at = now.getTime();
      const signing = record.keys.filter((k) => k.retiredAt === undefined);
      const ended = record.keys.filter((k) => k.verifiesUntil !== undefined && Date.parse(k.verifiesUntil) <= at);
      return withNewKeys(
        keys,
        tenantId,
        signing.map((k) => k.algorithm),
        async (made) => {
          const created = made.map((key) => didKeyOfManaged(record.did, key));
          const retiredAt = now.toISOString();
          const verifiesUntil = overlapSeconds === undefined ? undefined : new Date(at + overlapSeconds * 1000).toISOString();
          const retired = signing.map((k) => ({ ...k, retiredAt, ...(verifiesUntil !== undefined ? { verifiesUntil } : {}) }));
          const kept = record.keys.filter((k) => k.retiredAt !== undefined && !ended.includes(k));
          if (!(await store.dids.replaceKeys(tenantId, record.did, record.keys, [...kept, ...retired, ...created]))) {
            throw conflict('Another rotation of this DID happened at the same time; try again');
          }
          // Out of the document before now: their private halves go.
          for (const key of ended) await keys.destroy(tenantId, key.kmsKeyId);
          return { created, retired };
        },
        // The new keys are held where the DID's are.
        signing[0] !== undefined ? { sameCustodyAs: signing[0].kmsKeyId } : undefined,
      );
    },
  };
}
