import { caAnchorProblem } from '../../mdoc-pki/ca-anchor.ts';
import type { Static } from '@sinclair/typebox';
import type { CredentialFormat } from '../../configurations/model.ts';
import type { EventRecorder } from '../../events/recorder.ts';
import type { X509Authority } from '../../mdoc-pki/ports.ts';
import { limitReached } from '../../mdoc-pki/signers.ts';
import type { Store } from '../../ports.ts';
import { adminOperations, type CollectionService, requireFound } from '../../shared/admin-resource.ts';
import { Problems } from '../../shared/body-problems.ts';
import { invalidField, notFound } from '../../shared/errors.ts';
import { isUuid } from '../../shared/ids.ts';
import type { Clock, Ids } from '../../shared/ports.ts';
import { checkRootCertificates } from '../../shared/root-certificates.ts';
import type { RequestContext } from '../../tenancy/model.ts';
import type { IssuerAnchor } from '../model.ts';
import { MAX_TRUSTED_ISSUERS_PER_TENANT, type TrustedIssuer } from './model.ts';
import { TrustedIssuerBody } from './schema.ts';

export interface TrustedIssuerDeps {
  store: Pick<Store, 'trustedIssuers'>;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
  /** Reads `certificates`, to accept only CA certificates valid now. */
  x509: Pick<X509Authority, 'parseCertificate'>;
  /** How long a tenant's anchors are reused before the store is read again, in ms (default 5000; 0: never reused). */
  cacheMs?: number;
}

/** A trusted issuer as the API shows it (docs/verification.md "Trusted issuers"). */
export interface TrustedIssuerView {
  id: string;
  name: string;
  formats: CredentialFormat[];
  types?: string[];
  certificates?: string[];
  did?: string;
  createdAt: string;
  updatedAt: string;
}

/** `/v2/credentials/trusted-issuers`, permission `verification`; and the anchors verification reads. */
export interface TrustedIssuerService extends CollectionService<TrustedIssuerView> {
  /**
   * The tenant's anchors trusted for `format`, one per certificate or DID. Cached per tenant for
   * `cacheMs`; a change through this service is seen at once in this process. No permission check:
   * callers are use cases that did their own.
   */
  anchorsFor(tenantId: string, format: CredentialFormat): Promise<IssuerAnchor[]>;
  /** Forgets the tenant's cached anchors. */
  invalidate(tenantId: string): void;
}

