import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { RequestContext } from '@vellum/core';
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';
import type { VellumServices } from '../services.ts';

/** The failures an admin route that never conflicts documents (docs/errors.md). */
export const adminErrorsWithoutConflict = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema };

/** The failures an admin route documents (docs/errors.md). */
export const adminErrors = { ...adminErrorsWithoutConflict, 409: ErrorBodySchema };

type App = Parameters<FastifyPluginAsyncTypebox>[0];

interface Operation<Response extends TSchema> {
  summary: string;
  response: Response;
  /** Another permission than the resource's. */
  config?: FastifyContextConfig;
  /** The answer shows a secret: `cache-control: no-store`. */
  noStore?: boolean;
}

/** Where an admin collection lives: at `path`, its items at `path/:id`. */
interface Collection {
  path: string;
  /** The schema of the one path parameter that names an item. */
  params: TObject;
  tags: string[];
  config: FastifyContextConfig;
  /** The failures it documents: adminErrors unless given. */
  errors?: Record<number, TSchema>;
}

type Action<Answer extends TSchema> = Operation<Answer> & { run: (ctx: RequestContext, id: string) => Promise<Static<Answer>> };

/** An operation's `run`, which it may leave out when the service's method `Method` takes and answers what the operation does. */
type Runs<Service, Method extends string, Run> = [Service] extends [Record<Method, Run>] ? { run?: Run } : { run: Run };

/**
 * Registers an admin collection's routes, in the order create (201), list, get, replace (PUT),
 * delete (204) and actions, all optional. Each runs its own `run`, or else the `service`'s method
 * of the same name (`update` for replace), which must then take the operation's body and query and
 * answer its response.
 */
export function resourceRoutes<
  Service,
  CreateBody extends TSchema,
  Created extends TSchema,
  Query extends TSchema,
  Page extends TSchema,
  Item extends TSchema,
  ReplaceBody extends TSchema,
  Replaced extends TSchema,
  Actions extends Record<string, TSchema>,
>(
  app: App,
  resource: Collection & {
    service?: Service;
    create?: Operation<Created> & {
      body: CreateBody;
      preValidation?: (request: FastifyRequest) => Promise<void>;
    } & Runs<Service, 'create', (ctx: RequestContext, body: Static<CreateBody>) => Promise<Static<Created>>>;
    list?: Operation<Page> & { querystring?: Query } & Runs<Service, 'list', (ctx: RequestContext, query: Static<Query>) => Promise<Static<Page>>>;
    get?: Operation<Item> & Runs<Service, 'get', (ctx: RequestContext, id: string) => Promise<Static<Item>>>;
    replace?: Operation<Replaced> & { body: ReplaceBody } & Runs<
        Service,
        'update',
        (ctx: RequestContext, id: string, body: Static<ReplaceBody>) => Promise<Static<Replaced>>
      >;
    delete?: Omit<Operation<TSchema>, 'response'> & Runs<Service, 'delete', (ctx: RequestContext, id: string) => Promise<void>>;
    /** `POST path/:id/<name>`: an action on one item, that answers 200. */
    actions?: { [Name in keyof Actions]: Action<Actions[Name]> };
  },
): void {
  const { path, params, tags } = resource;
  const errors: Record<number, TSchema> = resource.errors ?? adminErrors;
  const [id, ...more] = Object.keys(params.properties);
  if (id === undefined || more.length > 0) throw new Error(`${path}: an item is named by one path parameter`);
  const item = `${path}/:${id}`;
  const idOf = (request: FastifyRequest) => (request.params as Record<string, string>)[id] as string;
  const options = (operation: { summary: string; config?: FastifyContextConfig }, status: number, response: TSchema, schema: object) => ({
    config: operation.config ?? resource.config,
    schema: { tags, summary: operation.summary, ...schema, response: { [status]: response, ...errors } },
  });
  const send = (reply: FastifyReply, status: number, noStore: boolean | undefined, answer: unknown) =>
    (noStore ? reply.header('cache-control', 'no-store') : reply).code(status).send(answer);
  const service = resource.service as Record<string, unknown> | undefined;
  /** The operation's own run, or else the service's `method` (the types above make sure it fits). */
  const runOf = <Run>(operation: { summary: string; run?: Run }, method: string): Run => {
    if (operation.run) return operation.run;
    const bound = service?.[method];
    if (typeof bound !== 'function') throw new Error(`${path}: "${operation.summary}" has no run, and the service no ${method}`);
    return bound.bind(service) as Run;
  };

  const { create, list, get, replace } = resource;
  if (create) {
    const run = runOf(create, 'create');
    app.post(
      path,
      { ...options(create, 201, create.response, { body: create.body }), ...(create.preValidation ? { preValidation: create.preValidation } : {}) },
      async (request, reply) => send(reply, 201, create.noStore, await run(requestContext(request), request.body as Static<CreateBody>)),
    );
  }
  if (list) {
    const run = runOf(list, 'list');
    app.get(path, options(list, 200, list.response, list.querystring ? { querystring: list.querystring } : {}), async (request, reply) =>
      send(reply, 200, list.noStore, await run(requestContext(request), request.query as Static<Query>)),
    );
  }
  if (get) {
    const run = runOf(get, 'get');
    app.get(item, options(get, 200, get.response, { params }), async (request, reply) =>
      send(reply, 200, get.noStore, await run(requestContext(request), idOf(request))),
    );
  }
  if (replace) {
    const run = runOf(replace, 'update');
    app.put(item, options(replace, 200, replace.response, { params, body: replace.body }), async (request, reply) =>
      send(reply, 200, replace.noStore, await run(requestContext(request), idOf(request), request.body as Static<ReplaceBody>)),
    );
  }
  const remove = resource.delete;
  if (remove) {
    const run = runOf(remove, 'delete');
    app.delete(item, options(remove, 204, NoContent, { params }), async (request, reply) => {
      await run(requestContext(request), idOf(request));
      return reply.code(204).send();
    });
  }
  for (const [name, action] of Object.entries<Action<TSchema>>(resource.actions ?? {})) {
    app.post(`${item}/${name}`, options(action, 200, action.response, { params }), async (request, reply) =>
      send(reply, 200, action.noStore, await action.run(requestContext(request), idOf(request))),
    );
  }
}

/**
 * `routes` as a plugin over the services: it registers the table `describe` makes of them (and of
 * the app, for its prefix). A generic `routes` stays generic, its type parameters inferred from the table.
 */
function overServices<Table>(routes: (app: App, table: Table) => void) {
  return (describe: (services: VellumServices, app: App) => Table): FastifyPluginAsyncTypebox<{ services: VellumServices }> =>
    async (app, { services }) =>
      routes(app, describe(services, app));
}

/**
 * A plugin that serves one admin collection: resourceRoutes of the table `describe` makes. Inside
 * `describe`, a `run` that hands its body or query to a typed parameter names their type
 * (`Static<typeof Schema>`): TypeScript infers it there only after the run.
 */
export const resourcePlugin = overServices(resourceRoutes);
