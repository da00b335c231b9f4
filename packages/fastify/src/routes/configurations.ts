import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CredentialConfigurationInput, CredentialFormat } from '@vellum/core';
import { PageSchema } from '../schemas/common.ts';
import { CONFIGURATION_SCHEMAS, ConfigurationListQuery, ConfigurationParams } from '../schemas/configurations.ts';
import type { VellumServices } from '../services.ts';
import { resourceRoutes } from './resource.ts';

const tags = ['Credential configurations'];

const read = { permission: 'configurations:read' } as const;
const write = { permission: 'configurations:write' } as const;

/** docs/decisions.md "Credential configurations": where each format's configurations live. */
const PATHS: Readonly<Record<CredentialFormat, string>> = {
  mso_mdoc: '/v2/credentials/mobile/configurations',
  ldp_vc: '/v2/credentials/web-semantic/configurations',
  cwt: '/v2/credentials/compact/configurations',
  cwt_vc: '/v2/credentials/compact-semantic/configurations',
  'dc+sd-jwt': '/v2/credentials/sd-jwt/configurations',
};

/** docs/decisions.md "Credential configurations": one collection of credential configurations per format, the same five routes on each. */
export const configurationRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const configurations = services.credentialConfigurations;

  for (const [format, path] of Object.entries(PATHS) as [CredentialFormat, string][]) {
    const { body, response } = CONFIGURATION_SCHEMAS[format];
    // The body schema checks the shape; the core checks every value, so it takes the parsed body as input.
    const input = (parsed: unknown) => parsed as CredentialConfigurationInput;

    resourceRoutes(app, {
      path,
      params: ConfigurationParams,
      tags,
      config: write,
      create: {
        summary: `Create a ${format} credential configuration`,
        body,
        response,
        run: (ctx, parsed) => configurations.create(ctx, format, input(parsed)),
      },
      list: {
        summary: `List ${format} credential configurations`,
        config: read,
        querystring: ConfigurationListQuery,
        response: PageSchema(response),
        run: (ctx, query) => configurations.list(ctx, format, query),
      },
      get: { summary: `Get a ${format} credential configuration`, config: read, response, run: (ctx, id) => configurations.get(ctx, format, id) },
      replace: {
        summary: `Replace a ${format} credential configuration`,
        body,
        response,
        run: (ctx, id, parsed) => configurations.update(ctx, format, id, input(parsed)),
      },
      delete: { summary: `Delete a ${format} credential configuration`, run: (ctx, id) => configurations.delete(ctx, format, id) },
    });
  }
};
