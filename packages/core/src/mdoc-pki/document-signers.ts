import type { EventRecorder } from '../events/recorder.ts';
import type { KeyManager } from '../keys/ports.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids } from '../shared/ports.ts';
import type { X509Authority } from './ports.ts';
import { conflict, invalidField, notFound, validationError } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { PageQuery, PageRequest } from '../shared/pagination.ts';
import { adminOperations, type CollectionService } from '../shared/admin-resource.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { type CertificateView, type DocumentSignerRecord, MAX_REQUESTED_DOCUMENT_SIGNERS, MDL_DOCUMENT_SIGNER_EKU } from './model.ts';
import { checkCreateDocumentSignerInput, checkUpdateDocumentSignerInput, type CreateDocumentSignerInput, type UpdateDocumentSignerInput } from './rules.ts';
import { IACA_PROFILE, isOfProfile } from './profiles.ts';
import {
  certificateDataOf,
  certificateViewOf,
  findByUuid,
  type IssuingChains,
  limitReached,
  requestSigner,
  revokeSigner,
  signerCertificateProblems,
  signerCommonName,
  storeChange,
} from './signers.ts';

/** What the document signer service needs; the IACA service needs the same and more. */
export interface DocumentSignerDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  keys: KeyManager;
  x509: X509Authority;
  events: EventRecorder;
  /** Told about every change, so that issuance stops using a revoked or deactivated IACA or signer at once. */
  chains: Pick<IssuingChains, 'invalidate'>;
}

/** docs/decisions.md "mDoc PKI": a document signer as the API shows it; a requested one has no certificate until `update` sets it. */
export interface DocumentSignerView extends Partial<CertificateView> {
  id: string;
  iacaId: string;
  active: boolean;
  /** Created and rotated by Vellum for a managed IACA (true), or requested with a CSR (false). */
  isManaged: boolean;
  csrPem?: string;
  revokedAt?: string;
}

/**
 * A tenant's document signers. `create`, for an imported IACA, makes a new key and its CSR for the
 * IACA's owner to sign; `update` sets the certificate the IACA issued for the CSR, and activates or
 * deactivates the signer; `delete` removes the signer and destroys its key (credentials it signed
 * stay valid unless it was revoked first). `list` takes an `iacaId` to list one IACA's signers.
 */
export interface DocumentSignerService
  extends CollectionService<DocumentSignerView, CreateDocumentSignerInput, UpdateDocumentSignerInput, PageQuery & { iacaId?: string | undefined }> {
  /** Revokes the signer for good: it never signs again (its key is destroyed) and its IACA's CRL lists it. */
  revoke(ctx: RequestContext, id: string): Promise<DocumentSignerView>;
}

/** Renders a stored document signer as the API shows it. */
export function documentSignerView(s: DocumentSignerRecord): DocumentSignerView {
  return {
    id: s.id,
    iacaId: s.iacaId,
    active: s.active,
    isManaged: s.isManaged,
    ...(s.csrPem !== undefined ? { csrPem: s.csrPem } : {}),
    ...certificateViewOf(s),
    ...(s.revokedAt !== undefined ? { revokedAt: s.revokedAt } : {}),
  };
}

const missing = () => notFound('The tenant has no such document signer');

const atLimit = () => limitReached(MAX_REQUESTED_DOCUMENT_SIGNERS, 'document signers for imported IACAs', 'requested document signers', 'iacaId');

