import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TObject } from '@sinclair/typebox';
import type { CredentialConfigurationInput, CredentialFormat } from '@vellum/core';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent, PageSchema } from '../schemas/common.ts';
import {
  ConfigurationListQuery,
  ConfigurationParams,
  CwtConfigurationBody,
  CwtConfigurationResponse,
  LdpVcConfigurationBody,
  LdpVcConfigurationResponse,
  MdocConfigurationBody,
  MdocConfigurationResponse,
  SdJwtConfigurationBody,
  SdJwtConfigurationResponse,
} from '../schemas/configurations.ts';
import type { VellumServices } from '../services.ts';

const tags = ['Credential configurations'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
const read = { permission: 'configurations:read' } as const;
const write = { permission: 'configurations:write' } as const;

/** docs/decisions.md "Credential configurations": where each format's configurations live, and the shapes of their bodies and answers. */
const COLLECTIONS: ReadonlyArray<{ format: CredentialFormat; path: string; body: TObject; response: TObject }> = [
  { format: 'mso_mdoc', path: '/v2/credentials/mobile/configurations', body: MdocConfigurationBody, response: MdocConfigurationResponse },
  { format: 'ldp_vc', path: '/v2/credentials/web-semantic/configurations', body: LdpVcConfigurationBody, response: LdpVcConfigurationResponse },
  { format: 'cwt', path: '/v2/credentials/compact/configurations', body: CwtConfigurationBody, response: CwtConfigurationResponse },
  { format: 'cwt_vc', path: '/v2/credentials/compact-semantic/configurations', body: CwtConfigurationBody, response: CwtConfigurationResponse },
  { format: 'dc+sd-jwt', path: '/v2/credentials/sd-jwt/configurations', body: SdJwtConfigurationBody, response: SdJwtConfigurationResponse },
];

/** docs/decisions.md "Credential configurations": one collection of credential configurations per format, the same five routes on each. */
export const configurationRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const configurations = services.credentialConfigurations;

  for (const { format, path, body, response } of COLLECTIONS) {
    // The body schema checks the shape; the core checks every value, so it takes the parsed body as input.
    const input = (parsed: unknown) => parsed as CredentialConfigurationInput;

    app.post(
      path,
      { config: write, schema: { tags, summary: `Create a ${format} credential configuration`, body, response: { 201: response, ...errors } } },
      async (request, reply) => reply.code(201).send(await configurations.create(requestContext(request), format, input(request.body))),
    );

    app.get(
      path,
      {
        config: read,
        schema: {
          tags,
          summary: `List ${format} credential configurations`,
          querystring: ConfigurationListQuery,
          response: { 200: PageSchema(response), ...errors },
        },
      },
      async (request) => configurations.list(requestContext(request), format, request.query),
    );

    app.get(
      `${path}/:id`,
      {
        config: read,
        schema: { tags, summary: `Get a ${format} credential configuration`, params: ConfigurationParams, response: { 200: response, ...errors } },
      },
      async (request) => configurations.get(requestContext(request), format, request.params.id),
    );

    app.put(
      `${path}/:id`,
      {
        config: write,
        schema: { tags, summary: `Replace a ${format} credential configuration`, params: ConfigurationParams, body, response: { 200: response, ...errors } },
      },
      async (request) => configurations.update(requestContext(request), format, request.params.id, input(request.body)),
    );

    app.delete(
      `${path}/:id`,
      {
        config: write,
        schema: { tags, summary: `Delete a ${format} credential configuration`, params: ConfigurationParams, response: { 204: NoContent, ...errors } },
      },
      async (request, reply) => {
        await configurations.delete(requestContext(request), format, request.params.id);
        return reply.code(204).send();
      },
    );
  }
};
