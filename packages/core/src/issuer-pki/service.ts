// The admin API of issuer CAs' leaves (docs/decisions.md "Issuer certificates"): the CSR flow for
// imported issuer CAs, revocation, and the view of the leaves Vellum makes for managed ones.

import { adminOperations, type CollectionService } from '../shared/admin-resource.ts';
import { Problems } from '../shared/body-problems.ts';
import { conflict, invalidField, notFound, validationError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { PageQuery, PageRequest } from '../shared/pagination.ts';
import type { DocumentSignerDeps } from '../mdoc-pki/document-signers.ts';
import { type CertificateView, type DocumentSignerRecord, MAX_REQUESTED_DOCUMENT_SIGNERS } from '../mdoc-pki/model.ts';
import { ISSUER_CA_PROFILE, isOfProfile } from '../mdoc-pki/profiles.ts';
import {
  certificateDataOf,
  certificateViewOf,
  findByUuid,
  limitReached,
  requestSigner,
  revokeSigner,
  signerCertificateProblems,
  storeChange,
} from '../mdoc-pki/signers.ts';
import type { Addressing } from '../tenancy/addressing.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { IssuerSignerUse, IssuerSigners } from './model.ts';
import { CreateIssuerSignerBody, UpdateIssuerSignerBody } from './schema.ts';
import { leafCommonName } from './signers.ts';

export interface CreateIssuerSignerInput {
  issuerCaId?: string | undefined;
  use?: string | undefined;
}

export interface UpdateIssuerSignerInput {
  active?: boolean | undefined;
  certificatePem?: string | undefined;
}

/** An issuer CA's leaf as the API shows it; a requested one has no certificate until `update` sets it. */
export interface IssuerSignerView extends Partial<CertificateView> {
  id: string;
  issuerCaId: string;
  use: IssuerSignerUse;
  active: boolean;
  /** Created and rotated by Vellum under a managed issuer CA (true), or requested with a CSR (false). */
  isManaged: boolean;
  /** The URIs and host names the certificate names (its SAN). */
  subjectAltNames?: string[];
  csrPem?: string;
  revokedAt?: string;
}

export interface IssuerSignerService
  extends CollectionService<IssuerSignerView, CreateIssuerSignerInput, UpdateIssuerSignerInput, PageQuery & { issuerCaId?: string | undefined }> {
  /** Revokes the leaf for good: its key is destroyed and its CA's CRL lists it. */
  revoke(ctx: RequestContext, id: string): Promise<IssuerSignerView>;
}

export interface IssuerSignerDeps extends Omit<DocumentSignerDeps, 'chains'> {
  addressing: Addressing;
  signers: IssuerSigners;
}

export function issuerSignerView(s: DocumentSignerRecord): IssuerSignerView {
  return {
    id: s.id,
    issuerCaId: s.iacaId,
    use: s.use as IssuerSignerUse,
    active: s.active,
    isManaged: s.isManaged,
    ...(s.subjectAltNames !== undefined ? { subjectAltNames: s.subjectAltNames } : {}),
    ...(s.csrPem !== undefined ? { csrPem: s.csrPem } : {}),
    ...certificateViewOf(s),
    ...(s.revokedAt !== undefined ? { revokedAt: s.revokedAt } : {}),
  };
}

const missing = () => notFound('The tenant has no such issuer signer');
const atLimit = () => limitReached(MAX_REQUESTED_DOCUMENT_SIGNERS, 'signers for imported issuer CAs', 'requested issuer signers', 'issuerCaId');

function checked<T>(schema: Parameters<Problems['checkShape']>[0], input: unknown): T {
  const p = new Problems();
  p.checkShape(schema, input);
  p.throwIfAny(schema);
  return input as T;
}

/** Issuer CAs' leaves (docs/decisions.md "Issuer certificates"). */
export function createIssuerSignerService(deps: IssuerSignerDeps): IssuerSignerService {
  const { store, clock, ids, keys, x509, events, addressing, signers } = deps;
  const { run, list } = adminOperations(events, 'iacas:manage');
  const meta = (v: IssuerSignerView) => ({ id: v.id, issuerCaId: v.issuerCaId, use: v.use, isManaged: v.isManaged, active: v.active });
  const find = async (ctx: RequestContext, id: string) => {
    const leaf = await findByUuid(store.documentSigners, ctx, id, missing);
    if (leaf.use === undefined) throw missing();
    return leaf;
  };

  return {
    create(ctx, input) {
      return run(ctx, 'ISSUER_SIGNER_CREATE', { input, meta }, async () => {
        const { issuerCaId, use } = checked<{ issuerCaId: string; use: IssuerSignerUse }>(CreateIssuerSignerBody, input);
        const noCa = () => invalidField('issuerCaId', 'The tenant has no such issuer CA', issuerCaId);
        const ca = await findByUuid(store.iacas, ctx, issuerCaId, noCa);
        if (!isOfProfile(ca, ISSUER_CA_PROFILE)) throw noCa();
        if (ca.isManaged)
          throw invalidField(
            'issuerCaId',
            'Vellum creates and rotates the signers of the issuer CAs it manages; this request is for imported ones',
            issuerCaId,
          );
        const country = ca.certificateData.country;
        if (country === undefined) throw invalidField('issuerCaId', 'The issuer CA’s certificate names no country', issuerCaId);
        const now = clock.now().toISOString();
        const record = await requestSigner({ store, keys, x509, ids }, ca, country, {
          commonName: leafCommonName(ca.certificateData.commonName, use),
          use,
          now,
          atLimit,
        });
        return issuerSignerView(record);
      });
    },

    list(ctx, query) {
      const filter = { profile: 'issuer' as const, ...(query.issuerCaId !== undefined ? { iacaId: query.issuerCaId } : {}) };
      // An id that is no UUID names no CA, and is not sent to the store (PostgreSQL refuses NUL in text).
      const read = (page: PageRequest) =>
        query.issuerCaId !== undefined && !isUuid(query.issuerCaId) ? Promise.resolve({ items: [] }) : store.documentSigners.list(ctx.tenant.id, page, filter);
      return list(ctx, 'ISSUER_SIGNER_LIST', query, read, issuerSignerView, { keepResponse: false });
    },

    get(ctx, id) {
      return run(ctx, 'ISSUER_SIGNER_RETRIEVE', { meta }, async () => issuerSignerView(await find(ctx, id)));
    },

    update(ctx, id, input) {
      return run(ctx, 'ISSUER_SIGNER_UPDATE', { input, meta }, async () => {
        const body = checked<{ active: boolean; certificatePem?: string }>(UpdateIssuerSignerBody, input);
        const leaf = await find(ctx, id);
        if (leaf.isManaged)
          throw invalidField('id', 'Vellum manages this signer of a managed issuer CA; revoke or delete it to have it replaced', id, 'params');
        if (leaf.revokedAt !== undefined)
          throw conflict('The signer is revoked; it cannot be changed', [{ value: leaf.revokedAt, msg: 'Revoked', param: 'id', location: 'params' }]);
        const now = clock.now();
        let updated: DocumentSignerRecord = { ...leaf, active: body.active, updatedAt: now.toISOString() };
        if (body.certificatePem !== undefined) {
          const ca = await store.iacas.get(ctx.tenant.id, leaf.iacaId);
          if (!ca) throw missing();
          const issuer = await addressing.publicOrigin(ctx.tenant);
          // The SAN must name the tenant's issuer identifier, so that the iss of what the leaf signs
          // and its certificate agree (SD-JWT VC §3.5; docs/decisions.md "Issuer certificates").
          const { info, problems } = signerCertificateProblems(
            x509,
            { signer: leaf, caPem: ca.certificatePem, pem: body.certificatePem, now: now.getTime(), caNoun: 'issuer CA', signerNoun: 'signer' },
            (info) =>
              info.subjectAltNames.includes(issuer)
                ? undefined
                : `Its subject alternative names (${info.subjectAltNames.join(', ') || 'none'}) do not include the issuer identifier ${issuer} as a URI: the iss of what it signs would not match the certificate`,
          );
          if (problems.length > 0) throw validationError(problems);
          updated = {
            ...updated,
            certificatePem: info.pem,
            fingerprint: info.fingerprint,
            serialNumber: info.serialNumber,
            subjectAltNames: info.subjectAltNames,
            certificateData: certificateDataOf(info),
          };
        }
        if (updated.active && updated.certificatePem === undefined)
          throw invalidField('certificatePem', 'Required to activate the signer: the certificate its issuer CA issued for the CSR');
        await storeChange(signers, ctx.tenant.id, store.documentSigners.update(updated), missing);
        return issuerSignerView(updated);
      });
    },

    revoke(ctx, id) {
      return run(ctx, 'ISSUER_SIGNER_REVOKE', { meta }, async () => {
        const leaf = await find(ctx, id);
        const revoked = await revokeSigner({ store, keys, chains: signers }, leaf, clock.now().toISOString(), { noun: 'signer', missing });
        return issuerSignerView(revoked);
      });
    },

    delete(ctx, id) {
      return run(ctx, 'ISSUER_SIGNER_DELETE', { meta: () => ({ id }) }, async () => {
        const leaf = await find(ctx, id);
        await storeChange(signers, ctx.tenant.id, store.documentSigners.delete(ctx.tenant.id, id), missing);
        await keys.destroy(ctx.tenant.id, leaf.keyId);
      });
    },
  };
}
