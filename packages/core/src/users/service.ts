import { type EventRecorder, withEvents } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids } from '../shared/ports.ts';
import { isDomainError, notFound, validationError } from '../shared/errors.ts';
import { type Page, type PageRequest, parsePageQuery, toPage } from '../shared/pagination.ts';
import { requirePermission } from '../tenancy/admin-auth.ts';
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

export interface UserListQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** docs/decisions.md "Users, offers, the token and nonce endpoints": the tenant's users and the claims persisted on them. */
export interface UserService {
  create(ctx: RequestContext, input: unknown): Promise<UserView>;
  list(ctx: RequestContext, query: UserListQuery): Promise<Page<UserView>>;
  get(ctx: RequestContext, id: string): Promise<UserView>;
  /** Replaces the user's claims (PUT): claims left out are removed. */
  update(ctx: RequestContext, id: string, input: unknown): Promise<UserView>;
  /** Removes the user and its offers (their codes stop working). */
  delete(ctx: RequestContext, id: string): Promise<void>;
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
  const meta = (u: UserView) => ({ id: u.id });

  async function find(ctx: RequestContext, id: string): Promise<UserRecord> {
    const user = await store.users.get(ctx.tenant.id, checkUserId(id));
    if (!user) throw missing();
    return user;
  }

  return {
    create(ctx, input) {
      return withEvents(
        events,
        ctx,
        'USER_CREATE',
        async () => {
          requirePermission(ctx, 'users');
          const { claims } = checkUserInput(input);
          const now = clock.now().toISOString();
          const user: UserRecord = { id: ids.uuid(), tenantId: ctx.tenant.id, claims, createdAt: now, updatedAt: now };
          await store.users.insert(user);
          return userView(user);
        },
        { input, meta },
      );
    },

    list(ctx, query) {
      return withEvents(
        events,
        ctx,
        'USER_LIST',
        async () => {
          requirePermission(ctx, 'users');
          return toPage(await store.users.list(ctx.tenant.id, parsePageQuery(query)), userView);
        },
        { meta: (p) => ({ count: p.data.length }) },
      );
    },

    get(ctx, id) {
      return withEvents(
        events,
        ctx,
        'USER_RETRIEVE',
        async () => {
          requirePermission(ctx, 'users');
          return userView(await find(ctx, id));
        },
        { meta },
      );
    },

    update(ctx, id, input) {
      return withEvents(
        events,
        ctx,
        'USER_UPDATE',
        async () => {
          requirePermission(ctx, 'users');
          const existing = await find(ctx, id);
          const { claims } = checkUserInput(input);
          const user: UserRecord = { ...existing, claims, updatedAt: clock.now().toISOString() };
          // Deleted between the read and the write.
          if (!(await store.users.update(user))) throw missing();
          return userView(user);
        },
        { input, meta },
      );
    },

    delete(ctx, id) {
      return withEvents(
        events,
        ctx,
        'USER_DELETE',
        async () => {
          requirePermission(ctx, 'users');
          if (!(await store.users.delete(ctx.tenant.id, checkUserId(id)))) throw missing();
        },
        { meta: () => ({ id }) },
      );
    },

    search(ctx, input) {
      return withEvents(
        events,
        ctx,
        'USER_SEARCH',
        async () => {
          requirePermission(ctx, 'users');
          const { filter, limit, cursor } = checkUserSearch(input);
          return toPage(await store.users.list(ctx.tenant.id, pageFromBody(limit, cursor), filter), userView);
        },
        { input, meta: (p) => ({ count: p.data.length }) },
      );
    },
  };
}
