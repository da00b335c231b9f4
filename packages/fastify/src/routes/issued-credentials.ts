import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import {
  CredentialParams,
  IssuedCredentialListQuery,
  IssuedCredentialPage,
  RefreshRevocation,
  UserCredentialListQuery,
  UserCredentialParams,
} from '../schemas/issued-credentials.ts';
import type { VellumServices } from '../services.ts';
import { adminErrorsWithoutConflict } from './resource.ts';

const tags = ['Issued credentials'];

/** docs/decisions.md "The credential endpoint", docs/decisions.md "Users, offers, the token and nonce endpoints": issued-credential records, of every format and per user. */
export const issuedCredentialRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  app.get(
    '/v2/credentials',
    {
      config: { permission: 'credentials' },
      schema: {
        tags,
        summary: 'List issued credentials',
        querystring: IssuedCredentialListQuery,
        response: { 200: IssuedCredentialPage, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.issuedCredentials.list(requestContext(request), request.query),
  );

  app.get(
    '/v1/users/:id/credentials',
    {
      config: { permission: 'users' },
      schema: {
        tags,
        summary: 'List a user’s issued credentials',
        params: UserCredentialParams,
        querystring: UserCredentialListQuery,
        response: { 200: IssuedCredentialPage, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.issuedCredentials.listForUser(requestContext(request), request.params.id, request.query),
  );

  // docs/refresh-tokens.md: the tenant revokes refresh token families, of a user or of one credential.
  app.post(
    '/v1/users/:id/refresh-tokens/revoke',
    {
      config: { permission: 'users' },
      schema: {
        tags,
        summary: 'Revoke every refresh token of a user',
        params: UserCredentialParams,
        response: { 200: RefreshRevocation, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.refreshTokens.revokeForUser(requestContext(request), request.params.id),
  );

  app.post(
    '/v2/credentials/:credentialId/refresh-tokens/revoke',
    {
      config: { permission: 'credentials' },
      schema: {
        tags,
        summary: 'Revoke the refresh tokens that issued a credential',
        params: CredentialParams,
        response: { 200: RefreshRevocation, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.refreshTokens.revokeForCredential(requestContext(request), request.params.credentialId),
  );
};
