import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { BatchIssuanceBody, BatchIssuanceResponse } from '../schemas/batch-issuance.ts';
import type { VellumServices } from '../services.ts';
import { adminErrorsWithoutConflict } from './resource.ts';

const tags = ['Batch issuance'];

/** docs/decisions.md "Batch issuance and the attestation proof type (issue 30)": how many credentials one request may ask for. */
export const batchIssuanceRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  app.get(
    '/v1/config/batch-issuance',
    {
      config: { permission: 'configurations:read' },
      schema: { tags, summary: 'Get the batch size', response: { 200: BatchIssuanceResponse, ...adminErrorsWithoutConflict } },
    },
    async (request) => services.batchIssuance.get(requestContext(request)),
  );

  app.put(
    '/v1/config/batch-issuance',
    {
      config: { permission: 'configurations:write' },
      schema: {
        tags,
        summary: 'Set the batch size',
        description:
          'How many credentials one credential request may ask for, each bound to its own key (1 to 100; 1, the default, is one proof per request). Above 1 the credential issuer metadata publishes it as `batch_credential_issuance.batch_size` (OpenID4VCI 1.0 §12.2.4).',
        body: BatchIssuanceBody,
        response: { 200: BatchIssuanceResponse, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.batchIssuance.update(requestContext(request), request.body),
  );
};
