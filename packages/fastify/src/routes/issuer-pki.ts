import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ISSUER_CAS_PATH, ISSUER_SIGNERS_PATH } from '@vellum/core';
import { requestContext } from '../context.ts';
import {
  CreateIacaBody,
  CreateIssuerSignerBody,
  IacaListQuery,
  IacaResponse,
  IacasPage,
  IdParams,
  IssuerSignerListQuery,
  IssuerSignerResponse,
  IssuerSignersPage,
  UpdateIacaBody,
  UpdateIssuerSignerBody,
} from '../schemas/mdoc-pki.ts';
import type { VellumServices } from '../services.ts';
import { adminErrors, resourceRoutes } from './resource.ts';
import { Crl } from '../schemas/documented.ts';

const tags = ['Issuer certificates'];

const create = { permission: 'iacas:create' } as const;
const manage = { permission: 'iacas:manage' } as const;

/**
 * docs/decisions.md "Issuer certificates": issuer CAs and their leaves, which sign SD-JWT VCs, the
 * signed issuer metadata and status list tokens. As for IACAs, the CA list is public (the active
 * ones: a verifier's trust anchors), and so is each managed CA's CRL.
 */
export const issuerPkiRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const { issuerCas, issuerSigners } = services;

  resourceRoutes(app, {
    path: ISSUER_CAS_PATH,
    params: IdParams,
    tags,
    config: manage,
    service: issuerCas,
    create: { summary: 'Create an issuer CA', config: create, body: CreateIacaBody, response: IacaResponse },
    get: { summary: 'Get an issuer CA', response: IacaResponse },
    replace: { summary: 'Update an issuer CA', body: UpdateIacaBody, response: IacaResponse },
    delete: { summary: 'Delete an issuer CA' },
  });

  app.get(
    ISSUER_CAS_PATH,
    {
      config: { authentication: 'optional' },
      logLevel: 'warn',
      schema: { tags, summary: 'List issuer CAs (public: the active ones)', querystring: IacaListQuery, response: { 200: IacasPage, ...adminErrors } },
    },
    async (request, reply) => reply.header('access-control-allow-origin', '*').send(await issuerCas.list(requestContext(request), request.query)),
  );

  app.get(
    `${ISSUER_CAS_PATH}/:id/crl`,
    {
      logLevel: 'warn',
      schema: {
        tags,
        summary: 'An issuer CA’s certificate revocation list',
        documentOnly: { responses: { 200: { description: 'The CRL.', content: { 'application/pkix-crl': Crl } } } },
        params: IdParams,
      },
    },
    async (request, reply) => {
      const der = await issuerCas.crl(requestContext(request), request.params.id);
      return reply
        .header('access-control-allow-origin', '*')
        .type('application/pkix-crl')
        .send(Buffer.from(der.buffer, der.byteOffset, der.byteLength));
    },
  );

  resourceRoutes(app, {
    path: ISSUER_SIGNERS_PATH,
    params: IdParams,
    tags,
    config: manage,
    service: issuerSigners,
    create: { summary: 'Request an issuer signer (CSR) under an imported issuer CA', body: CreateIssuerSignerBody, response: IssuerSignerResponse },
    list: { summary: 'List issuer signers', querystring: IssuerSignerListQuery, response: IssuerSignersPage },
    get: { summary: 'Get an issuer signer', response: IssuerSignerResponse },
    replace: { summary: 'Update an issuer signer', body: UpdateIssuerSignerBody, response: IssuerSignerResponse },
    delete: { summary: 'Delete an issuer signer' },
    actions: { revoke: { summary: 'Revoke an issuer signer', response: IssuerSignerResponse, run: (ctx, id) => issuerSigners.revoke(ctx, id) } },
  });
};
