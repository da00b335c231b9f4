import { isUuid } from '../shared/ids.ts';
import { CREDENTIAL_FORMATS, type CredentialFormat } from '../configurations/model.ts';
import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import { type ErrorDetail, notFound, validationError } from '../shared/errors.ts';
import { type Page, type PageQuery, type PageRequest, parsePageQuery, toPage } from '../shared/pagination.ts';
import { adminOperations, countMeta } from '../shared/admin-resource.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { IssuedCredentialFilter, IssuedCredentialRecord } from './model.ts';

export interface IssuedCredentialDeps {
  store: Store;
  events: EventRecorder;
}

/** An issued-credential record as the API shows it (docs/decisions.md "The credential endpoint"), with the wallet's last notification. */
export type IssuedCredentialView = Omit<IssuedCredentialRecord, 'tenantId' | 'notificationId'>;

export interface IssuedCredentialListQuery extends PageQuery {
  format?: string | undefined;
  userId?: string | undefined;
  credentialConfigurationId?: string | undefined;
}

/** docs/decisions.md "The credential endpoint": what was issued, of every format; the credentials themselves are never kept. */
export interface IssuedCredentialService {
  /** `GET /v2/credentials` (permission `credentials`), filtered by format, user and configuration. */
  list(ctx: RequestContext, query: IssuedCredentialListQuery): Promise<Page<IssuedCredentialView>>;
  /** `GET /v1/users/{id}/credentials` (permission `users`): 404 for a user the tenant does not have. */
  listForUser(ctx: RequestContext, userId: string, query: PageQuery): Promise<Page<IssuedCredentialView>>;
}

/** Renders a record as the API shows it: no tenant, no notification id (the wallet's handle). */
export function issuedCredentialView(r: IssuedCredentialRecord): IssuedCredentialView {
  return {
    id: r.id,
    format: r.format,
    credentialConfigurationId: r.credentialConfigurationId,
    userId: r.userId,
    ...(r.offerId === undefined ? {} : { offerId: r.offerId }),
    ...(r.clientId === undefined ? {} : { clientId: r.clientId }),
    ...(r.clientInstanceId === undefined ? {} : { clientInstanceId: r.clientInstanceId }),
    issuedAt: r.issuedAt,
    validFrom: r.validFrom,
    validUntil: r.validUntil,
    status: r.status,
    ...(r.notification ? { notification: r.notification } : {}),
  };
}

/** The filters of a list query, each checked; every problem is reported at once. */
function filterOf(query: IssuedCredentialListQuery): IssuedCredentialFilter {
  const details: ErrorDetail[] = [];
  const filter: IssuedCredentialFilter = {};
  if (query.format !== undefined) {
    if ((CREDENTIAL_FORMATS as readonly string[]).includes(query.format)) filter.format = query.format as CredentialFormat;
    else details.push({ value: query.format, msg: `One of ${CREDENTIAL_FORMATS.join(', ')}`, param: 'format', location: 'query' });
  }
  for (const param of ['userId', 'credentialConfigurationId'] as const) {
    const value = query[param];
    if (value === undefined) continue;
    if (isUuid(value)) filter[param] = value.toLowerCase();
    else details.push({ value, msg: 'A UUID', param, location: 'query' });
  }
  if (details.length > 0) throw validationError(details);
  return filter;
}

/** Issued-credential records (docs/decisions.md "The credential endpoint") for the admin API. */
export function createIssuedCredentialService(deps: IssuedCredentialDeps): IssuedCredentialService {
  const { store, events } = deps;
  const credentials = adminOperations(events, 'credentials');
  const users = adminOperations(events, 'users');

  return {
    list(ctx, query) {
      const read = (page: PageRequest) => store.issuedCredentials.list(ctx.tenant.id, filterOf(query), page);
      return credentials.list(ctx, 'ISSUED_CREDENTIAL_LIST', query, read, issuedCredentialView, { input: query });
    },

    listForUser(ctx, userId, query) {
      return users.run(ctx, 'USER_CREDENTIAL_LIST', { input: { userId, ...query }, meta: countMeta }, async () => {
        if (!isUuid(userId)) throw validationError([{ value: userId, msg: 'A user id (UUID)', param: 'id', location: 'params' }]);
        const id = userId.toLowerCase();
        const page = parsePageQuery(query);
        if (!(await store.users.get(ctx.tenant.id, id))) throw notFound('The tenant has no such user');
        return toPage(await store.issuedCredentials.list(ctx.tenant.id, { userId: id }, page), page, issuedCredentialView);
      });
    },
  };
}
