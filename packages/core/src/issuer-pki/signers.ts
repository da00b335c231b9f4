// The leaves of issuer CAs (docs/decisions.md "Issuer certificates"): which one signs a tenant's
// next SD-JWT VC, signed metadata or status list token, made and rotated by Vellum under a managed
// issuer CA, requested with a CSR under an imported one.

import { type DocumentSignerRecord, type IacaRecord, MAX_IACAS_PER_TENANT } from '../mdoc-pki/model.ts';
import { ISSUER_CAS_PATH, ISSUER_SIGNERS_PATH } from '../mdoc-pki/profiles.ts';
import {
  type ManagedSignerDeps,
  bestSigner,
  canSign,
  createManagedSigner,
  pemToDer,
  pruneExpiredSigners,
  rotationDue,
  type SignerRotationResult,
  validAt,
} from '../mdoc-pki/signers.ts';
import { DomainError } from '../shared/errors.ts';
import type { Clock } from '../shared/ports.ts';
import { hostName } from '../tenancy/addressing.ts';
import type { Tenant } from '../tenancy/model.ts';
import type { IssuerSignerUse, IssuerSigners, X509Signer } from './model.ts';

const COMMON_NAME_MAX = 64;
const SUFFIX: Readonly<Record<IssuerSignerUse, string>> = { credential: ' Credential Signer', 'status-list': ' Status List Signer' };
const time = (iso: string | undefined) => (iso === undefined ? Number.NaN : Date.parse(iso));

/** A leaf's common name: its CA's, with the use in place of a trailing " Issuer CA" (or " CA"). */
export function leafCommonName(caCommonName: string | undefined, use: IssuerSignerUse): string {
  // The whole word only: an imported root named "State DMV IACA" keeps its name.
  const base = (caCommonName ?? 'Vellum').replace(/\s*\b(Issuer\s+)?CA$/i, '').trim() || 'Vellum';
  const suffix = SUFFIX[use];
  return `${base.slice(0, COMMON_NAME_MAX - suffix.length).trim()}${suffix}`;
}

/**
 * The subject alternative names a managed leaf carries for `issuer` (the credential issuer
 * identifier): the identifier itself as a URI, which SD-JWT VC matches `iss` against, and its host
 * as a DNS name, which HAIP and older drafts match instead.
 */
export function leafNamesFor(issuer: string): string[] {
  return [issuer, hostName(new URL(issuer).host)];
}

/** Whether a leaf's certificate names `issuer` as a URI subject alternative name. */
export const namesIssuer = (leaf: Pick<DocumentSignerRecord, 'subjectAltNames'>, issuer: string) => leaf.subjectAltNames?.includes(issuer) === true;

/** The usable leaf of `use` for `issuer` whose certificate lasts longest. */
export function bestLeaf(leaves: readonly DocumentSignerRecord[], use: IssuerSignerUse, issuer: string, at: number): DocumentSignerRecord | undefined {
  return bestSigner(
    leaves.filter((l) => l.use === use && namesIssuer(l, issuer)),
    at,
  );
}

/**
 * Makes a leaf of `use` for `issuer` under a managed issuer CA: a KeyManager P-256 key and a
 * certificate the CA's key signs, valid as long as an mDoc document signer (or until the CA ends).
 */
export function createManagedLeaf(
  deps: ManagedSignerDeps,
  tenant: Tenant,
  ca: IacaRecord,
  use: IssuerSignerUse,
  issuer: string,
  now: Date,
): Promise<DocumentSignerRecord> {
  return createManagedSigner(deps, tenant, ca, now, {
    use,
    commonName: leafCommonName(ca.certificateData.commonName, use),
    subjectAltNames: leafNamesFor(issuer),
  });
}

const noIssuerCa = (detail?: string) =>
  new DomainError('BadRequest', `No active issuer CA: create or activate one at ${ISSUER_CAS_PATH}${detail ? ` (${detail})` : ''}`);

