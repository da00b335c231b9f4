// The admin's half of deferred issuance (docs/deferred-issuance.md): the requests waiting for
// review, and their approval or denial. The wallet collects what was approved at the deferred
// credential endpoint (deferred.ts).

import type { EventRecorder } from '../events/recorder.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { Store } from '../ports.ts';
import { adminOperations } from '../shared/admin-resource.ts';
import { conflict, type ErrorDetail, notFound, validationError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { Page, PageQuery, PageRequest } from '../shared/pagination.ts';
import type { Clock, SecretBox } from '../shared/ports.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { DEFERRED_STATUSES, type DeferredIssuanceFilter, type DeferredIssuanceRecord, type DeferredStatus } from './deferred-model.ts';
import { openDeferredSubject } from './deferred.ts';

export interface DeferredIssuanceServiceDeps {
  store: Store;
  clock: Clock;
  secrets: SecretBox;
  events: EventRecorder;
}

/** A deferred issuance as the admin API shows it: never the transaction_id (only its digest is kept), nor the digest. */
export interface DeferredIssuanceView {
  id: string;
  status: DeferredStatus;
  /** True once `expiresAt` has passed: the wallet can no longer collect it, and it can no longer be decided. */
  expired: boolean;
  credentialConfigurationId: string;
  format: string;
  userId: string;
  offerId: string;
  grant: 'pre-authorized_code' | 'authorization_code';
  clientId?: string;
  clientInstanceId?: string;
  holderKeys: PublicJwk[];
  intervalSeconds: number;
  createdAt: string;
  expiresAt: string;
  decidedAt?: string;
  decidedBy?: string;
  reason?: string;
  issuedAt?: string;
  credentialIds?: string[];
  /** The claims the credentials will be issued from: on a single read, to callers that may read users' claims, until erased. */
  claims?: Record<string, unknown>;
}

export interface DeferredIssuanceListQuery extends PageQuery {
  status?: string | undefined;
}

/** `/v2/credentials/deferred` (permission `credentials`). */
export interface DeferredIssuanceService {
  list(ctx: RequestContext, query: DeferredIssuanceListQuery): Promise<Page<DeferredIssuanceView>>;
  get(ctx: RequestContext, id: string): Promise<DeferredIssuanceView>;
  /** Approves a pending issuance: the wallet's next poll gets the credentials. 409 unless pending and unexpired. */
  approve(ctx: RequestContext, id: string): Promise<DeferredIssuanceView>;
  /** Denies a pending issuance (`credential_request_denied` to the wallet) and erases its claims. 409 unless pending and unexpired. */
  deny(ctx: RequestContext, id: string, input: { reason?: string } | undefined): Promise<DeferredIssuanceView>;
}

const MAX_REASON = 1000;

/** Renders a record for the admin API; `now` decides `expired`. */
export function deferredIssuanceView(r: DeferredIssuanceRecord, now: Date): DeferredIssuanceView {
  return {
    id: r.id,
    status: r.status,
    expired: r.expiresAt <= now.toISOString(),
    credentialConfigurationId: r.credentialConfigurationId,
    format: r.format,
    userId: r.userId,
    offerId: r.offerId,
    grant: r.grant ?? 'pre-authorized_code',
    ...(r.clientId === undefined ? {} : { clientId: r.clientId }),
    ...(r.clientInstanceId === undefined ? {} : { clientInstanceId: r.clientInstanceId }),
    holderKeys: r.holderKeys,
    intervalSeconds: r.intervalSeconds,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    ...(r.decidedAt === undefined ? {} : { decidedAt: r.decidedAt }),
    ...(r.decidedBy === undefined ? {} : { decidedBy: r.decidedBy }),
    ...(r.reason === undefined ? {} : { reason: r.reason }),
    ...(r.issuedAt === undefined ? {} : { issuedAt: r.issuedAt }),
    ...(r.credentialIds === undefined ? {} : { credentialIds: r.credentialIds }),
  };
}

function filterOf(query: DeferredIssuanceListQuery): DeferredIssuanceFilter {
  if (query.status === undefined) return {};
  if ((DEFERRED_STATUSES as readonly string[]).includes(query.status)) return { status: query.status as DeferredStatus };
  throw validationError([{ value: query.status, msg: `One of ${DEFERRED_STATUSES.join(', ')}`, param: 'status', location: 'query' }]);
}

/** The id in a path, checked: a 400 for one that cannot be an id. */
function checkId(id: string): string {
  if (!isUuid(id)) throw validationError([{ value: id, msg: 'A deferred issuance id (UUID)', param: 'id', location: 'params' } satisfies ErrorDetail]);
  return id.toLowerCase();
}

const missing = () => notFound('The tenant has no such deferred issuance');

/** Deferred issuances for the admin API (docs/deferred-issuance.md). */
export function createDeferredIssuanceService(deps: DeferredIssuanceServiceDeps): DeferredIssuanceService {
  const { store, clock, secrets, events } = deps;
  const operations = adminOperations(events, 'credentials');
  const meta = (v: DeferredIssuanceView) => ({ deferredIssuanceId: v.id, status: v.status });

  async function find(ctx: RequestContext, id: string): Promise<DeferredIssuanceRecord> {
    const record = await store.deferredIssuances.get(ctx.tenant.id, checkId(id));
    if (!record) throw missing();
    return record;
  }

  /** Records a decision, conditional on the record being pending and unexpired; the record as it is afterwards. */
  async function decide(ctx: RequestContext, id: string, status: 'approved' | 'denied', reason?: string): Promise<DeferredIssuanceView> {
    const record = await find(ctx, id);
    const now = clock.now();
    const decided = await store.deferredIssuances.decide(
      ctx.tenant.id,
      record.id,
      { status, decidedAt: now.toISOString(), ...(ctx.requestor ? { decidedBy: ctx.requestor.clientId } : {}), ...(reason === undefined ? {} : { reason }) },
      now.toISOString(),
    );
    if (!decided) {
      const current = (await store.deferredIssuances.get(ctx.tenant.id, record.id)) ?? record;
      if (current.expiresAt <= now.toISOString()) throw conflict('This deferred issuance has expired: it can no longer be decided');
      throw conflict(`This deferred issuance is ${current.status}, no longer pending`);
    }
    const after = await store.deferredIssuances.get(ctx.tenant.id, record.id);
    if (!after) throw missing();
    return deferredIssuanceView(after, now);
  }

  return {
    list(ctx, query) {
      const now = clock.now();
      const read = (page: PageRequest) => store.deferredIssuances.list(ctx.tenant.id, filterOf(query), page);
      return operations.list(ctx, 'DEFERRED_CREDENTIAL_LIST', query, read, (r) => deferredIssuanceView(r, now), { input: query });
    },

    get(ctx, id) {
      return operations.run(ctx, 'DEFERRED_CREDENTIAL_RETRIEVE', { meta, keepResponse: false }, async () => {
        const record = await find(ctx, id);
        const view = deferredIssuanceView(record, clock.now());
        // The claims go to those who may read users' claims anyway (GET /v1/users/{id}); never into events.
        if (ctx.requestor?.permissions.has('users')) {
          const sealed = openDeferredSubject(secrets, record);
          if (sealed) view.claims = sealed.subject.claims;
        }
        return view;
      });
    },

    approve(ctx, id) {
      return operations.run(ctx, 'DEFERRED_CREDENTIAL_APPROVE', { input: { id }, meta }, () => decide(ctx, id, 'approved'));
    },

    deny(ctx, id, input) {
      return operations.run(ctx, 'DEFERRED_CREDENTIAL_DENY', { input: { id }, meta }, async () => {
        const reason = input?.reason;
        if (reason !== undefined && (typeof reason !== 'string' || reason.trim() === '' || reason.length > MAX_REASON))
          throw validationError([{ value: reason, msg: `Text of 1 to ${MAX_REASON} characters`, param: 'reason', location: 'body' }]);
        return decide(ctx, id, 'denied', reason);
      });
    },
  };
}
