import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { UserBody, UserListQuery, UserParams, UserResponse, UserSearchBody, UsersPage } from '../schemas/users.ts';
import type { VellumServices } from '../services.ts';
import { adminErrors, resourceRoutes } from './resource.ts';

const tags = ['Users'];
const config = { permission: 'users' } as const;

/** docs/decisions.md "Users, offers, the token and nonce endpoints": the tenant's users and their persisted claims. */
export const userRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const users = services.users;

  // `{ claims? }`: a request without a body makes a user without claims.
  const emptyBodyIsEmptyObject = async (request: { body: unknown }) => {
    if (request.body === undefined || request.body === null) request.body = {};
  };

  app.post(
    '/v1/users/search',
    {
      config,
      preValidation: emptyBodyIsEmptyObject,
      schema: { tags, summary: 'Search users by claims', body: UserSearchBody, response: { 200: UsersPage, ...adminErrors } },
    },
    async (request) => users.search(requestContext(request), request.body),
  );

  resourceRoutes(app, {
    path: '/v1/users',
    params: UserParams,
    tags,
    config,
    service: users,
    create: {
      summary: 'Create a user',
      body: UserBody,
      response: UserResponse,
      preValidation: emptyBodyIsEmptyObject,
    },
    list: { summary: 'List users', querystring: UserListQuery, response: UsersPage },
    get: { summary: 'Get a user', response: UserResponse },
    replace: { summary: 'Replace a user’s claims', body: UserBody, response: UserResponse },
    delete: { summary: 'Delete a user' },
  });
};