// Short, as error details are: docs/decisions.md "Issuer certificates" says the rest of the CSR flow.
const noLeaf = (ca: IacaRecord, use: IssuerSignerUse, issuer: string) =>
  new DomainError('BadRequest', `No ${use} signer for ${issuer} under the imported issuer CA ${ca.id}: request one at ${ISSUER_SIGNERS_PATH}`);

/** The active issuer CAs valid at `at`, the one activated last first. */
async function activeCas(store: ManagedSignerDeps['store'], tenantId: string, at: number): Promise<IacaRecord[]> {
  const active = (await store.iacas.list(tenantId, { limit: MAX_IACAS_PER_TENANT * 4 }, { activeOnly: true, profile: 'issuer' })).items;
  return active.filter((ca) => validAt(ca.certificateData, at)).sort((a, b) => ((b.activatedAt ?? '') > (a.activatedAt ?? '') ? 1 : -1));
}

/** The active issuer CA that signs now: of those valid at `at`, the one activated last. */
async function activeCa(store: ManagedSignerDeps['store'], tenantId: string, at: number): Promise<IacaRecord | undefined> {
  return (await activeCas(store, tenantId, at))[0];
}

/** The credential issuer identifiers a leaf names: its URI subject alternative names (leafNamesFor). */
const issuersNamedBy = (leaf: DocumentSignerRecord) => (leaf.subjectAltNames ?? []).filter((name) => /^https?:\/\//.test(name));

/**
 * What a forced rotation of issuer leaves needs: what makes a managed leaf, and the issuer signers
 * that issuance uses, or at least their `invalidate`, so that the cache in front of them
 * (cacheIssuerSigners) forgets the tenant's leaves.
 */
export interface IssuerLeafRotationDeps extends ManagedSignerDeps {
  issuerSigners: Pick<IssuerSigners, 'invalidate'>;
}

/**
 * Forced rotation of the tenant's issuer leaves (issue 32, point 4; docs/key-custody.md
 * "Rotation"): under the active issuer CA that signs now, when Vellum manages it, each (use, issuer)
 * that has a managed leaf able to sign gets a new leaf, made by {@link createManagedLeaf} as the
 * automatic rotation makes them. It signs from now on: `current` takes {@link bestLeaf}, the leaf
 * lasting longest, and of those lasting as long (whole seconds, capped by the CA's end) the one
 * made last. The old leaves are neither revoked nor deactivated: `published` (what
 * `/.well-known/jwt-vc-issuer` lists) keeps them beside the new ones until they expire, so what they
 * signed keeps verifying.
 *
 * The issuer signers are invalidated, so every signature in this process (SD-JWT VC, CWT, signed
 * metadata, status list tokens) uses the new leaf at once; other processes keep their cached leaf for
 * at most their `mdocSignerCacheMs` (1 s by default), signing with the old one meanwhile, which is
 * harmless since it stays valid and published.
 *
 * An imported issuer CA is skipped: Vellum does not hold its key, its leaves come from the CSR flow,
 * and rotating one is a new CSR (`POST /v2/credentials/issuer-signers`) that its owner certifies.
 * The result is then empty, as it is when the tenant has no active issuer CA or no leaf in use.
 */
export async function rotateManagedIssuerLeaves(deps: IssuerLeafRotationDeps, tenant: Tenant, now: Date): Promise<SignerRotationResult> {
  const at = now.getTime();
  const result: SignerRotationResult = { created: [], superseded: [] };
  const ca = await activeCa(deps.store, tenant.id, at);
  if (!ca?.isManaged) return result;
  const leaves = (await deps.store.documentSigners.listByIaca(tenant.id, ca.id)).filter((l) => l.isManaged);
  // The leaf in use for each use and issuer some usable leaf names, in the order they were made.
  const inUse = new Map<string, { use: IssuerSignerUse; issuer: string; leaf: DocumentSignerRecord }>();
  for (const leaf of leaves) {
    if (leaf.use === undefined || !canSign(leaf, at)) continue;
    for (const issuer of issuersNamedBy(leaf)) {
      const key = `${leaf.use} ${issuer}`;
      const best = inUse.has(key) ? undefined : bestLeaf(leaves, leaf.use, issuer, at);
      if (best) inUse.set(key, { use: leaf.use, issuer, leaf: best });
    }
  }
  try {
    for (const { use, issuer, leaf } of inUse.values()) {
      result.created.push(await createManagedLeaf(deps, tenant, ca, use, issuer, now));
      result.superseded.push(leaf);
    }
  } finally {
    // Also when a later leaf failed: what was made signs now.
    if (result.created.length > 0) deps.issuerSigners.invalidate(tenant.id);
  }
  return result;
}

/** A stored leaf as a signer, its chain the leaf alone (the CA is the verifier's trust anchor). */
export function x509SignerOf(leaf: DocumentSignerRecord): X509Signer {
  const pem = leaf.certificatePem as string;
  const der = pemToDer(pem);
  if (der === undefined) throw new DomainError('InternalServerError', `The stored certificate of signer ${leaf.id} is no PEM`);
  return {
    caId: leaf.iacaId,
    signerId: leaf.id,
    key: { tenantId: leaf.tenantId, keyId: leaf.keyId },
    publicJwk: leaf.publicJwk,
    // The PEM's body is the DER in standard base64, as x5c takes it (RFC 7515 §4.1.6).
    x5c: [pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')],
    x5chain: [der],
    notAfter: new Date(time(leaf.certificateData?.notAfter)),
  };
}

export interface IssuerSignersDeps extends ManagedSignerDeps {
  clock: Clock;
}

/**
 * Chooses (and, under a managed issuer CA, makes and rotates) the leaf that signs, reading the
 * store on every call; cacheIssuerSigners puts reuse in front (docs/decisions.md "Issuer certificates").
 */
export function createIssuerSigners(deps: IssuerSignersDeps): IssuerSigners {
  const { store } = deps;
  return {
    async current(tenant, use, issuer, now, lifetimeMs = 0) {
      const at = now.getTime();
      const ca = await activeCa(store, tenant.id, at);
      if (!ca) throw noIssuerCa();
      const leaves = await store.documentSigners.listByIaca(tenant.id, ca.id);
      let leaf = bestLeaf(leaves, use, issuer, at);
      if (ca.isManaged) {
        if (rotationDue(leaf && time(leaf.certificateData?.notAfter), time(ca.certificateData.notAfter), at, lifetimeMs)) {
          leaf = await createManagedLeaf(deps, tenant, ca, use, issuer, now);
          await pruneExpiredSigners(deps, tenant.id, leaves, at);
        }
      } else if (!leaf) {
        throw noLeaf(ca, use, issuer);
      }
      return x509SignerOf(leaf as DocumentSignerRecord);
    },
    async published(tenant, use, issuer, now) {
      const at = now.getTime();
      const published: X509Signer[] = [];
      // Under every active CA, not only the one that signs now: what an earlier CA's leaf signed still verifies while both last.
      for (const ca of await activeCas(store, tenant.id, at)) {
        const leaves = (await store.documentSigners.listByIaca(tenant.id, ca.id)).filter((l) => l.use === use && namesIssuer(l, issuer) && canSign(l, at));
        // The order bestLeaf chooses in: lasting longest first, and of those lasting as long, made last
        // first (the store lists them in creation order), so that a leaf a rotation made comes first.
        leaves.reverse();
        leaves.sort(
          (a, b) =>
            time(b.certificateData?.notAfter) - time(a.certificateData?.notAfter) || (b.createdAt > a.createdAt ? 1 : b.createdAt < a.createdAt ? -1 : 0),
        );
        published.push(...leaves.map(x509SignerOf));
      }
      return published;
    },
    async available(tenant, now) {
      return (await activeCa(store, tenant.id, now.getTime())) !== undefined;
    },
    invalidate() {
      // Nothing is kept here.
    },
  };
}
