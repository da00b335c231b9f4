import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { VerifiableFormat } from '@vellum/core';
import { requestContext } from '../context.ts';
import {
  TrustedIssuerBody,
  TrustedIssuerListQuery,
  TrustedIssuerParams,
  TrustedIssuerResponse,
  TrustedIssuersPage,
  VerificationResultResponse,
  VerifyBody,
} from '../schemas/verification.ts';
import type { VerifyInput } from '@vellum/core';
import type { VellumServices } from '../services.ts';
import { ErrorBodySchema } from '../schemas/common.ts';
import { adminErrorsWithoutConflict, resourcePlugin } from './resource.ts';

/** docs/verification.md "Trusted issuers": who the tenant trusts to issue the credentials it verifies. */
export const trustedIssuerRoutes = resourcePlugin(({ trustedIssuers }) => ({
  path: '/v2/credentials/trusted-issuers',
  params: TrustedIssuerParams,
  tags: ['Verification'],
  config: { permission: 'verification' },
  service: trustedIssuers,
  create: { summary: 'Trust an issuer', body: TrustedIssuerBody, response: TrustedIssuerResponse },
  list: { summary: 'List trusted issuers', querystring: TrustedIssuerListQuery, response: TrustedIssuersPage },
  get: { summary: 'Get a trusted issuer', response: TrustedIssuerResponse },
  replace: { summary: 'Replace a trusted issuer', body: TrustedIssuerBody, response: TrustedIssuerResponse },
  delete: { summary: 'Stop trusting an issuer' },
}));

/** The profiles (CREDENTIAL_PROFILES) whose credentials can be verified; the others have no route (404). */
export const VERIFY_PATHS: ReadonlyArray<readonly [string, VerifiableFormat]> = [
  ['/v2/credentials/sd-jwt/verify', 'dc+sd-jwt'],
  ['/v2/credentials/mobile/verify', 'mso_mdoc'],
  ['/v2/credentials/web-semantic/verify', 'ldp_vc'],
];

/** docs/verification.md "The verify API": one credential checked against the tenant's trusted issuers. */
export const verificationRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  for (const [path, format] of VERIFY_PATHS) {
    app.post(
      path,
      {
        config: { permission: 'verification' },
        schema: {
          tags: ['Verification'],
          summary: `Verify a ${format} credential`,
          description:
            'A credential that fails a check is still a 200 with verified false and the failed checks; only malformed input is a 400. 503 when this server has no verifier of the format.',
          body: VerifyBody,
          response: { 200: VerificationResultResponse, ...adminErrorsWithoutConflict, 503: ErrorBodySchema },
        },
      },
      async (request, reply) => {
        const result = await services.verification.verify(requestContext(request), format, request.body as VerifyInput);
        // It carries the holder's claims.
        reply.header('cache-control', 'no-store');
        return result;
      },
    );
  }
};