/** Renders a stored issuer as the API shows it. */
export function trustedIssuerView(t: TrustedIssuer): TrustedIssuerView {
  return {
    id: t.id,
    name: t.name,
    formats: [...t.formats],
    ...(t.types ? { types: [...t.types] } : {}),
    ...(t.certificates ? { certificates: [...t.certificates] } : {}),
    ...(t.did !== undefined ? { did: t.did } : {}),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** The anchors one issuer gives, for every format it is trusted for. */
export function anchorsOf(t: TrustedIssuer): IssuerAnchor[] {
  const shared = { trustedIssuerId: t.id, formats: [...t.formats], ...(t.types ? { types: [...t.types] } : {}) };
  if (t.did !== undefined) return [{ kind: 'did', did: t.did, ...shared }];
  return (t.certificates ?? []).map((certificatePem) => ({ kind: 'x509', certificatePem, ...shared }));
}

type Settings = Pick<TrustedIssuer, 'name' | 'formats' | 'types' | 'certificates' | 'did'>;

/** Checks a create or replace body: its shape, exactly one of certificates and did, CA certificates valid now; every problem at once. */
export function checkTrustedIssuerInput(input: unknown, deps: { x509: Pick<X509Authority, 'parseCertificate'>; now: Date }): Settings {
  const p = new Problems();
  if (!p.checkShape(TrustedIssuerBody, input) && p.has('body')) p.throwIfAny();
  const body = input as Static<typeof TrustedIssuerBody>;

  const given = (['certificates', 'did'] as const).filter((a) => body[a] !== undefined);
  if (given.length !== 1)
    p.add(given.length === 0 ? 'certificates' : 'did', given.length === 0 ? 'Required: one of certificates or did' : 'Give certificates or did, not both');

  for (const list of ['formats', 'types'] as const) {
    const values = body[list];
    if (values && !p.details.some((d) => d.param.startsWith(list))) {
      values.forEach((v, i) => {
        if ((values as readonly string[]).indexOf(v) !== i) p.add(`${list}.${i}`, 'Listed twice', v);
      });
    }
  }

  if (body.certificates !== undefined && !p.details.some((d) => d.param.startsWith('certificates'))) {
    const pems = checkRootCertificates(body.certificates, 'certificates', (at, msg, value) => p.add(at, msg, value));
    pems?.forEach((pem, i) => {
      const problem = caAnchorProblem(deps, pem);
      if (problem !== undefined) p.add(`certificates.${i}`, problem);
    });
  }

  p.throwIfAny(TrustedIssuerBody);
  return {
    name: body.name,
    formats: [...body.formats],
    ...(body.types ? { types: [...body.types] } : {}),
    ...(body.certificates ? { certificates: [...body.certificates] } : {}),
    ...(body.did !== undefined ? { did: body.did } : {}),
  };
}

const missing = () => notFound('The tenant has no such trusted issuer');
const atLimit = () => limitReached(MAX_TRUSTED_ISSUERS_PER_TENANT, 'trusted issuers', 'trusted issuers', 'trustedIssuers');
/** Ids are UUIDs: anything else is a 400 naming the path's id, never sent to the store. */
function checkId(id: string): string {
  if (!isUuid(id)) throw invalidField('id', 'A trusted issuer id (UUID)', id, 'params');
  return id;
}

/** Trusted issuers: create, list, read, replace, delete; each change forgets the tenant's cached anchors. */
export function createTrustedIssuerService(deps: TrustedIssuerDeps): TrustedIssuerService {
  const { store, clock, ids, events, x509 } = deps;
  const cacheMs = deps.cacheMs ?? 5000;
  const { run, list } = adminOperations(events, 'verification');
  const meta = (v: TrustedIssuerView) => ({ id: v.id, anchors: v.did !== undefined ? 'did' : 'certificates', formats: v.formats });
  const find = (ctx: RequestContext, id: string) => requireFound(store.trustedIssuers.get(ctx.tenant.id, checkId(id)), missing);

  // The tenant's issuers: reused for cacheMs; a load started before an invalidation is not kept.
  const cache = new Map<string, { list: TrustedIssuer[]; until: number }>();
  const generations = new Map<string, number>();
  const now = () => clock.now().getTime();
  const invalidate = (tenantId: string) => {
    cache.delete(tenantId);
    generations.set(tenantId, (generations.get(tenantId) ?? 0) + 1);
  };
  async function issuersOf(tenantId: string): Promise<TrustedIssuer[]> {
    const hit = cache.get(tenantId);
    if (hit && now() < hit.until) return hit.list;
    const generation = generations.get(tenantId) ?? 0;
    // The per-tenant limit keeps them all in one page.
    const slice = await store.trustedIssuers.list(tenantId, { limit: MAX_TRUSTED_ISSUERS_PER_TENANT + 1 });
    if ((generations.get(tenantId) ?? 0) === generation && cacheMs > 0) cache.set(tenantId, { list: slice.items, until: now() + cacheMs });
    return slice.items;
  }

  return {
    create(ctx, input) {
      return run(ctx, 'TRUSTED_ISSUER_CREATE', { input, meta }, async () => {
        const at = clock.now();
        const settings = checkTrustedIssuerInput(input, { x509, now: at });
        const iso = at.toISOString();
        const issuer: TrustedIssuer = { ...settings, id: ids.uuid(), tenantId: ctx.tenant.id, createdAt: iso, updatedAt: iso };
        if (!(await store.trustedIssuers.insert(issuer, MAX_TRUSTED_ISSUERS_PER_TENANT))) throw atLimit();
        invalidate(ctx.tenant.id);
        return trustedIssuerView(issuer);
      });
    },

    list: (ctx, query) => list(ctx, 'TRUSTED_ISSUER_LIST', query, (page) => store.trustedIssuers.list(ctx.tenant.id, page), trustedIssuerView),

    get: (ctx, id) => run(ctx, 'TRUSTED_ISSUER_RETRIEVE', { meta }, async () => trustedIssuerView(await find(ctx, id))),

    update(ctx, id, input) {
      return run(ctx, 'TRUSTED_ISSUER_UPDATE', { input, meta }, async () => {
        const existing = await find(ctx, id);
        const at = clock.now();
        const settings = checkTrustedIssuerInput(input, { x509, now: at });
        const issuer: TrustedIssuer = { ...settings, id: existing.id, tenantId: existing.tenantId, createdAt: existing.createdAt, updatedAt: at.toISOString() };
        // Deleted between the read and the write.
        if (!(await store.trustedIssuers.update(issuer))) throw missing();
        invalidate(ctx.tenant.id);
        return trustedIssuerView(issuer);
      });
    },

    delete(ctx, id) {
      return run(ctx, 'TRUSTED_ISSUER_DELETE', { meta: () => ({ id }) }, async () => {
        if (!(await store.trustedIssuers.delete(ctx.tenant.id, checkId(id)))) throw missing();
        invalidate(ctx.tenant.id);
      });
    },

    async anchorsFor(tenantId, format) {
      return (await issuersOf(tenantId)).filter((t) => t.formats.includes(format)).flatMap(anchorsOf);
    },

    invalidate,
  };
}
