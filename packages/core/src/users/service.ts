import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids } from '../shared/ports.ts';
import { adminCollection, type CollectionService, countMeta } from '../shared/admin-resource.ts';
import { isDomainError, notFound, validationError } from '../shared/errors.ts';
import { type Page, type PageQuery, type PageRequest, parsePageQuery, toPage } from '../shared/pagination.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { AuthenticationProviderRef, UserRecord } from './model.ts';
import { checkUserId, checkUserInput, checkUserSearch, type UserSearchInput } from './rules.ts';

export interface UserDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
}

/** A user as the API shows it (docs/decisions.md "Users, offers, the token and nonce endpoints"). */
export interface UserView {
  id: string;
  claims: Record<string, unknown>;
  authenticationProvider?: AuthenticationProviderRef;
  createdAt: string;
  updatedAt: string;
}

export type UserListQuery = PageQuery;

/**
 * docs/decisions.md "Users, offers, the token and nonce endpoints": the tenant's users and the claims
 * persisted on them. `update` replaces the user's claims (PUT): claims left out are removed. `delete`
 * removes the user and its offers (their codes stop working).
 */
export interface UserService extends CollectionService<UserView> {
  /** Users whose claims hold every given value, and whose provider subject is the one given. */
  search(ctx: RequestContext, input: UserSearchInput): Promise<Page<UserView>>;
}

/** Renders a stored user as the API shows it. */
export function userView(u: UserRecord): UserView {
  return {
    id: u.id,
    claims: u.claims,
    ...(u.authenticationProvider ? { authenticationProvider: u.authenticationProvider } : {}),
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
  };
}

const missing = () => notFound('The tenant has no such user');

/** A page request read from a body: the same rules as the query of list operations, reported on `body`. */
function pageFromBody(limit: number | undefined, cursor: string | undefined): PageRequest {
  try {
    return parsePageQuery({ limit, cursor });
  } catch (error) {
    if (!isDomainError(error) || !error.details) throw error;
    throw validationError(error.details.map((d) => ({ ...d, location: 'body' })));
  }
}

/** Users (docs/decisions.md "Users, offers, the token and nonce endpoints"): create, list, read, replace, delete, search. Permission `users`. */
export function createUserService(deps: UserDeps): UserService {
  const { store, clock, ids, events } = deps;
  const users = adminCollection({
    events,
    permission: 'users',
    stem: 'USER',
    records: () => store.users,
    view: userView,
    meta: (u) => ({ id: u.id }),
    checkId: checkUserId,
    missing,
  });

  return {
    create(ctx, input) {
      return users.create(ctx, input, () => {
        const { claims } = checkUserInput(input);
        const now = clock.now().toISOString();
        return { id: ids.uuid(), tenantId: ctx.tenant.id, claims, createdAt: now, updatedAt: now };
      });
    },

    list: users.list,
    get: users.get,

    update(ctx, id, input) {
      return users.update(ctx, input, async () => {
        const existing = await users.find(ctx, id);
        const { claims } = checkUserInput(input);
        return { ...existing, claims, updatedAt: clock.now().toISOString() };
      });
    },

    delete: users.delete,

    search(ctx, input) {
      return users.run(ctx, 'USER_SEARCH', { input, meta: countMeta }, async () => {
        const { filter, limit, cursor } = checkUserSearch(input);
        const page = pageFromBody(limit, cursor);
        return toPage(await store.users.list(ctx.tenant.id, page, filter), page, userView);
      });
    },
  };
}
