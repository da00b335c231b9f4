import { withEvents } from '../events/recorder.ts';
import { withNewKey } from '../keys/new-keys.ts';
import { conflict, type ErrorDetail, notFound, validationError } from '../shared/errors.ts';
import { parsePageQuery, toPage } from '../shared/pagination.ts';
import { adminOperations, type CollectionService, conflictAs } from '../shared/admin-resource.ts';
import type { Addressing } from '../tenancy/addressing.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { DocumentSignerDeps } from './document-signers.ts';
import { type CertificateView, type IacaRecord, MAX_IACAS_PER_TENANT } from './model.ts';
import { IACA_PROFILE, isOfProfile, type PkiProfile } from './profiles.ts';
import { checkCreateIacaInput, checkUpdateIacaInput, type CreateIacaInput, type UpdateIacaInput } from './rules.ts';
import {
  bestSigner,
  certificateDataOf,
  certificateViewOf,
  createManagedSigner,
  crlUriOf,
  findByUuid,
  limitReached,
  rotationDue,
  storeChange,
  validAt,
} from './signers.ts';

/** What the IACA service needs: what the document signer service does, and where the tenant is served (a managed IACA's CRL address). */
export interface IacaDeps extends DocumentSignerDeps {
  addressing: Addressing;
  /** IACAs (the default) or issuer CAs (docs/decisions.md "Issuer certificates"). */
  profile?: PkiProfile;
  /**
   * Run once a managed CA of this profile is stored active, so its first use does not wait and what
   * is published of it (an issuer CA's `/.well-known/jwt-vc-issuer`) is there at once. IACAs get
   * their first document signer before they are stored (`prepareSigner`) and need none.
   */
  afterActivation?: (ctx: RequestContext, ca: IacaRecord, now: Date) => Promise<void>;
}

/** docs/decisions.md "mDoc PKI": an IACA as the API shows it (the same for admins and, for active IACAs, the public). */
export interface IacaView extends CertificateView {
  id: string;
  active: boolean;
  isManaged: boolean;
}

/**
 * A tenant's IACAs. `list` is public: active IACAs for anyone (the issuer metadata's
 * `mdoc_iacas_uri`), every IACA for a caller with `iacas:manage`. `update` activates or deactivates
 * an IACA. `delete` removes an inactive IACA with its document signers, and destroys their keys.
 */
export interface IacaService extends CollectionService<IacaView, CreateIacaInput, UpdateIacaInput> {
  /** Public: the CRL (DER) of a managed IACA, listing the document signers revoked under it. */
  crl(ctx: RequestContext, id: string): Promise<Uint8Array>;
}

/** Renders a stored IACA as docs/decisions.md "mDoc PKI" shows it. */
export function iacaView(r: IacaRecord): IacaView {
  return {
    id: r.id,
    active: r.active,
    isManaged: r.isManaged,
    ...certificateViewOf(r),
  };
}

/** A CRL is valid for a week and made again after a day, or at once when a revocation is added. */
export const CRL_VALIDITY_MS = 7 * 86_400_000;
export const CRL_REFRESH_MS = 86_400_000;

/**
 * IACAs of a tenant (docs/decisions.md "mDoc PKI"): managed ones Vellum creates, imported ones,
 * activation, CRLs. With the issuer CA profile, the same for issuer CAs (docs/decisions.md "Issuer certificates").
 */