/** Document signers (docs/decisions.md "mDoc PKI"): the CSR flow for imported IACAs, revocation, and the view of managed ones. */
export function createDocumentSignerService(deps: DocumentSignerDeps): DocumentSignerService {
  const { store, clock, ids, keys, x509, events, chains } = deps;
  const { run, list } = adminOperations(events, 'iacas:manage');
  const meta = (v: DocumentSignerView) => ({ id: v.id, iacaId: v.iacaId, isManaged: v.isManaged, active: v.active });
  const find = async (ctx: RequestContext, id: string) => {
    const signer = await findByUuid(store.documentSigners, ctx, id, missing);
    // An issuer CA's leaf is no document signer: it has routes of its own.
    if (signer.use !== undefined) throw missing();
    return signer;
  };

  return {
    create(ctx, input) {
      return run(ctx, 'MOBILE_DOCUMENT_SIGNER_CREATE', { input, meta }, async () => {
        const { iacaId } = checkCreateDocumentSignerInput(input);
        const noIaca = () => invalidField('iacaId', 'The tenant has no such IACA', iacaId);
        const iaca = await findByUuid(store.iacas, ctx, iacaId, noIaca);
        if (!isOfProfile(iaca, IACA_PROFILE)) throw noIaca();
        if (iaca.isManaged)
          throw invalidField('iacaId', 'Vellum creates and rotates the document signers of the IACAs it manages; this request is for imported IACAs', iacaId);
        const country = iaca.certificateData.country;
        if (country === undefined) throw invalidField('iacaId', 'The IACA’s certificate names no country', iacaId);
        const now = clock.now().toISOString();
        const record = await requestSigner({ store, keys, x509, ids }, iaca, country, {
          commonName: signerCommonName(iaca.certificateData.commonName),
          now,
          atLimit,
        });
        return documentSignerView(record);
      });
    },

    list(ctx, query) {
      // An id that is no UUID names no IACA, and is not sent to the store (PostgreSQL refuses NUL in text).
      const read = (page: PageRequest) =>
        query.iacaId !== undefined && !isUuid(query.iacaId)
          ? Promise.resolve({ items: [] })
          : store.documentSigners.list(ctx.tenant.id, page, query.iacaId !== undefined ? { iacaId: query.iacaId } : {});
      return list(ctx, 'MOBILE_DOCUMENT_SIGNER_LIST', query, read, documentSignerView, { keepResponse: false });
    },

    get(ctx, id) {
      return run(ctx, 'MOBILE_DOCUMENT_SIGNER_RETRIEVE', { meta }, async () => documentSignerView(await find(ctx, id)));
    },

    update(ctx, id, input) {
      return run(ctx, 'MOBILE_DOCUMENT_SIGNER_UPDATE', { input, meta }, async () => {
        const checked = checkUpdateDocumentSignerInput(input);
        const signer = await find(ctx, id);
        if (signer.isManaged)
          throw invalidField('id', 'Vellum manages this document signer of a managed IACA; revoke or delete it to have it replaced', id, 'params');
        if (signer.revokedAt !== undefined)
          throw conflict('The document signer is revoked; it cannot be changed', [
            { value: signer.revokedAt, msg: 'Revoked', param: 'id', location: 'params' },
          ]);
        const now = clock.now();
        let updated: DocumentSignerRecord = { ...signer, active: checked.active, updatedAt: now.toISOString() };
        if (checked.certificatePem !== undefined) {
          const iaca = await store.iacas.get(ctx.tenant.id, signer.iacaId);
          if (!iaca) throw missing();
          const { info, problems } = signerCertificateProblems(
            x509,
            { signer, caPem: iaca.certificatePem, pem: checked.certificatePem, now: now.getTime(), caNoun: 'IACA', signerNoun: 'document signer' },
            (info) =>
              info.extendedKeyUsages.includes(MDL_DOCUMENT_SIGNER_EKU)
                ? undefined
                : `Lacks the document signer extended key usage ${MDL_DOCUMENT_SIGNER_EKU} (ISO/IEC 18013-5 Annex B)`,
          );
          if (problems.length > 0) throw validationError(problems);
          updated = {
            ...updated,
            certificatePem: info.pem,
            fingerprint: info.fingerprint,
            serialNumber: info.serialNumber,
            certificateData: certificateDataOf(info),
          };
        }
        if (updated.active && updated.certificatePem === undefined) {
          throw invalidField('certificatePem', 'Required to activate the document signer: the certificate its IACA issued for the CSR');
        }
        await storeChange(chains, ctx.tenant.id, store.documentSigners.update(updated), missing);
        return documentSignerView(updated);
      });
    },

    revoke(ctx, id) {
      return run(ctx, 'MOBILE_DOCUMENT_SIGNER_REVOKE', { meta }, async () => {
        const signer = await find(ctx, id);
        const revoked = await revokeSigner({ store, keys, chains }, signer, clock.now().toISOString(), { noun: 'document signer', missing });
        return documentSignerView(revoked);
      });
    },

    delete(ctx, id) {
      return run(ctx, 'MOBILE_DOCUMENT_SIGNER_DELETE', { meta: () => ({ id }) }, async () => {
        const signer = await find(ctx, id);
        await storeChange(chains, ctx.tenant.id, store.documentSigners.delete(ctx.tenant.id, id), missing);
        await keys.destroy(ctx.tenant.id, signer.keyId);
      });
    },
  };
}
