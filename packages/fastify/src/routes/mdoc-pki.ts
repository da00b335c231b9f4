import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
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
import type { IacaService } from '@vellum/core';
import type { VellumServices } from '../services.ts';
import { adminErrors, resourceRoutes } from './resource.ts';
import { Crl } from '../schemas/documented.ts';

const tags = ['mDoc PKI'];

const create = { permission: 'iacas:create' } as const;
const manage = { permission: 'iacas:manage' } as const;
const IACAS = '/v2/credentials/mobile/iacas';
const SIGNERS = '/v2/credentials/mobile/document-signers';

/**
 * The routes of a collection of certificate authorities, IACAs or issuer CAs (docs/decisions.md
 * "mDoc PKI", "Issuer certificates"): the admin resource, the public list (anyone sees the active
 * ones, a token with `iacas:manage` all of them) and each managed CA's public CRL.
 */
export function caRoutes(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  options: { path: string; tags: string[]; service: IacaService; noun: string; plural: string },
): void {
  const { path, tags, service, noun, plural } = options;
  const article = /^[aeiou]/i.test(noun) ? 'an' : 'a';
  resourceRoutes(app, {
    path,
    params: IdParams,
    tags,
    config: manage,
    service,
    create: { summary: `Create ${article} ${noun}`, config: create, body: CreateIacaBody, response: IacaResponse },
    get: { summary: `Get ${article} ${noun}`, response: IacaResponse },
    replace: { summary: `Update ${article} ${noun}`, body: UpdateIacaBody, response: IacaResponse },
    delete: { summary: `Delete ${article} ${noun}` },
  });

  // Wallets and verifiers read it anonymously and often: requests are logged at warn, like every public endpoint.
  app.get(
    path,
    {
      config: { authentication: 'optional' },
      logLevel: 'warn',
      schema: { tags, summary: `List ${plural} (public: the active ones)`, querystring: IacaListQuery, response: { 200: IacasPage, ...adminErrors } },
    },
    async (request, reply) => reply.header('access-control-allow-origin', '*').send(await service.list(requestContext(request), request.query)),
  );

  app.get(
    `${path}/:id/crl`,
    {
      logLevel: 'warn',
      schema: {
        tags,
        summary: `${article === 'an' ? 'An' : 'A'} ${noun}’s certificate revocation list`,
        documentOnly: { responses: { 200: { description: 'The CRL.', content: { 'application/pkix-crl': Crl } } } },
        params: IdParams,
      },
    },
    async (request, reply) => {
      const der = await service.crl(requestContext(request), request.params.id);
      return reply
        .header('access-control-allow-origin', '*')
        .type('application/pkix-crl')
        .send(Buffer.from(der.buffer, der.byteOffset, der.byteLength));
    },
  );
}

/**
 * docs/decisions.md "mDoc PKI": IACAs and document signers. The IACA list is public (the issuer metadata's
 * `mdoc_iacas_uri`): anyone sees the active IACAs, a token with `iacas:manage` sees them all. Each
 * managed IACA's CRL is public too.
 */
export const mdocPkiRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const { iacas, documentSigners } = services;

  caRoutes(app, { path: IACAS, tags, service: iacas, noun: 'IACA', plural: 'IACAs' });

  resourceRoutes(app, {
    path: SIGNERS,
    params: IdParams,
    tags,
    config: manage,
    service: documentSigners,
    create: { summary: 'Create a document signer', body: CreateDocumentSignerBody, response: DocumentSignerResponse },
    list: { summary: 'List document signers', querystring: DocumentSignerListQuery, response: DocumentSignersPage },
    get: { summary: 'Get a document signer', response: DocumentSignerResponse },
    replace: { summary: 'Update a document signer', body: UpdateDocumentSignerBody, response: DocumentSignerResponse },
    delete: { summary: 'Delete a document signer' },
    actions: { revoke: { summary: 'Revoke a document signer', response: DocumentSignerResponse, run: (ctx, id) => documentSigners.revoke(ctx, id) } },
  });
};
