import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { RequestContext } from '@vellum/core';
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';

/** The failures an admin route documents (docs/errors.md). */
export const adminErrors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };

type App = Parameters<FastifyPluginAsyncTypebox>[0];

interface Operation<Response extends TSchema> {
  summary: string;
  response: Response;
  /** Another permission than the resource's. */
  config?: FastifyContextConfig;
  /** The answer shows a secret: `cache-control: no-store`. */
  noStore?: boolean;
}

/**
 * An admin collection at `path` and its items at `path/:id`, each operation the service's method it
 * runs: create (201), list, get, replace (PUT), delete (204) and actions, all optional.
 */
export interface Resource<
  CreateBody extends TSchema,
  Created extends TSchema,
  Query extends TSchema,
  Page extends TSchema,
  Item extends TSchema,
  ReplaceBody extends TSchema,
  Replaced extends TSchema,
  Actions extends Record<string, TSchema>,
> {
  path: string;
  /** The schema of the one path parameter that names an item. */
  params: TObject;
  tags: string[];
  config: FastifyContextConfig;
  /** The failures it documents: adminErrors unless given. */
  errors?: Record<number, TSchema>;
  create?: Operation<Created> & {
    body: CreateBody;
    preValidation?: (request: FastifyRequest) => Promise<void>;
    run: (ctx: RequestContext, body: Static<CreateBody>) => Promise<Static<Created>>;
  };
  list?: Operation<Page> & { querystring?: Query; run: (ctx: RequestContext, query: Static<Query>) => Promise<Static<Page>> };
  get?: Operation<Item> & { run: (ctx: RequestContext, id: string) => Promise<Static<Item>> };
  replace?: Operation<Replaced> & {
    body: ReplaceBody;
    run: (ctx: RequestContext, id: string, body: Static<ReplaceBody>) => Promise<Static<Replaced>>;
  };
  delete?: Omit<Operation<TSchema>, 'response'> & { run: (ctx: RequestContext, id: string) => Promise<void> };
  /** `POST path/:id/<name>`: an action on one item, that answers 200. */
  actions?: { [Name in keyof Actions]: Action<Actions[Name]> };
}

type Action<Answer extends TSchema> = Operation<Answer> & { run: (ctx: RequestContext, id: string) => Promise<Static<Answer>> };

/** Registers a resource's routes, in the order create, list, get, replace, delete, actions. */
export function resourceRoutes<
  CreateBody extends TSchema,
  Created extends TSchema,
  Query extends TSchema,
  Page extends TSchema,
  Item extends TSchema,
  ReplaceBody extends TSchema,
  Replaced extends TSchema,
  Actions extends Record<string, TSchema>,
>(app: App, resource: Resource<CreateBody, Created, Query, Page, Item, ReplaceBody, Replaced, Actions>): void {
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

  const { create, list, get, replace } = resource;
  if (create) {
    app.post(
      path,
      { ...options(create, 201, create.response, { body: create.body }), ...(create.preValidation ? { preValidation: create.preValidation } : {}) },
      async (request, reply) => send(reply, 201, create.noStore, await create.run(requestContext(request), request.body as Static<CreateBody>)),
    );
  }
  if (list) {
    app.get(path, options(list, 200, list.response, list.querystring ? { querystring: list.querystring } : {}), async (request, reply) =>
      send(reply, 200, list.noStore, await list.run(requestContext(request), request.query as Static<Query>)),
    );
  }
  if (get) {
    app.get(item, options(get, 200, get.response, { params }), async (request, reply) =>
      send(reply, 200, get.noStore, await get.run(requestContext(request), idOf(request))),
    );
  }
  if (replace) {
    app.put(item, options(replace, 200, replace.response, { params, body: replace.body }), async (request, reply) =>
      send(reply, 200, replace.noStore, await replace.run(requestContext(request), idOf(request), request.body as Static<ReplaceBody>)),
    );
  }
  const remove = resource.delete;
  if (remove) {
    app.delete(item, options(remove, 204, NoContent, { params }), async (request, reply) => {
      await remove.run(requestContext(request), idOf(request));
      return reply.code(204).send();
    });
  }
  for (const [name, action] of Object.entries<Action<TSchema>>(resource.actions ?? {})) {
    app.post(`${item}/${name}`, options(action, 200, action.response, { params }), async (request, reply) =>
      send(reply, 200, action.noStore, await action.run(requestContext(request), idOf(request))),
    );
  }
}
