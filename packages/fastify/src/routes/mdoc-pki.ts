import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';
import {
  CreateDocumentSignerBody,
  CreateIacaBody,
  DocumentSignerListQuery,
  DocumentSignerResponse,
  DocumentSignersPage,
  IacaListQuery,
  IacaResponse,
  IacasPage,
  IdParams,
  UpdateDocumentSignerBody,
  UpdateIacaBody,
} from '../schemas/mdoc-pki.ts';
import type { VellumServices } from '../services.ts';
import { Crl } from '../schemas/documented.ts';

const tags = ['mDoc PKI'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
const create = { permission: 'iacas:create' } as const;
const manage = { permission: 'iacas:manage' } as const;
const IACAS = '/v2/credentials/mobile/iacas';
const SIGNERS = '/v2/credentials/mobile/document-signers';

/**
 * docs/decisions.md "mDoc PKI": IACAs and document signers. The IACA list is public (the issuer metadata's
 * `mdoc_iacas_uri`): anyone sees the active IACAs, a token with `iacas:manage` sees them all. Each
 * managed IACA's CRL is public too.
 */
export const mdocPkiRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const { iacas, documentSigners } = services;

  app.post(
    IACAS,
    { config: create, schema: { tags, summary: 'Create an IACA', body: CreateIacaBody, response: { 201: IacaResponse, ...errors } } },
    async (request, reply) => reply.code(201).send(await iacas.create(requestContext(request), request.body)),
  );

  // Wallets and verifiers read it anonymously and often: requests are logged at warn, like every public endpoint.
  app.get(
    IACAS,
    {
      config: { authentication: 'optional' },
      logLevel: 'warn',
      schema: { tags, summary: 'List IACAs (public: the active ones)', querystring: IacaListQuery, response: { 200: IacasPage, ...errors } },
    },
    async (request, reply) => reply.header('access-control-allow-origin', '*').send(await iacas.list(requestContext(request), request.query)),
  );

  app.get(
    `${IACAS}/:id`,
    { config: manage, schema: { tags, summary: 'Get an IACA', params: IdParams, response: { 200: IacaResponse, ...errors } } },
    async (request) => iacas.get(requestContext(request), request.params.id),
  );

  app.put(
    `${IACAS}/:id`,
    { config: manage, schema: { tags, summary: 'Update an IACA', params: IdParams, body: UpdateIacaBody, response: { 200: IacaResponse, ...errors } } },
    async (request) => iacas.update(requestContext(request), request.params.id, request.body),
  );

  app.delete(
    `${IACAS}/:id`,
    { config: manage, schema: { tags, summary: 'Delete an IACA', params: IdParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await iacas.delete(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    `${IACAS}/:id/crl`,
    {
      logLevel: 'warn',
      schema: {
        tags,
        summary: 'An IACA’s certificate revocation list',
        documentOnly: { responses: { 200: { description: 'The CRL.', content: { 'application/pkix-crl': Crl } } } },
        params: IdParams,
      },
    },
    async (request, reply) => {
      const der = await iacas.crl(requestContext(request), request.params.id);
      return reply
        .header('access-control-allow-origin', '*')
        .type('application/pkix-crl')
        .send(Buffer.from(der.buffer, der.byteOffset, der.byteLength));
    },
  );

  app.post(
    SIGNERS,
    {
      config: manage,
      schema: { tags, summary: 'Create a document signer', body: CreateDocumentSignerBody, response: { 201: DocumentSignerResponse, ...errors } },
    },
    async (request, reply) => reply.code(201).send(await documentSigners.create(requestContext(request), request.body)),
  );

  app.get(
    SIGNERS,
    {
      config: manage,
      schema: { tags, summary: 'List document signers', querystring: DocumentSignerListQuery, response: { 200: DocumentSignersPage, ...errors } },
    },
    async (request) => documentSigners.list(requestContext(request), request.query),
  );

  app.get(
    `${SIGNERS}/:id`,
    { config: manage, schema: { tags, summary: 'Get a document signer', params: IdParams, response: { 200: DocumentSignerResponse, ...errors } } },
    async (request) => documentSigners.get(requestContext(request), request.params.id),
  );

  app.put(
    `${SIGNERS}/:id`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Update a document signer',
        params: IdParams,
        body: UpdateDocumentSignerBody,
        response: { 200: DocumentSignerResponse, ...errors },
      },
    },
    async (request) => documentSigners.update(requestContext(request), request.params.id, request.body),
  );

  app.post(
    `${SIGNERS}/:id/revoke`,
    { config: manage, schema: { tags, summary: 'Revoke a document signer', params: IdParams, response: { 200: DocumentSignerResponse, ...errors } } },
    async (request) => documentSigners.revoke(requestContext(request), request.params.id),
  );

  app.delete(
    `${SIGNERS}/:id`,
    { config: manage, schema: { tags, summary: 'Delete a document signer', params: IdParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await documentSigners.delete(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );
};
