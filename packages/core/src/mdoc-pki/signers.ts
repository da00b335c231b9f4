// Document signers Vellum creates and rotates for managed IACAs, and the choice of the IACA and
// document signer that sign a tenant's next mDoc.

import type { KeyManager } from '../keys/ports.ts';
import { withNewKey } from '../keys/new-keys.ts';
import type { Store } from '../ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { CertificateInfo, X509Authority } from './ports.ts';
import { conflict, DomainError, type ErrorDetail } from '../shared/errors.ts';
import { requireFound } from '../shared/admin-resource.ts';
import type { RequestContext, Tenant } from '../tenancy/model.ts';
import { isUuid } from '../shared/ids.ts';
import {
  type CertificateData,
  type CertificateView,
  DOCUMENT_SIGNERS_PATH,
  type DocumentSignerRecord,
  IACAS_PATH,
  type IacaRecord,
  MANAGED_SIGNER_VALIDITY_DAYS,
  MAX_SIGNER_ROTATION_DAYS,
  MAX_IACAS_PER_TENANT,
  MAX_REQUESTED_DOCUMENT_SIGNERS,
  SIGNER_BACKDATE_MS,
  SIGNER_ROTATION_DAYS,
} from './model.ts';

const DAY_MS = 86_400_000;

/** The DER inside a single-block PEM, with web-standard globals only; undefined when it is not one. */
export function pemToDer(pem: string): Uint8Array | undefined {
  const m = /^-----BEGIN ([A-Z ]+)-----\r?\n([A-Za-z0-9+/=\r\n]+?)\r?\n?-----END \1-----\s*$/.exec(pem.trim());
  if (!m) return undefined;
  try {
    const raw = atob((m[2] as string).replace(/[\r\n]/g, ''));
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

const COMMON_NAME_MAX = 64;
const SIGNER_SUFFIX = ' Document Signer';

/** The `certificateData` of a parsed certificate (docs/decisions.md "mDoc PKI"). */
export function certificateDataOf(info: CertificateInfo): CertificateData {
  return {
    notBefore: info.notBefore.toISOString(),
    notAfter: info.notAfter.toISOString(),
    ...(info.country !== undefined ? { country: info.country } : {}),
    ...(info.commonName !== undefined ? { commonName: info.commonName } : {}),
    ...(info.stateOrProvinceName !== undefined ? { stateOrProvinceName: info.stateOrProvinceName } : {}),
  };
}

type HeldCertificate = Pick<IacaRecord, 'certificatePem' | 'fingerprint' | 'certificateData'>;

/** The certificate an IACA or a document signer holds, as the API shows it; a requested signer may hold none yet. */
export function certificateViewOf(record: HeldCertificate): CertificateView;
export function certificateViewOf(record: Partial<HeldCertificate>): Partial<CertificateView>;
export function certificateViewOf(record: Partial<HeldCertificate>): Partial<CertificateView> {
  return {
    ...(record.certificatePem !== undefined ? { certificatePem: record.certificatePem } : {}),
    ...(record.fingerprint !== undefined ? { certificateFingerprint: record.fingerprint } : {}),
    ...(record.certificateData !== undefined ? { certificateData: record.certificateData } : {}),
  };
}

/** The CRL distribution point of a managed IACA (or, under `path`, issuer CA) under the origin it was created on. */
export function crlUriOf(origin: string, iacaId: string, path = IACAS_PATH): string {
  return `${origin}${path}/${iacaId}/crl`;
}

/** A document signer's common name: its IACA's, with " Document Signer" in place of a trailing " IACA". */
export function signerCommonName(iacaCommonName: string | undefined): string {
  const base = (iacaCommonName ?? 'Vellum').replace(/\s*IACA$/i, '').trim() || 'Vellum';
  return `${base.slice(0, COMMON_NAME_MAX - SIGNER_SUFFIX.length).trim()}${SIGNER_SUFFIX}`;
}

const time = (iso: string | undefined) => (iso === undefined ? Number.NaN : Date.parse(iso));

/** Whether a certificate's validity covers `at`. */
export function validAt(data: CertificateData | undefined, at: number): boolean {
  return data !== undefined && time(data.notBefore) <= at && at < time(data.notAfter);
}

/** A signer that may sign at `at`: active, not revoked, certified, and valid then. */
export function canSign(signer: DocumentSignerRecord, at: number): boolean {
  return signer.active && signer.revokedAt === undefined && signer.certificatePem !== undefined && validAt(signer.certificateData, at);
}

/**
 * Of the signers that can sign at `at`, the one whose certificate lasts longest; of those that last
 * as long (certificate times are whole seconds, and a CA's end caps them all), the one made last, so
 * that a signer made by a rotation is the one that signs.
 */
export function bestSigner(signers: readonly DocumentSignerRecord[], at: number): DocumentSignerRecord | undefined {
  let best: DocumentSignerRecord | undefined;
  for (const s of signers) {
    if (!canSign(s, at)) continue;
    const [mine, theirs] = [time(s.certificateData?.notAfter), best && time(best.certificateData?.notAfter)];
    if (!best || theirs === undefined || mine > theirs || (mine === theirs && s.createdAt >= best.createdAt)) best = s;
  }
  return best;
}

/**
 * Whether a managed IACA needs a new document signer at `at` for a credential living `lifetimeMs`:
 * none can sign, or the best ends within N days, N = the lifetime clamped to
 * [{@link SIGNER_ROTATION_DAYS}, {@link MAX_SIGNER_ROTATION_DAYS}] days, while a new one would last
 * longer (a signer never outlives its IACA, so near the IACA's end the last signer is kept).
 */
export function rotationDue(signerNotAfter: number | undefined, iacaNotAfter: number, at: number, lifetimeMs = 0): boolean {
  if (signerNotAfter === undefined) return true;
  const needed = Math.min(Math.max(lifetimeMs, SIGNER_ROTATION_DAYS * DAY_MS), MAX_SIGNER_ROTATION_DAYS * DAY_MS);
  return signerNotAfter < Math.min(at + needed, iacaNotAfter);
}

export interface ManagedSignerDeps {
  store: Store;
  keys: KeyManager;
  x509: X509Authority;
  ids: { uuid(): string };
}

/** What makes a managed signer an issuer CA's leaf (docs/decisions.md "Issuer certificates") rather than a document signer. */
export interface LeafOptions {
  use: NonNullable<DocumentSignerRecord['use']>;
  commonName: string;
  subjectAltNames: readonly string[];
}

/**
 * Creates a document signer for a managed IACA: a P-256 key in the KeyManager and a certificate the
 * IACA's key signs (ISO/IEC 18013-5 Annex B), valid {@link MANAGED_SIGNER_VALIDITY_DAYS} days or
 * until the IACA ends. With `leaf`, the same for a managed issuer CA's leaf of that use, its
 * certificate naming `subjectAltNames`. A key whose signer could not be stored is destroyed.
 */
export async function createManagedSigner(
  deps: ManagedSignerDeps,
  tenant: Tenant,
  iaca: IacaRecord,
  now: Date,
  leaf?: LeafOptions,
): Promise<DocumentSignerRecord> {
  const { store, keys, x509, ids } = deps;
  const { keyId, crlUri, issuerAlternativeName } = iaca;
  if (!iaca.isManaged || keyId === undefined || crlUri === undefined || issuerAlternativeName === undefined) {
    throw new DomainError('InternalServerError', 'Only a managed CA gets signers from Vellum');
  }
  const iacaNotBefore = time(iaca.certificateData.notBefore);
  const iacaNotAfter = time(iaca.certificateData.notAfter);
  const notBefore = Math.max(iacaNotBefore, now.getTime() - SIGNER_BACKDATE_MS);
  // The signer's key is held where its CA's is (docs/key-custody.md "Custody per resource").
  return withNewKey(
    keys,
    tenant.id,
    'P-256',
    async (key) => {
      const certificate = await x509.createDocumentSignerCertificate({
        issuer: { key: { tenantId: tenant.id, keyId }, certificatePem: iaca.certificatePem },
        subjectPublicJwk: key.publicJwk,
        commonName: leaf ? leaf.commonName : signerCommonName(iaca.certificateData.commonName),
        ...(leaf ? { subjectAltNames: leaf.subjectAltNames } : {}),
        country: iaca.certificateData.country ?? '',
        ...(iaca.certificateData.stateOrProvinceName !== undefined ? { stateOrProvinceName: iaca.certificateData.stateOrProvinceName } : {}),
        notBefore: new Date(notBefore),
        notAfter: new Date(Math.min(iacaNotAfter, notBefore + MANAGED_SIGNER_VALIDITY_DAYS * DAY_MS)),
        issuerAlternativeName,
        crlDistributionPointUri: crlUri,
      });
      const at = now.toISOString();
      const signer: DocumentSignerRecord = {
        id: ids.uuid(),
        tenantId: tenant.id,
        iacaId: iaca.id,
        ...(leaf ? { use: leaf.use, subjectAltNames: certificate.subjectAltNames } : {}),
        isManaged: true,
        active: true,
        keyId: key.id,
        publicJwk: key.publicJwk,
        certificatePem: certificate.pem,
        fingerprint: certificate.fingerprint,
        serialNumber: certificate.serialNumber,
        certificateData: certificateDataOf(certificate),
        createdAt: at,
        updatedAt: at,
      };
      await store.documentSigners.insert(signer);
      return signer;
    },
    { sameCustodyAs: keyId },
  );
}

/**
 * Requests a signer under a CA Vellum does not hold the key of (the CSR flow, docs/decisions.md
 * "mDoc PKI"): a KeyManager P-256 key and its PKCS#10 request with the CA's country and state, kept
 * inactive until the CA's owner certifies it. When the tenant already holds the most requested
 * signers of the kind it may, `atLimit` is thrown and the new key destroyed.
 */
export async function requestSigner(
  deps: Pick<ManagedSignerDeps, 'store' | 'keys' | 'x509' | 'ids'>,
  ca: IacaRecord,
  country: string,
  request: { commonName: string; use?: DocumentSignerRecord['use']; now: string; atLimit: () => DomainError },
): Promise<DocumentSignerRecord> {
  const { store, keys, x509, ids } = deps;
  return withNewKey(keys, ca.tenantId, 'P-256', async (key) => {
    const csrPem = await x509.createCsr({
      key,
      commonName: request.commonName,
      country,
      ...(ca.certificateData.stateOrProvinceName !== undefined ? { stateOrProvinceName: ca.certificateData.stateOrProvinceName } : {}),
    });
    const record: DocumentSignerRecord = {
      id: ids.uuid(),
      tenantId: ca.tenantId,
      iacaId: ca.id,
      ...(request.use !== undefined ? { use: request.use } : {}),
      isManaged: false,
      active: false,
      keyId: key.id,
      publicJwk: key.publicJwk,
      csrPem,
      createdAt: request.now,
      updatedAt: request.now,
    };
    // Thrown inside: withNewKey destroys the key of a signer that was not stored.
    if (!(await store.documentSigners.insert(record, MAX_REQUESTED_DOCUMENT_SIGNERS))) throw request.atLimit();
    return record;
  });
}

/** Removes a managed IACA's signers whose certificates have expired, and destroys their keys. Revocations stay. */
export async function pruneExpiredSigners(
  deps: Pick<ManagedSignerDeps, 'store' | 'keys'>,
  tenantId: string,
  signers: readonly DocumentSignerRecord[],
  at: number,
): Promise<void> {
  for (const s of signers) {
    if (s.isManaged && s.certificateData !== undefined && time(s.certificateData.notAfter) <= at) {
      if (await deps.store.documentSigners.delete(tenantId, s.id)) await deps.keys.destroy(tenantId, s.keyId).catch(() => false);
    }
  }
}

/** The IACA and document signer that sign a tenant's mDocs now. */
export interface IssuingChain {
  iaca: IacaRecord;
  signer: DocumentSignerRecord;
  /** The COSE x5chain: the document signer's certificate (DER). The IACA is the verifier's trust anchor. */
  x5chain: Uint8Array[];
}

export interface IssuingChainsDeps extends ManagedSignerDeps {
  clock: Clock;
}

export interface IssuingChains {
  /**
   * The chain that signs the tenant's next mDoc, valid from `now` for `lifetimeMs`: of the active
   * IACAs valid now, the one activated last, and its document signer whose certificate lasts
   * longest. For a managed IACA the signer is created (or rotated) when needed. Throws a 400 when
   * there is no active IACA, or no usable document signer for an imported one.
   */
  current(tenant: Tenant, now: Date, lifetimeMs: number): Promise<IssuingChain>;
  /**
   * Told that the tenant's IACAs or document signers changed: a cache in front of the chains
   * (cacheIssuingChains) forgets the tenant's chain. The chains themselves keep nothing.
   */
  invalidate(tenantId: string): void;
}

/**
 * Stores a change to an IACA or a document signer (`write` is false when it is gone: `missing`),
 * then tells the chains, so that issuance stops using a deactivated or removed one at once.
 */
export async function storeChange(
  chains: Pick<IssuingChains, 'invalidate'>,
  tenantId: string,
  write: Promise<boolean>,
  missing: () => DomainError,
): Promise<void> {
  if (!(await write)) throw missing();
  chains.invalidate(tenantId);
}

const sameKey = (a: { x?: string; y?: string }, b: { x?: string; y?: string }) => a.x !== undefined && a.x === b.x && a.y === b.y;

/**
 * The checks of a certificate a CA's owner issued for a requested signer (the CSR flow), each
 * failure one detail on `certificatePem`: issued by the CA, for the signer's key, what the profile
 * asks (`profileProblem`: the document signer EKU, or an issuer leaf's SAN), no CA, valid now.
 */
export function signerCertificateProblems(
  x509: X509Authority,
  request: { signer: DocumentSignerRecord; caPem: string; pem: string; now: number; caNoun: string; signerNoun: string },
  profileProblem: (info: CertificateInfo) => string | undefined,
): { info: CertificateInfo; problems: ErrorDetail[] } {
  const { signer, caPem, pem, now, caNoun, signerNoun } = request;
  const info = x509.parseCertificate(pem);
  const problems: ErrorDetail[] = [];
  const problem = (msg: string) => problems.push({ msg, param: 'certificatePem', location: 'body' });
  if (!x509.verifyIssuedBy(pem, caPem)) problem(`Not issued by the ${caNoun} ${signer.iacaId} (the issuer name, key identifier or signature does not match)`);
  if (!sameKey(info.publicKey, signer.publicJwk)) problem(`Does not certify this ${signerNoun}’s key (the public key of its CSR)`);
  const forProfile = profileProblem(info);
  if (forProfile !== undefined) problem(forProfile);
  if (info.isCa) problem(`A CA certificate cannot be a ${signerNoun}`);
  if (!(info.notBefore.getTime() <= now && now < info.notAfter.getTime()))
    problem(`Not valid now: it is valid from ${info.notBefore.toISOString()} to ${info.notAfter.toISOString()}`);
  return { info, problems };
}

/**
 * Revokes a signer for good (docs/decisions.md "mDoc PKI": revocation is final): marks it revoked
 * and inactive and records its serial number for its CA's CRL in one transaction, tells the chains,
 * then destroys its key, so that no server can sign with it again whatever it has cached.
 */
export async function revokeSigner(
  deps: { store: Store; keys: KeyManager; chains: Pick<IssuingChains, 'invalidate'> },
  signer: DocumentSignerRecord,
  now: string,
  refusals: { noun: string; missing: () => DomainError },
): Promise<DocumentSignerRecord> {
  const { noun, missing } = refusals;
  if (signer.revokedAt !== undefined)
    throw conflict(`The ${noun} is already revoked`, [{ value: signer.revokedAt, msg: 'Revoked', param: 'id', location: 'params' }]);
  const revoked: DocumentSignerRecord = { ...signer, active: false, revokedAt: now, updatedAt: now };
  await deps.store.transaction(async (tx) => {
    if (!(await tx.documentSigners.update(revoked))) throw missing();
    if (signer.serialNumber !== undefined && signer.certificateData !== undefined) {
      await tx.iacas.addRevocation(signer.tenantId, signer.iacaId, {
        serialNumber: signer.serialNumber,
        revokedAt: now,
        notAfter: signer.certificateData.notAfter,
      });
    }
  });
  deps.chains.invalidate(signer.tenantId);
  await deps.keys.destroy(signer.tenantId, signer.keyId);
  return revoked;
}

/**
 * The Conflict when a tenant already holds the most IACAs or requested document signers it may
 * (docs/decisions.md "mDoc PKI"): `limited` names what the limit counts, `held` what the tenant holds.
 */
export function limitReached(limit: number, limited: string, held: string, param: string): DomainError {
  return conflict(`A tenant holds at most ${limit} ${limited}; delete one first`, [
    { value: limit, msg: `The tenant already holds ${limit} ${held}, the most it may`, param, location: 'body' },
  ]);
}

/**
 * The tenant's IACA or document signer `id` names, or `missing`. Ids are UUIDs: anything else names
 * none, and is not sent to the store (PostgreSQL refuses NUL in text).
 */
export function findByUuid<R>(
  records: { get(tenantId: string, id: string): Promise<R | undefined> },
  ctx: RequestContext,
  id: string,
  missing: () => DomainError,
): Promise<R> {
  return requireFound(isUuid(id) ? records.get(ctx.tenant.id, id) : undefined, missing);
}

/** The 400 when a tenant has no IACA to issue under (docs/decisions.md "mDoc PKI"). */
export function noActiveIaca(detail?: string): DomainError {
  return new DomainError('BadRequest', `No active IACA: create or activate one at ${IACAS_PATH}${detail ? ` (${detail})` : ''}`);
}

function noActiveSigner(iaca: IacaRecord): DomainError {
  return new DomainError(
    'BadRequest',
    `No active document signer for the active IACA ${iaca.id}, which Vellum does not hold the key of: create one at ${DOCUMENT_SIGNERS_PATH}, have the IACA sign its CSR, and activate it with the certificate`,
  );
}

/** What a forced rotation made, and the signers it superseded (not revoked: they verify until they expire). */
export interface SignerRotationResult {
  /** The new signers, one per CA (document signers) or per use and issuer (issuer leaves). */
  created: DocumentSignerRecord[];
  /** The signers that signed before, in the same order: still active and unrevoked, still listed, until their certificates expire. */
  superseded: DocumentSignerRecord[];
}

/**
 * What a forced rotation of document signers needs: what makes a managed signer (as the automatic
 * rotation makes one), and the issuing chains that issuance uses, or at least their `invalidate`,
 * so that the cache in front of them (cacheIssuingChains) forgets the tenant's chain.
 */
export interface DocumentSignerRotationDeps extends ManagedSignerDeps {
  chains: Pick<IssuingChains, 'invalidate'>;
}

/**
 * Forced rotation of the tenant's document signers (issue 32, point 4; docs/key-custody.md
 * "Rotation"): each active managed IACA valid at `now` that has a managed signer able to sign gets a
 * new one, made by {@link createManagedSigner} as the automatic rotation makes them (a new key, a new
 * certificate). It signs from now on: `createIssuingChains` takes {@link bestSigner}, the signer
 * lasting longest, and of those lasting as long (certificate times are whole seconds, and the
 * IACA's end caps them) the one made last, the store listing signers in creation order. The old
 * signer is neither revoked nor deactivated nor deleted: it stays in the IACA's signer list and the
 * mDocs it signed verify until its certificate expires (the automatic rotation prunes it after).
 *
 * The chains are invalidated, so every issuance in this process uses the new signer at once; other
 * processes keep their cached chain for at most their `mdocSignerCacheMs` (1 s by default), signing
 * with the old signer meanwhile, which is harmless since it stays valid.
 *
 * IACAs imported with a certificate are skipped: Vellum does not hold their keys, their signers come
 * from the CSR flow, and rotating one is a new CSR (`POST /v2/credentials/mobile/document-signers`)
 * that its owner certifies. Neither they nor an IACA without a signer in use appear in the result.
 */
export async function rotateManagedDocumentSigners(deps: DocumentSignerRotationDeps, tenant: Tenant, now: Date): Promise<SignerRotationResult> {
  const at = now.getTime();
  const result: SignerRotationResult = { created: [], superseded: [] };
  const active = (await deps.store.iacas.list(tenant.id, { limit: MAX_IACAS_PER_TENANT * 4 }, { activeOnly: true })).items;
  try {
    for (const iaca of active.filter((i) => i.isManaged && validAt(i.certificateData, at))) {
      const signers = await deps.store.documentSigners.listByIaca(tenant.id, iaca.id);
      const current = bestSigner(
        signers.filter((s) => s.isManaged),
        at,
      );
      if (!current) continue;
      result.created.push(await createManagedSigner(deps, tenant, iaca, now));
      result.superseded.push(current);
    }
  } finally {
    // Also when a later IACA failed: what was made signs now.
    if (result.created.length > 0) deps.chains.invalidate(tenant.id);
  }
  return result;
}

/**
 * Chooses and (for managed IACAs) rotates the chain that signs each tenant's mDocs, reading the
 * store on every call. Reuse, and one load shared by concurrent calls (so at most one new signer),
 * come from cacheIssuingChains (cached-chains.ts), which the composition puts in front.
 */
export function createIssuingChains(deps: IssuingChainsDeps): IssuingChains {
  const { store, x509 } = deps;
  return {
    async current(tenant, now, lifetimeMs) {
      const at = now.getTime();
      const active = (await store.iacas.list(tenant.id, { limit: MAX_IACAS_PER_TENANT * 4 }, { activeOnly: true })).items;
      if (active.length === 0) throw noActiveIaca();
      const valid = active.filter((i) => validAt(i.certificateData, at));
      if (valid.length === 0) throw noActiveIaca('the active ones are expired or not yet valid');
      // Activated last; on a tie, created last (the list is in creation order).
      const iaca = valid.reduce((a, b) => ((b.activatedAt ?? '') >= (a.activatedAt ?? '') ? b : a));
      const signers = await store.documentSigners.listByIaca(tenant.id, iaca.id);
      let signer = bestSigner(signers, at);
      if (iaca.isManaged) {
        if (rotationDue(signer && time(signer.certificateData?.notAfter), time(iaca.certificateData.notAfter), at, lifetimeMs)) {
          signer = await createManagedSigner(deps, tenant, iaca, now);
          await pruneExpiredSigners(deps, tenant.id, signers, at);
        }
      } else if (!signer) {
        throw noActiveSigner(iaca);
      }
      const chosen = signer as DocumentSignerRecord;
      // The stored PEM was parsed and checked when it was stored; its DER is all the x5chain needs.
      const der = pemToDer(chosen.certificatePem as string) ?? x509.parseCertificate(chosen.certificatePem as string).der;
      return { iaca, signer: chosen, x5chain: [der] };
    },
    invalidate() {
      // Nothing is kept here.
    },
  };
}
