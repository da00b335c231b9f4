// Presentation sessions over OpenID4VP 1.0 (docs/verification.md "Presentation sessions"): the
// tenant's admin API, and the wallet's request_uri, response_uri and the page for people.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isDomainError } from '@vellum/core';
import { requestContext } from '../context.ts';
import { ErrorBodySchema } from '../schemas/common.ts';
import {
  CreatedPresentationSessionResponse,
  CreateSessionBody,
  PresentationResponseAnswer,
  PresentationResponseBody,
  PresentationSessionParams,
  PresentationSessionQuery,
  PresentationSessionResponse,
  RequestUriPostBody,
} from '../schemas/presentation-sessions.ts';
import type { VellumServices } from '../services.ts';
import { escapeHtml, htmlDocument, qrSvg, sendPage } from './offer-page.ts';
import { adminErrorsWithoutConflict } from './resource.ts';

const tags = ['Presentation sessions'];
const FORM = ['application/x-www-form-urlencoded'];
// Wallet-facing: errors carry the OAuth fields and no-store (docs/errors.md); no token needed.
const wallet = { errorStyle: 'oauth' } as const;
const walletErrors = { 400: ErrorBodySchema, 404: ErrorBodySchema, 413: ErrorBodySchema, 415: ErrorBodySchema, 503: ErrorBodySchema };
const REQUEST_OBJECT_TYPE = 'application/oauth-authz-req+jwt';

/** docs/verification.md "Presentation sessions". */
export const presentationSessionRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const basePath = app.prefix;
  const sessions = services.presentationSessions;

  app.post(
    '/v2/presentations/sessions',
    {
      config: { permission: 'verification' },
      schema: {
        tags,
        summary: 'Create a presentation session (an OpenID4VP authorization request)',
        description: 'Answers the openid4vp:// URI a wallet opens (QR code or link). 503 when this server was composed without the presentation crypto port.',
        body: CreateSessionBody,
        response: { 201: CreatedPresentationSessionResponse, ...adminErrorsWithoutConflict, 503: ErrorBodySchema },
      },
    },
    async (request, reply) => {
      const created = await sessions.create(requestContext(request), request.body, basePath);
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.get(
    '/v2/presentations/sessions/:id',
    {
      config: { permission: 'verification' },
      schema: {
        tags,
        summary: 'Get a presentation session: its state and result',
        params: PresentationSessionParams,
        querystring: PresentationSessionQuery,
        response: { 200: PresentationSessionResponse, ...adminErrorsWithoutConflict, 503: ErrorBodySchema },
      },
    },
    async (request, reply) => {
      const query = request.query.responseCode !== undefined ? { responseCode: request.query.responseCode } : {};
      const view = await sessions.get(requestContext(request), request.params.id, query, basePath);
      // It carries the holder's claims.
      return reply.header('cache-control', 'no-store').send(view);
    },
  );

  // OpenID4VP 1.0 §5.10: the request object by reference; GET, or POST with wallet_metadata and wallet_nonce.
  const sendRequestObject = (jwt: string, reply: import('fastify').FastifyReply) =>
    reply.header('content-type', REQUEST_OBJECT_TYPE).header('cache-control', 'no-store').header('access-control-allow-origin', '*').send(jwt);
  const requestObjectDoc = { 200: { description: 'The request object (a signed JWT).', content: { [REQUEST_OBJECT_TYPE]: Type.String() } } };
  app.get(
    '/v1/openid/presentations/:id/request',
    {
      logLevel: 'warn',
      config: wallet,
      schema: {
        tags,
        summary: 'The request object of a presentation session (request_uri)',
        params: PresentationSessionParams,
        documentOnly: { responses: requestObjectDoc },
      },
    },
    async (request, reply) => sendRequestObject(await sessions.requestObject(requestContext(request), request.params.id, undefined, basePath), reply),
  );
  app.post(
    '/v1/openid/presentations/:id/request',
    {
      logLevel: 'warn',
      config: wallet,
      schema: {
        tags,
        summary: 'The request object of a presentation session (request_uri_method=post)',
        consumes: FORM,
        params: PresentationSessionParams,
        body: RequestUriPostBody,
        documentOnly: { responses: requestObjectDoc },
      },
    },
    async (request, reply) => sendRequestObject(await sessions.requestObject(requestContext(request), request.params.id, request.body ?? {}, basePath), reply),
  );

  // OpenID4VP 1.0 §8.2: the wallet posts vp_token and state (direct_post) or response (direct_post.jwt).
  app.post(
    '/v1/openid/presentations/:id/response',
    {
      logLevel: 'warn',
      config: wallet,
      schema: {
        tags,
        summary: 'The response endpoint of a presentation session (response_uri)',
        consumes: FORM,
        params: PresentationSessionParams,
        body: PresentationResponseBody,
        response: { 200: PresentationResponseAnswer, ...walletErrors },
      },
    },
    async (request, reply) => {
      const answer = await sessions.respond(requestContext(request), request.params.id, request.body ?? {}, basePath);
      return reply.header('cache-control', 'no-store').send(answer);
    },
  );

  const html = (description: string) => ({ description, content: { 'text/html': Type.String() } });
  app.get(
    '/v1/openid/presentations/:id/page',
    {
      logLevel: 'warn',
      schema: {
        tags,
        summary: 'The page of a presentation session, for a person: QR code and Open in wallet link (HTML)',
        params: PresentationSessionParams,
        documentOnly: { responses: { 200: html('The page.'), 404: html('No such session waiting for a wallet (an HTML page).') } },
      },
    },
    async (request, reply) => {
      let page: Awaited<ReturnType<typeof sessions.page>>;
      try {
        page = await sessions.page(requestContext(request), request.params.id, basePath);
      } catch (error) {
        if (isDomainError(error) && (error.code === 'NotFound' || error.code === 'BadRequest')) return sendPage(reply, 404, notWaitingPage());
        throw error;
      }
      if (page.state !== 'pending') return sendPage(reply, 404, notWaitingPage());
      const body = [
        '<h1>Share from your wallet</h1>',
        `<div class="qr" role="img" aria-label="QR code of the presentation request">${await qrSvg(page.authorizationRequestUri)}</div>`,
        '<p>Scan this code with your wallet app to share the credentials asked for.</p>',
        `<a class="open" id="open-in-wallet" href="${escapeHtml(page.authorizationRequestUri)}">Open in wallet</a>`,
        '<p class="muted">Use this button instead when your wallet app is on this device.</p>',
      ].join('\n');
      return sendPage(reply, 200, htmlDocument('Presentation request', body));
    },
  );
};

/** One page for every session that cannot be shown (unknown, answered or expired), so none can be told apart. */
function notWaitingPage(): string {
  return htmlDocument('Request not available', '<h1>This request is not available</h1>\n<p>It may have been answered already or have expired.</p>');
}
