import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import {
  VerifierApplicationBody,
  VerifierApplicationListQuery,
  VerifierApplicationParams,
  VerifierApplicationResponse,
  VerifierApplicationsPage,
  VerifierCertificateBody,
} from '../schemas/verifier-applications.ts';
import type { VellumServices } from '../services.ts';
import { adminErrors, resourceRoutes } from './resource.ts';

const PATH = '/v2/presentations/applications';
const tags = ['Verification'];
const config = { permission: 'verification' } as const;

/** docs/verification.md "Verifier applications": who asks wallets for presentations, and how its requests are signed. */
export const verifierApplicationRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const { verifierApplications } = services;
  resourceRoutes(app, {
    path: PATH,
    params: VerifierApplicationParams,
    tags,
    config,
    service: verifierApplications,
    create: { summary: 'Register a verifier application', body: VerifierApplicationBody, response: VerifierApplicationResponse },
    list: { summary: 'List verifier applications', querystring: VerifierApplicationListQuery, response: VerifierApplicationsPage },
    get: { summary: 'Get a verifier application', response: VerifierApplicationResponse },
    replace: { summary: 'Replace a verifier application', body: VerifierApplicationBody, response: VerifierApplicationResponse },
    delete: { summary: 'Delete a verifier application (and its request-signing key)' },
  });

  app.put(
    `${PATH}/:id/certificate`,
    {
      config,
      schema: {
        tags,
        summary: 'Set an x509_hash verifier application’s certificate chain',
        description:
          'The chain a CA issued for the application’s CSR, leaf first: the leaf must certify the application’s key and each certificate must be issued by the next.',
        params: VerifierApplicationParams,
        body: VerifierCertificateBody,
        response: { 200: VerifierApplicationResponse, ...adminErrors },
      },
    },
    async (request) => verifierApplications.setCertificate(requestContext(request), request.params.id, request.body),
  );
};
