import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { requestContext } from '../context.ts';
import { sendDpopNonce, walletProofHeaders } from '../proof-headers.ts';
import { AuthorizationFields, PushedAuthorizationResponse } from '../schemas/oauth.ts';
import type { VellumServices } from '../services.ts';
import { documentedResponses } from '../schemas/documented.ts';
import { walletClientRequest, walletOAuth } from './oauth.ts';

const { tags, config: oauth, errors } = walletOAuth;

/**
 * The browser's side of the Authorization Code flow (OpenID4VCI 1.0 §5; RFC 9126; docs/authorization-code.md):
 * the authorization endpoint, pushed authorization requests, and the two callbacks the identity
 * provider and the interaction hook send the browser back to. Each step answers 303 See Other.
 */
export const authorizationRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const basePath = app.prefix;
  const flow = services.authorizationFlow;
  // A redirect is never cached, and its URL (which may carry a code) is not sent on as a Referer.
  const redirect = (reply: FastifyReply, location: string) =>
    reply.code(303).header('location', location).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();

  // The browser's steps (the flow's method `step`), each answering 303 to the next.
  const steps = [
    {
      path: '/v1/oauth/authorize',
      summary: 'Authorization endpoint (Authorization Code flow)',
      next: 'On to the identity provider, the interaction hook, or back to the wallet with a code or an error.',
      step: 'authorize',
    },
    {
      path: '/v1/oauth/authentication/callback',
      summary: 'Return from the identity provider',
      next: 'On to the interaction hook, or back to the wallet with a code or an error.',
      step: 'authenticationCallback',
    },
    {
      path: '/v1/oauth/interaction/callback',
      summary: 'Return from the interaction hook',
      next: 'Back to the wallet with a code or an error.',
      step: 'interactionCallback',
    },
  ] as const;
  for (const { path, summary, next, step } of steps) {
    app.get(
      path,
      {
        config: oauth,
        schema: { tags, summary, documentOnly: { responses: { 303: documentedResponses.redirect(next) } }, querystring: AuthorizationFields, response: errors },
      },
      async (request, reply) => redirect(reply, (await flow[step](requestContext(request), request.query, basePath)).location),
    );
  }

  app.post(
    '/v1/oauth/par',
    {
      config: oauth,
      schema: {
        tags,
        summary: 'Push an authorization request (RFC 9126)',
        consumes: ['application/x-www-form-urlencoded'],
        ...walletClientRequest,
        body: AuthorizationFields,
        response: { 201: PushedAuthorizationResponse, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = requestContext(request);
      const pushed = await flow.pushAuthorizationRequest(ctx, request.body ?? {}, request.headers.authorization, basePath, walletProofHeaders(request));
      sendDpopNonce(reply, services.dpop.freshNonce(ctx));
      return reply.code(201).header('cache-control', 'no-store').send(pushed);
    },
  );
};
