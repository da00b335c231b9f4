import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RequestContext } from '@vellum/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../context.ts';
import { NoContent } from '../schemas/common.ts';
import { CustomDomainBody, CustomDomainResponse } from '../schemas/custom-domain.ts';
import type { VellumServices } from '../services.ts';
import { parseFlatXml } from '../xml.ts';
import { adminErrors } from './resource.ts';

const tags = ['Custom domain'];

const config = { permission: 'custom-domain' } as const;

/** docs/decisions.md "Custom domains": the custom domain of the tenant. */
export const customDomainRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const domains = services.customDomains;
  // docs/decisions.md "Custom domains": create and update also accept XML; the parsed fields go through the same schema.
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseFlatXml(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.post(
    '/v1/config/domain',
    {
      config,
      schema: {
        tags,
        summary: 'Set the custom domain',
        consumes: ['application/json', 'application/xml'],
        body: CustomDomainBody,
        response: { 201: CustomDomainResponse, ...adminErrors },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await domains.create(requestContext(request), request.body));
    },
  );

  app.get(
    '/v1/config/domain',
    { config, schema: { tags, summary: 'Get the custom domain', response: { 200: CustomDomainResponse, ...adminErrors } } },
    async (request) => {
      return domains.get(requestContext(request));
    },
  );

  app.put(
    '/v1/config/domain',
    {
      config,
      schema: {
        tags,
        summary: 'Update the custom domain',
        consumes: ['application/json', 'application/xml'],
        body: CustomDomainBody,
        response: { 200: CustomDomainResponse, ...adminErrors },
      },
    },
    async (request) => domains.update(requestContext(request), request.body),
  );

  // Remove and verify answer 204, with no content.
  const noContent = (run: (ctx: RequestContext) => Promise<void>) => async (request: FastifyRequest, reply: FastifyReply) => {
    await run(requestContext(request));
    return reply.code(204).send();
  };

  app.delete(
    '/v1/config/domain',
    { config, schema: { tags, summary: 'Remove the custom domain', response: { 204: NoContent, ...adminErrors } } },
    noContent((ctx) => domains.delete(ctx)),
  );

  app.post(
    '/v1/config/domain/verify',
    { config, schema: { tags, summary: 'Verify the custom domain’s DNS TXT record', response: { 204: NoContent, ...adminErrors } } },
    noContent((ctx) => domains.verify(ctx)),
  );
};