export function createIacaService(deps: IacaDeps): IacaService {
  const { store, clock, ids, keys, x509, events, addressing, chains } = deps;
  const pki = deps.profile ?? IACA_PROFILE;
  const { noun } = pki;
  const plural = `${noun}s`;
  const missing = () => notFound(`The tenant has no such ${noun}`);
  const atLimit = () => limitReached(MAX_IACAS_PER_TENANT, plural, plural, pki.profile === 'mdoc' ? 'iacas' : 'issuerCas');
  const profileOf = pki.profile === 'issuer' ? { profile: 'issuer' as const } : {};
  const crls = new Map<string, { stamp: string; madeAt: number; der: Promise<Uint8Array> }>();
  const creation = adminOperations(events, 'iacas:create');
  const { run } = adminOperations(events, 'iacas:manage');
  const meta = (v: IacaView) => ({ id: v.id, isManaged: v.isManaged, active: v.active });

  async function insert(record: IacaRecord): Promise<void> {
    const inserted = await conflictAs(store.iacas.insert(record, MAX_IACAS_PER_TENANT), () =>
      // One certificate is an IACA or an issuer CA of a tenant, never both (one index over both kinds).
      conflict('The tenant already holds this certificate, as an IACA or an issuer CA', [
        { msg: `A CA with fingerprint ${record.fingerprint} exists`, param: 'certificatePem', location: 'body' },
      ]),
    );
    if (!inserted) throw atLimit();
  }

  async function createManaged(
    ctx: RequestContext,
    checked: Extract<ReturnType<typeof checkCreateIacaInput>, { kind: 'managed' }>,
    now: Date,
  ): Promise<IacaRecord> {
    const id = ids.uuid();
    const origin = await addressing.publicOrigin(ctx.tenant);
    const crlUri = crlUriOf(origin, id, pki.path);
    const where = checked.keyCustody !== undefined ? { custody: checked.keyCustody } : undefined;
    return withNewKey(
      keys,
      ctx.tenant.id,
      'P-256',
      async (key) => {
        const certificate = await x509.createIacaCertificate({
          key,
          commonName: checked.commonName,
          country: checked.country,
          ...(checked.stateOrProvinceName !== undefined ? { stateOrProvinceName: checked.stateOrProvinceName } : {}),
          notBefore: checked.notBefore,
          notAfter: checked.notAfter,
          issuerAlternativeName: origin,
          crlDistributionPointUri: crlUri,
        });
        const at = now.toISOString();
        const record: IacaRecord = {
          id,
          ...profileOf,
          tenantId: ctx.tenant.id,
          active: false,
          isManaged: true,
          keyId: key.id,
          certificatePem: certificate.pem,
          fingerprint: certificate.fingerprint,
          certificateData: certificateDataOf(certificate),
          issuerAlternativeName: origin,
          crlUri,
          createdAt: at,
          updatedAt: at,
        };
        await insert(record);
        return record;
      },
      where,
    );
  }

  async function createImported(ctx: RequestContext, certificatePem: string, now: Date): Promise<IacaRecord> {
    const info = x509.parseCertificate(certificatePem);
    const problems: ErrorDetail[] = [];
    const problem = (msg: string) => problems.push({ msg, param: 'certificatePem', location: 'body' });
    if (!info.isCa) problem('Not a CA certificate (BasicConstraints cA is not set)');
    else if (!x509.verifyIssuedBy(certificatePem, certificatePem))
      problem(`Not a self-signed root allowed to sign certificates: an ${noun} is the root of the chain its credentials carry`);
    if (info.publicKey.kty !== 'EC' || info.publicKey.crv !== 'P-256')
      problem(`The key must be EC P-256 (${pki.standard}), not ${info.publicKey.crv ?? info.publicKey.kty}`);
    if (info.country === undefined) problem(`The subject has no country (C), which Vellum requires of an ${noun}`);
    if (info.notAfter.getTime() <= now.getTime()) problem(`The certificate expired at ${info.notAfter.toISOString()}`);
    if (problems.length > 0) throw validationError(problems);
    const at = now.toISOString();
    const record: IacaRecord = {
      id: ids.uuid(),
      ...profileOf,
      tenantId: ctx.tenant.id,
      active: false,
      isManaged: false,
      certificatePem: info.pem,
      fingerprint: info.fingerprint,
      certificateData: certificateDataOf(info),
      createdAt: at,
      updatedAt: at,
    };
    await insert(record);
    return record;
  }

  const find = async (ctx: RequestContext, id: string) => {
    const record = await findByUuid(store.iacas, ctx, id, missing);
    // An IACA is no issuer CA, nor the other way round: each route sees its own kind only.
    if (!isOfProfile(record, pki)) throw missing();
    return record;
  };

  /** Makes sure a managed IACA about to issue has a document signer, so the first credential does not wait for one. */
  async function prepareSigner(ctx: RequestContext, iaca: IacaRecord, now: Date): Promise<void> {
    const at = now.getTime();
    // An issuer CA's leaves name the issuer they sign for, so they are made when first needed.
    if (pki.profile !== 'mdoc' || !iaca.isManaged || !validAt(iaca.certificateData, at)) return;
    const best = bestSigner(await store.documentSigners.listByIaca(ctx.tenant.id, iaca.id), at);
    const notAfter = best?.certificateData ? Date.parse(best.certificateData.notAfter) : undefined;
    if (rotationDue(notAfter, Date.parse(iaca.certificateData.notAfter), at)) await createManagedSigner({ store, keys, x509, ids }, ctx.tenant, iaca, now);
  }

  async function makeCrl(iaca: IacaRecord, now: Date): Promise<Uint8Array> {
    const at = now.getTime();
    const revoked = (await store.iacas.listRevocations(iaca.tenantId, iaca.id)).filter((r) => Date.parse(r.notAfter) > at);
    const stamp = revoked.map((r) => r.serialNumber).join(',');
    const cached = crls.get(iaca.id);
    if (cached && cached.stamp === stamp && at - cached.madeAt < CRL_REFRESH_MS && at >= cached.madeAt) return cached.der;
    const der = x509.createCrl({
      issuer: { key: { tenantId: iaca.tenantId, keyId: iaca.keyId as string }, certificatePem: iaca.certificatePem },
      revoked: revoked.map((r) => ({ serialNumber: r.serialNumber, revokedAt: new Date(r.revokedAt) })),
      thisUpdate: now,
      nextUpdate: new Date(at + CRL_VALIDITY_MS),
    });
    crls.set(iaca.id, { stamp, madeAt: at, der });
    der.catch(() => {
      if (crls.get(iaca.id)?.der === der) crls.delete(iaca.id);
    });
    return der;
  }

  return {
    create(ctx, input) {
      return creation.run(ctx, pki.events.create, { input, meta }, async () => {
        const now = clock.now();
        const checked = checkCreateIacaInput(input, { now, tenantName: ctx.tenant.name, commonNameSuffix: pki.commonNameSuffix });
        // A cheap early refusal before a key is made; the store checks the limit again atomically.
        const held = await store.iacas.list(ctx.tenant.id, { limit: MAX_IACAS_PER_TENANT }, { profile: pki.profile });
        if (held.items.length >= MAX_IACAS_PER_TENANT) throw atLimit();
        const record = checked.kind === 'managed' ? await createManaged(ctx, checked, now) : await createImported(ctx, checked.certificatePem, now);
        return iacaView(record);
      });
    },

    async list(ctx, query) {
      const page = parsePageQuery(query);
      if (!ctx.requestor?.permissions.has('iacas:manage')) {
        // The public view (no token, or one without the permission): no analytic event, as for
        // every public endpoint that anyone may read as often as they like.
        return toPage(await store.iacas.list(ctx.tenant.id, page, { activeOnly: true, profile: pki.profile }), page, iacaView);
      }
      const read = async () => toPage(await store.iacas.list(ctx.tenant.id, page, { profile: pki.profile }), page, iacaView);
      return withEvents(events, ctx, pki.events.list, read, {
        meta: (p) => ({ count: p.data.length }),
        keepResponse: false,
      });
    },

    get(ctx, id) {
      return run(ctx, pki.events.retrieve, { meta }, async () => iacaView(await find(ctx, id)));
    },

    update(ctx, id, input) {
      return run(ctx, pki.events.update, { input, meta }, async () => {
        const { active } = checkUpdateIacaInput(input);
        const record = await find(ctx, id);
        const now = clock.now();
        if (active && Date.parse(record.certificateData.notAfter) <= now.getTime()) {
          throw validationError([
            {
              value: true,
              msg: `The ${noun} certificate expired at ${record.certificateData.notAfter}; it cannot be activated`,
              param: 'active',
              location: 'body',
            },
          ]);
        }
        if (active) await prepareSigner(ctx, record, now);
        const updated: IacaRecord = {
          ...record,
          active,
          updatedAt: now.toISOString(),
          ...(active && !record.active ? { activatedAt: now.toISOString() } : {}),
        };
        await storeChange(chains, ctx.tenant.id, store.iacas.update(updated), missing);
        if (active && updated.isManaged && deps.afterActivation) await deps.afterActivation(ctx, updated, now);
        return iacaView(updated);
      });
    },

    delete(ctx, id) {
      return run(ctx, pki.events.delete, { meta: () => ({ id }) }, async () => {
        const record = await find(ctx, id);
        if (record.active) {
          throw conflict(`Deactivate the ${noun} before deleting it: it is published to verifiers and may be signing credentials`, [
            { value: true, msg: `The ${noun} is active`, param: 'active', location: 'body' },
          ]);
        }
        const signers = await store.documentSigners.listByIaca(ctx.tenant.id, id);
        await storeChange(chains, ctx.tenant.id, store.iacas.delete(ctx.tenant.id, id), missing);
        crls.delete(id);
        // The records are gone first: nothing can pick these keys any more, even if destroying one fails.
        if (record.keyId !== undefined) await keys.destroy(ctx.tenant.id, record.keyId);
        for (const signer of signers) await keys.destroy(ctx.tenant.id, signer.keyId);
      });
    },

    async crl(ctx, id) {
      const record = await find(ctx, id);
      if (!record.isManaged || record.keyId === undefined) throw notFound(`Vellum does not hold the key of this imported ${noun}: its owner publishes its CRL`);
      return makeCrl(record, clock.now());
    },
  };
}
