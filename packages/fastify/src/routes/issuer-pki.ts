import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ISSUER_CAS_PATH, ISSUER_SIGNERS_PATH } from '@vellum/core';
import {
  CreateIssuerSignerBody,
  IdParams,
  IssuerSignerListQuery,
  IssuerSignerResponse,
  IssuerSignersPage,
  UpdateIssuerSignerBody,
} from '../schemas/mdoc-pki.ts';
import type { VellumServices } from '../services.ts';
import { caRoutes } from './mdoc-pki.ts';
import { resourceRoutes } from './resource.ts';

const tags = ['Issuer certificates'];

const manage = { permission: 'iacas:manage' } as const;

/**
 * docs/decisions.md "Issuer certificates": issuer CAs and their leaves, which sign SD-JWT VCs, the
 * signed issuer metadata and status list tokens. As for IACAs, the CA list is public (the active
 * ones: a verifier's trust anchors), and so is each managed CA's CRL.
 */
export const issuerPkiRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const { issuerCas, issuerSigners } = services;

  caRoutes(app, { path: ISSUER_CAS_PATH, tags, service: issuerCas, noun: 'issuer CA', plural: 'issuer CAs' });

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
