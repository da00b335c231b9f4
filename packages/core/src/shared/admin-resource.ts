// The steps the admin API's operations share: the permission check between the operation's events
// (docs/decisions.md "Analytic events"), a page of the tenant's records (docs/decisions.md
// "Pagination"), a record or its 404, and the create, read, replace and delete of a collection.

import type { EventPrefix } from '../events/catalogue.ts';
import { type EventRecorder, withEvents } from '../events/recorder.ts';
import { requirePermission } from '../tenancy/admin-auth.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { Permission } from '../tenancy/permissions.ts';
import { type DomainError, isDomainError } from './errors.ts';
import type { TenantRecordRepository } from './ports.ts';
import { type Page, type PageQuery, type PageRequest, parsePageQuery, type Slice, toPage } from './pagination.ts';

/**
 * An admin API collection as a service offers it: create, list, read, replace (PUT) and delete. `V`
 * is what the API shows of a record, `C` and `U` what create and update take, `Q` the list's query.
 */
export interface CollectionService<V, C = unknown, U = C, Q extends PageQuery = PageQuery> {
  create(ctx: RequestContext, input: C): Promise<V>;
  list(ctx: RequestContext, query: Q): Promise<Page<V>>;
  get(ctx: RequestContext, id: string): Promise<V>;
  update(ctx: RequestContext, id: string, input: U): Promise<V>;
  delete(ctx: RequestContext, id: string): Promise<void>;
}

/** What a finished operation's events may keep of it (see withEvents). */
export type EventDescription<T> = Parameters<typeof withEvents<T>>[4];

/** What a list operation's events keep: how many items the page holds. */
export const countMeta = (page: Page<unknown>) => ({ count: page.data.length });

/** Admin operations that all need one permission. */
export interface AdminOperations {
  /**
   * Runs `work` between the operation's START and SUCCESS or FAIL events, once the caller is found
   * to hold the permission; `describe` says what the events keep of it (`{}`: the defaults).
   */
  run<T>(ctx: RequestContext, prefix: EventPrefix, describe: EventDescription<T>, work: () => Promise<T>): Promise<T>;
  /**
   * A list operation: the query's limit and cursor checked, then a page of `view`s of what `read`
   * returns for them; its events keep the count unless `describe` says otherwise.
   */
  list<R, V>(
    ctx: RequestContext,
    prefix: EventPrefix,
    query: PageQuery,
    read: (page: PageRequest) => Promise<Slice<R>>,
    view: (record: R) => V,
    describe?: EventDescription<Page<V>>,
  ): Promise<Page<V>>;
}

/** The admin operations that need `permission`, recorded by `events`. */
export function adminOperations(events: EventRecorder, permission: Permission): AdminOperations {
  const run: AdminOperations['run'] = (ctx, prefix, describe, work) =>
    withEvents(
      events,
      ctx,
      prefix,
      () => {
        requirePermission(ctx, permission);
        return work();
      },
      describe,
    );
  return {
    run,
    list: (ctx, prefix, query, read, view, describe) =>
      run(ctx, prefix, { meta: countMeta, ...describe }, async () => {
        const page = parsePageQuery(query);
        return toPage(await read(page), page, view);
      }),
  };
}

/** The record `lookup` finds, or the error `missing` makes (a 404 for the operation's resource); no lookup finds none. */
export async function requireFound<T>(lookup: Promise<T | undefined> | undefined, missing: () => DomainError): Promise<T> {
  const record = await lookup;
  if (!record) throw missing();
  return record;
}

/** What `write` gives, a Conflict from the store's unique rule replaced by the error `taken` makes (which says what is taken). */
export async function conflictAs<T>(write: Promise<T>, taken: () => DomainError | Promise<DomainError>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isDomainError(error) && error.code === 'Conflict') throw await taken();
    throw error;
  }
}

type CollectionOperation = 'CREATE' | 'LIST' | 'RETRIEVE' | 'UPDATE' | 'DELETE';

/** The event prefix stems that have every collection operation: `<STEM>_CREATE`, `_LIST`, `_RETRIEVE`, `_UPDATE`, `_DELETE`. */
export type CollectionStem = {
  [P in EventPrefix]: P extends `${infer S}_LIST` ? (`${S}_${CollectionOperation}` extends EventPrefix ? S : never) : never;
}[EventPrefix];

/** What a collection's operations need to know of it. */
export interface CollectionSpec<R, V> {
  events: EventRecorder;
  permission: Permission;
  stem: CollectionStem;
  /** Where the Store keeps its records (read on every call). */
  records: () => TenantRecordRepository<R>;
  view: (record: R) => V;
  /** What a finished operation's events keep of the view (level 2). */
  meta: (view: V) => Record<string, unknown>;
  /** The stored id a path's id names; a 400 for one that cannot be an id. */
  checkId: (id: string) => string;
  /** The collection's 404. */
  missing: () => DomainError;
}

/** The operations of one of a tenant's collections (create, list, read, replace, delete), each between its events. */
export interface AdminCollection<R, V> {
  run: AdminOperations['run'];
  /** The record a path's id names, or the collection's 404. */
  find(ctx: RequestContext, id: string): Promise<R>;
  list(ctx: RequestContext, query: PageQuery): Promise<Page<V>>;
  get(ctx: RequestContext, id: string): Promise<V>;
  /** Stores the record `make` builds and shows it. */
  create(ctx: RequestContext, input: unknown, make: () => R | Promise<R>): Promise<V>;
  /** Stores the record `replace` builds in place of the one it found, and shows it; the 404 when that one was deleted meanwhile. */
  update(ctx: RequestContext, input: unknown, replace: () => Promise<R>): Promise<V>;
  /** Removes the record a path's id names; the 404 when there is none. */
  delete(ctx: RequestContext, id: string): Promise<void>;
}

/** The collection's operations over the Store's records, with the permission and events `spec` names. */
export function adminCollection<R, V>(spec: CollectionSpec<R, V>): AdminCollection<R, V> {
  const { records, view, meta, checkId, missing } = spec;
  const { run, list } = adminOperations(spec.events, spec.permission);
  // CollectionStem guarantees the five prefixes exist.
  const prefix = (operation: CollectionOperation) => `${spec.stem}_${operation}` as EventPrefix;
  const find = async (ctx: RequestContext, id: string) => requireFound(records().get(ctx.tenant.id, checkId(id)), missing);
  /** Create and update: the record built, written, and shown. */
  const save = (ctx: RequestContext, operation: 'CREATE' | 'UPDATE', input: unknown, build: () => R | Promise<R>, write: (record: R) => Promise<void>) =>
    run(ctx, prefix(operation), { input, meta }, async () => {
      const record = await build();
      await write(record);
      return view(record);
    });
  return {
    run,
    find,
    list: (ctx, query) => list(ctx, prefix('LIST'), query, (page) => records().list(ctx.tenant.id, page), view),
    get: (ctx, id) => run(ctx, prefix('RETRIEVE'), { meta }, async () => view(await find(ctx, id))),
    create: (ctx, input, make) => save(ctx, 'CREATE', input, make, (record) => records().insert(record)),
    update: (ctx, input, replace) =>
      save(ctx, 'UPDATE', input, replace, async (record) => {
        if (!(await records().update(record))) throw missing();
      }),
    delete: (ctx, id) =>
      run(ctx, prefix('DELETE'), { meta: () => ({ id }) }, async () => {
        if (!(await records().delete(ctx.tenant.id, checkId(id)))) throw missing();
      }),
  };
}
