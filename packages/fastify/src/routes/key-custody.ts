import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { KeyCustodyBody, KeyCustodyResponse } from '../schemas/key-custody.ts';
import type { VellumServices } from '../services.ts';
import { adminErrorsWithoutConflict } from './resource.ts';

const tags = ['Key custody'];

/** docs/key-custody.md: where the tenant's new signing keys are made. */
export const keyCustodyRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  app.get(
    '/v1/config/key-custody',
    {
      config: { permission: 'configurations:read' },
      schema: {
        tags,
        summary: 'Get the key custody',
        description: 'Where the tenant’s new signing keys are made, whether the tenant chose it, and the custodies this server has.',
        response: { 200: KeyCustodyResponse, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.keyCustody.get(requestContext(request)),
  );

  app.put(
    '/v1/config/key-custody',
    {
      config: { permission: 'configurations:write' },
      schema: {
        tags,
        summary: 'Choose the key custody',
        description:
          'Where the tenant’s new signing keys are made: `software` (sealed in the database under the master key) or `pkcs11` (inside the server’s PKCS#11 token, never out of it). Keys made before stay where they are and keep signing. A custody the server does not have is refused with 400.',
        body: KeyCustodyBody,
        response: { 200: KeyCustodyResponse, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.keyCustody.update(requestContext(request), request.body),
  );
};
