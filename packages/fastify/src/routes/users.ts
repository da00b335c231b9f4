import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';
import { UserBody, UserListQuery, UserParams, UserResponse, UserSearchBody, UsersPage } from '../schemas/users.ts';
import type { VellumServices } from '../services.ts';

const tags = ['Users'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
const config = { permission: 'users' } as const;

/** docs/decisions.md "Users, offers, the token and nonce endpoints": the tenant's users and their persisted claims. */
export const userRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const users = services.users;

  // `{ claims? }`: a request without a body makes a user without claims.
  const emptyBodyIsEmptyObject = async (request: { body: unknown }) => {
    if (request.body === undefined || request.body === null) request.body = {};
  };

  app.post(
    '/v1/users',
    { config, preValidation: emptyBodyIsEmptyObject, schema: { tags, summary: 'Create a user', body: UserBody, response: { 201: UserResponse, ...errors } } },
    async (request, reply) => reply.code(201).send(await users.create(requestContext(request), request.body)),
  );

  app.get(
    '/v1/users',
    { config, schema: { tags, summary: 'List users', querystring: UserListQuery, response: { 200: UsersPage, ...errors } } },
    async (request) => users.list(requestContext(request), request.query),
  );

  app.post(
    '/v1/users/search',
    {
      config,
      preValidation: emptyBodyIsEmptyObject,
      schema: { tags, summary: 'Search users by claims', body: UserSearchBody, response: { 200: UsersPage, ...errors } },
    },
    async (request) => users.search(requestContext(request), request.body),
  );

  app.get(
    '/v1/users/:id',
    { config, schema: { tags, summary: 'Get a user', params: UserParams, response: { 200: UserResponse, ...errors } } },
    async (request) => users.get(requestContext(request), request.params.id),
  );

  app.put(
    '/v1/users/:id',
    { config, schema: { tags, summary: 'Replace a user’s claims', params: UserParams, body: UserBody, response: { 200: UserResponse, ...errors } } },
    async (request) => users.update(requestContext(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/users/:id',
    { config, schema: { tags, summary: 'Delete a user', params: UserParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await users.delete(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );
};
