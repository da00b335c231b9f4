import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { IssuerDisplayBody, IssuerDisplayResponse } from '../schemas/issuer-display.ts';
import type { VellumServices } from '../services.ts';
import { adminErrorsWithoutConflict } from './resource.ts';

const tags = ['Issuer display'];

/** docs/decisions.md "Issuer display and unbound credentials (issue 29)": the issuer's `display` in its metadata. */
export const issuerDisplayRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  app.get(
    '/v1/config/issuer-display',
    {
      config: { permission: 'configurations:read' },
      schema: { tags, summary: 'Get the issuer display', response: { 200: IssuerDisplayResponse, ...adminErrorsWithoutConflict } },
    },
    async (request) => services.issuerDisplay.get(requestContext(request)),
  );

  app.put(
    '/v1/config/issuer-display',
    {
      config: { permission: 'configurations:write' },
      schema: {
        tags,
        summary: 'Replace the issuer display',
        description: 'The credential issuer metadata publishes it as `display` (OpenID4VCI 1.0 §12.2.4); an empty list removes it.',
        body: IssuerDisplayBody,
        response: { 200: IssuerDisplayResponse, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.issuerDisplay.update(requestContext(request), request.body),
  );
};
