import type { EventRecorder } from '../events/recorder.ts';
import type { KeyAlgorithm, ManagedKey } from '../keys/model.ts';
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
  keys: Array<{ didDocumentKeyId: string; kmsKeyId: string }>;
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
}

function localMetadataOf(record: DidRecord): DidLocalMetadata {
  return {
    keys: record.keys.map((k) => ({ didDocumentKeyId: k.didDocumentKeyId, kmsKeyId: k.kmsKeyId })),
    registered: record.createdAt,
    initialDidDocument: didDocumentOf(record),
  };
}

/** Renders a stored DID as the API shows it. */
export function didView(record: DidRecord): DidView {
  return { did: record.did, didDocument: didDocumentOf(record), localMetadata: localMetadataOf(record) };
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
  function createWithKeys(ctx: RequestContext, algorithms: KeyAlgorithm[], build: (made: ManagedKey[]) => DidRecord): Promise<DidRecord> {
    return withNewKeys(keys, ctx.tenant.id, algorithms, async (made) => {
      const record = build(made);
      await store.dids.insert(record);
      return record;
    });
  }

  const meta = (v: { did: string }) => ({ did: v.did, method: v.did.split(':')[1] });

  return {
    create(ctx, input) {
      return run(ctx, 'DID_CREATE', { input, meta }, async () => {
        const checked = checkCreateDidInput(input);
        const createdAt = clock.now().toISOString();
        let record: DidRecord;
        if (checked.method === 'key') {
          record = await createWithKeys(ctx, [checked.keyType], ([key]) => {
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
          record = await createWithKeys(ctx, ['Ed25519', 'P-256'], (made) => ({
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
      return list(ctx, 'DID_LIST', query, (page) => store.dids.list(ctx.tenant.id, page), didView);
    },

    get(ctx, did) {
      return run(ctx, 'DID_RETRIEVE', { meta }, async () => didView(await requireFound(store.dids.get(ctx.tenant.id, checkDidParam(did)), missing)));
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
      return didDocumentOf(record);
    },
  };
}
