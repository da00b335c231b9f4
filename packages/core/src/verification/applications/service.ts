// Verifier applications (docs/verification.md "Verifier applications", docs/decisions.md "Verifier
// applications (issue 31)"): CRUD at /v2/presentations/applications, the x509_hash certificate
// (CSR out, chain in), and signerFor, which presentation sessions use to address and sign requests.

import type { Static } from '@sinclair/typebox';
import type { EventRecorder } from '../../events/recorder.ts';
import type { KeyManager } from '../../keys/ports.ts';
import type { KeyCustody } from '../../keys/model.ts';
import { withNewKey } from '../../keys/new-keys.ts';
import type { X509Authority } from '../../mdoc-pki/ports.ts';
import { limitReached, pemToDer } from '../../mdoc-pki/signers.ts';
import type { Store } from '../../ports.ts';
import { adminOperations, type CollectionService, requireFound } from '../../shared/admin-resource.ts';
import { Problems } from '../../shared/body-problems.ts';
import { bytesToBase64Url } from '../../shared/encoding.ts';
import { DomainError, invalidField, notFound } from '../../shared/errors.ts';
import { isUuid } from '../../shared/ids.ts';
import type { Clock, Ids } from '../../shared/ports.ts';
import type { RequestContext, Tenant } from '../../tenancy/model.ts';
import { MAX_VERIFIER_APPLICATIONS_PER_TENANT, REQUEST_OBJECT_TYP, type RequestObjectSigner, type VerifierApplication, type VerifierX509 } from './model.ts';
import { currentDidKey } from '../../dids/model.ts';
import { VerifierApplicationBody, VerifierCertificateBody } from './schema.ts';

export const VERIFIER_APPLICATIONS_PATH = '/v2/presentations/applications';

export interface VerifierApplicationDeps {
  store: Pick<Store, 'verifierApplications' | 'dids'>;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
  keys: KeyManager;
  x509: Pick<X509Authority, 'createCsr' | 'parseCertificate' | 'verifyIssuedBy'>;
}

/** A verifier application as the API shows it (docs/verification.md "Verifier applications"). */
export interface VerifierApplicationView
  extends Pick<VerifierApplication, 'id' | 'name' | 'clientIdPrefix' | 'responseModes' | 'redirectUris' | 'display' | 'did' | 'createdAt' | 'updatedAt'> {
  /** The client_id when it is known: always but for x509_hash without a certificate, and redirect_uri (per session). */
  clientId?: string;
  /** x509_hash: the CSR for the request-signing key, and the chain once uploaded. */
  csr?: string;
  certificates?: string[];
  /** x509_hash, after a rotation: the CSR of the next key, which signs once its chain is uploaded. */
  nextCsr?: string;
}

export interface VerifierApplicationService extends CollectionService<VerifierApplicationView> {
  /** `PUT .../{id}/certificate`: the chain for an x509_hash application's key, leaf first. */
  setCertificate(ctx: RequestContext, id: string, input: unknown): Promise<VerifierApplicationView>;
  /**
   * docs/key-custody.md "Rotation": an x509_hash application gets a next key and its CSR (the
   * subject as its certificate's, its country unless `country` is given); the current key signs
   * until a chain for the next one is uploaded with setCertificate, which switches to it and
   * destroys the old key. A second rotation before that replaces the next key. Other prefixes are
   * refused: a decentralized_identifier application rotates with its DID, a redirect_uri one signs
   * nothing. Not an admin operation by itself: the signing key rotation service checks and records it.
   */
  rotateKey(tenant: Tenant, id: string, country?: string): Promise<{ current: string; next: { keyId: string; csrPem: string } }>;
  /**
   * For a session: the application (NotFound DomainError when the tenant has none with that id) and its signer.
   * `responseUri` is the session's response endpoint (the redirect_uri prefix's client_id). No permission
   * check: callers are use cases that did their own.
   */
  signerFor(tenant: Tenant, applicationId: string, responseUri: string, now: Date): Promise<{ application: VerifierApplication; signer: RequestObjectSigner }>;
}

/** hex → base64url. */
function hexToBase64Url(hex: string): string {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytesToBase64Url(bytes);
}

/** The x509_hash client_id of a leaf (OpenID4VP 1.0 §5.9.3): base64url of the SHA-256 of its DER. */
export function x509HashClientId(x509: Pick<X509Authority, 'parseCertificate'>, leafPem: string): string {
  return `x509_hash:${hexToBase64Url(x509.parseCertificate(leafPem).fingerprint)}`;
}

/** Renders a stored application as the API shows it. */
export function verifierApplicationView(a: VerifierApplication, x509: Pick<X509Authority, 'parseCertificate'>): VerifierApplicationView {
  const leaf = a.x509?.certificates?.[0];
  const clientId =
    a.clientIdPrefix === 'decentralized_identifier' && a.did !== undefined
      ? `decentralized_identifier:${a.did}`
      : leaf !== undefined
        ? x509HashClientId(x509, leaf)
        : undefined;
  return {
    id: a.id,
    name: a.name,
    clientIdPrefix: a.clientIdPrefix,
    responseModes: [...a.responseModes],
    redirectUris: [...a.redirectUris],
    ...(a.display ? { display: { ...a.display } } : {}),
    ...(a.did !== undefined ? { did: a.did } : {}),
    ...(clientId !== undefined ? { clientId } : {}),
    ...(a.x509 ? { csr: a.x509.csrPem } : {}),
    ...(a.x509?.certificates ? { certificates: [...a.x509.certificates] } : {}),
    ...(a.x509?.next ? { nextCsr: a.x509.next.csrPem } : {}),
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

type Settings = Pick<VerifierApplication, 'name' | 'clientIdPrefix' | 'responseModes' | 'redirectUris' | 'display' | 'did'>;

/** Checks a create or replace body: its shape, did with decentralized_identifier only, the DID the tenant's, no value twice; every problem at once. */
export async function checkVerifierApplicationInput(
  input: unknown,
  deps: { store: Pick<Store, 'dids'>; tenantId: string; creating: boolean },
): Promise<Settings & { country?: string; keyCustody?: KeyCustody }> {
  const p = new Problems();
  if (!p.checkShape(VerifierApplicationBody, input) && p.has('body')) p.throwIfAny();
  const body = input as Static<typeof VerifierApplicationBody>;

  for (const list of ['responseModes', 'redirectUris'] as const) {
    const values = body[list] as readonly string[] | undefined;
    if (values && !p.details.some((d) => d.param.startsWith(list))) {
      values.forEach((v, i) => {
        if (values.indexOf(v) !== i) p.add(`${list}.${i}`, 'Listed twice', v);
      });
    }
  }
  const urls: [string, string | undefined][] = [
    ...(body.redirectUris ?? []).map((u, i): [string, string] => [`redirectUris.${i}`, u]),
    ['display.logoUri', body.display?.logoUri],
  ];
  for (const [param, value] of urls) {
    if (value === undefined || p.has(param)) continue;
    let ok = false;
    try {
      const url = new URL(value);
      ok = url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
    } catch {}
    if (!ok) p.add(param, 'An https URL without user or password', value);
  }

  if (body.clientIdPrefix === 'decentralized_identifier') {
    if (body.did === undefined) p.add('did', 'Required with clientIdPrefix decentralized_identifier: one of the tenant’s DIDs (GET /v1/dids)');
    else if (!p.has('did')) {
      const record = await deps.store.dids.get(deps.tenantId, body.did);
      if (!record) p.add('did', 'The tenant has no such DID: create one with POST /v1/dids', body.did);
      else if (!record.keys.some((k) => k.algorithm === 'P-256' || k.algorithm === 'Ed25519'))
        p.add('did', 'The DID holds no key that signs JWS (P-256 or Ed25519)', body.did);
    }
  } else if (body.did !== undefined && body.clientIdPrefix !== undefined) {
    p.add('did', 'Only with clientIdPrefix decentralized_identifier', body.did);
  }
  if (body.clientIdPrefix === 'x509_hash' && body.country === undefined && deps.creating)
    p.add('country', 'Required with clientIdPrefix x509_hash: the country (ISO 3166-1 alpha-2) of the certificate request’s subject');
  else if (body.country !== undefined && body.clientIdPrefix !== 'x509_hash' && !p.has('country'))
    p.add('country', 'Only with clientIdPrefix x509_hash', body.country);
  if (body.keyCustody !== undefined && (body.clientIdPrefix !== 'x509_hash' || !deps.creating) && !p.has('keyCustody'))
    p.add('keyCustody', 'Only when creating an x509_hash application: the others hold no key of their own', body.keyCustody);

  p.throwIfAny(VerifierApplicationBody);
  return {
    name: body.name,
    clientIdPrefix: body.clientIdPrefix,
    responseModes: body.responseModes ? [...body.responseModes] : ['direct_post.jwt'],
    redirectUris: body.redirectUris ? [...body.redirectUris] : [],
    ...(body.display ? { display: { name: body.display.name, ...(body.display.logoUri !== undefined ? { logoUri: body.display.logoUri } : {}) } } : {}),
    ...(body.did !== undefined ? { did: body.did } : {}),
    ...(body.country !== undefined ? { country: body.country } : {}),
    ...(body.keyCustody !== undefined ? { keyCustody: body.keyCustody } : {}),
  };
}

/** A certificate's public key equals a JWK's (same curve and point). */
const sameKey = (a: { kty: string; crv?: string; x?: string; y?: string }, b: { kty: string; crv?: string; x?: string; y?: string }) =>
  a.kty === b.kty && a.crv === b.crv && a.x === b.x && a.y === b.y;

const missing = () => notFound('The tenant has no such verifier application');
const atLimit = () => limitReached(MAX_VERIFIER_APPLICATIONS_PER_TENANT, 'verifier applications', 'verifier applications', 'verifierApplications');
/** Ids are UUIDs: anything else is a 400 naming the path's id, never sent to the store. */
function checkId(id: string): string {
  if (!isUuid(id)) throw invalidField('id', 'A verifier application id (UUID)', id, 'params');
  return id;
}
const encoder = new TextEncoder();
const segment = (value: object): string => bytesToBase64Url(encoder.encode(JSON.stringify(value)));
/** Standard base64 (RFC 7515 §4.1.6 x5c), not base64url. */
const base64 = (bytes: Uint8Array) => {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};

/** The CSR's subject: the application's name as common name, cut to X.520's 64 characters. */
const csrSubject = (name: string) => ({
  commonName:
    name
      .replace(/[^\x20-\x7E]/g, '')
      .trim()
      .slice(0, 64) || 'Vellum Verifier',
});

export function createVerifierApplicationService(deps: VerifierApplicationDeps): VerifierApplicationService {
  const { store, clock, ids, events, keys, x509 } = deps;
  const { run, list } = adminOperations(events, 'verification');
  const view = (a: VerifierApplication) => verifierApplicationView(a, x509);
  const meta = (v: VerifierApplicationView) => ({ id: v.id, clientIdPrefix: v.clientIdPrefix });
  const find = (tenantId: string, id: string) => requireFound(store.verifierApplications.get(tenantId, checkId(id)), missing);

  async function jws(tenantId: string, keyId: string, header: Record<string, unknown>, claims: Record<string, unknown>): Promise<string> {
    const signingInput = `${segment({ ...header, typ: REQUEST_OBJECT_TYP })}.${segment(claims)}`;
    const signature = await keys.sign(tenantId, keyId, encoder.encode(signingInput));
    return `${signingInput}.${bytesToBase64Url(signature)}`;
  }

  return {
    create(ctx, input) {
      return run(ctx, 'VERIFIER_APPLICATION_CREATE', { input, meta }, async () => {
        const { country, keyCustody, ...settings } = await checkVerifierApplicationInput(input, { store, tenantId: ctx.tenant.id, creating: true });
        const iso = clock.now().toISOString();
        const base = { ...settings, id: ids.uuid(), tenantId: ctx.tenant.id, createdAt: iso, updatedAt: iso };
        if (settings.clientIdPrefix !== 'x509_hash') {
          if (!(await store.verifierApplications.insert(base, MAX_VERIFIER_APPLICATIONS_PER_TENANT))) throw atLimit();
          return view(base);
        }
        // x509_hash: a P-256 KeyManager key and its CSR; the key is destroyed when the application is not stored.
        return withNewKey(
          keys,
          ctx.tenant.id,
          'P-256',
          async (key) => {
            const csrPem = await x509.createCsr({ key, ...csrSubject(settings.name), country: country as string });
            const application: VerifierApplication = { ...base, x509: { keyId: key.id, csrPem } };
            if (!(await store.verifierApplications.insert(application, MAX_VERIFIER_APPLICATIONS_PER_TENANT))) throw atLimit();
            return view(application);
          },
          keyCustody !== undefined ? { custody: keyCustody } : undefined,
        );
      });
    },

    list: (ctx, query) => list(ctx, 'VERIFIER_APPLICATION_LIST', query, (page) => store.verifierApplications.list(ctx.tenant.id, page), view),

    get: (ctx, id) => run(ctx, 'VERIFIER_APPLICATION_RETRIEVE', { meta }, async () => view(await find(ctx.tenant.id, id))),

    update(ctx, id, input) {
      return run(ctx, 'VERIFIER_APPLICATION_UPDATE', { input, meta }, async () => {
        const existing = await find(ctx.tenant.id, id);
        // `country` only shapes the CSR made at creation: a replace may repeat it, and it changes nothing.
        const {
          country: _country,
          keyCustody: _custody,
          ...settings
        } = await checkVerifierApplicationInput(input, { store, tenantId: ctx.tenant.id, creating: false });
        if (settings.clientIdPrefix !== existing.clientIdPrefix)
          throw invalidField(
            'clientIdPrefix',
            `The client identifier prefix never changes (it is ${existing.clientIdPrefix}): create another application`,
            settings.clientIdPrefix,
          );
        const application: VerifierApplication = {
          ...settings,
          ...(existing.x509 ? { x509: existing.x509 } : {}),
          id: existing.id,
          tenantId: existing.tenantId,
          createdAt: existing.createdAt,
          updatedAt: clock.now().toISOString(),
        };
        if (!(await store.verifierApplications.update(application))) throw missing();
        return view(application);
      });
    },

    delete(ctx, id) {
      return run(ctx, 'VERIFIER_APPLICATION_DELETE', { meta: () => ({ id }) }, async () => {
        const existing = await find(ctx.tenant.id, id);
        if (!(await store.verifierApplications.delete(ctx.tenant.id, existing.id))) throw missing();
        // The request-signing key signs for nothing else.
        if (existing.x509) await keys.destroy(ctx.tenant.id, existing.x509.keyId);
      });
    },

    setCertificate(ctx, id, input) {
      return run(ctx, 'VERIFIER_APPLICATION_CERTIFICATE', { meta }, async () => {
        const existing = await find(ctx.tenant.id, id);
        if (!existing.x509) throw new DomainError('BadRequest', `Only an x509_hash application takes a certificate (this one is ${existing.clientIdPrefix})`);
        const p = new Problems();
        if (!p.checkShape(VerifierCertificateBody, input)) p.throwIfAny(VerifierCertificateBody);
        const pems = (input as Static<typeof VerifierCertificateBody>).certificates;
        const now = clock.now().getTime();
        const infos = pems.map((pem, i) => {
          try {
            return x509.parseCertificate(pem);
          } catch {
            p.add(`certificates.${i}`, 'Not one PEM certificate', undefined);
            return undefined;
          }
        });
        p.throwIfAny(VerifierCertificateBody);
        const leaf = infos[0];
        const key = await keys.get(ctx.tenant.id, existing.x509.keyId);
        if (!key) throw new DomainError('Conflict', 'The application’s request-signing key is gone: delete the application and create it again');
        // After a rotation, a chain for the next key makes it the one that signs.
        const nextKey = existing.x509.next ? await keys.get(ctx.tenant.id, existing.x509.next.keyId) : undefined;
        const forNext = leaf !== undefined && nextKey !== undefined && sameKey(leaf.publicKey, nextKey.publicJwk);
        if (leaf) {
          if (!forNext && !sameKey(leaf.publicKey, key.publicJwk))
            p.add('certificates.0', `The leaf certifies another key: issue it for the application’s CSR (csr${existing.x509.next ? ' or nextCsr' : ''})`);
          if (leaf.isCa) p.add('certificates.0', 'The leaf is a CA certificate');
          if (leaf.notBefore.getTime() > now || leaf.notAfter.getTime() <= now) p.add('certificates.0', 'The leaf is not valid now');
        }
        for (let i = 1; i < pems.length; i++) {
          if (!x509.verifyIssuedBy(pems[i - 1] as string, pems[i] as string))
            p.add(`certificates.${i}`, `Did not issue certificate ${i - 1}: give the chain in order, leaf first`);
        }
        p.throwIfAny(VerifierCertificateBody);
        const { next, ...current } = existing.x509;
        const x509Now =
          forNext && next
            ? { keyId: next.keyId, csrPem: next.csrPem, certificates: [...pems] }
            : { ...current, ...(next ? { next } : {}), certificates: [...pems] };
        const application: VerifierApplication = { ...existing, x509: x509Now, updatedAt: new Date(now).toISOString() };
        if (!(await store.verifierApplications.update(application))) throw missing();
        // The old key signs for nothing any more.
        if (forNext) await keys.destroy(ctx.tenant.id, existing.x509.keyId);
        return view(application);
      });
    },

    async rotateKey(tenant, id, country) {
      const existing = await find(tenant.id, id);
      if (!existing.x509) {
        throw invalidField(
          'applicationId',
          existing.clientIdPrefix === 'decentralized_identifier'
            ? `A decentralized_identifier application signs with its DID's key: rotate the DID (role dids, did ${existing.did})`
            : 'A redirect_uri application signs nothing',
          id,
        );
      }
      const leafPem = existing.x509.certificates?.[0];
      const subjectCountry = country ?? (leafPem !== undefined ? x509.parseCertificate(leafPem).country : undefined);
      if (subjectCountry === undefined)
        throw invalidField('country', 'The CSR needs a country: give one, as the application has no certificate to take it from', country);
      return withNewKey(
        keys,
        tenant.id,
        'P-256',
        async (key) => {
          const next = { keyId: key.id, csrPem: await x509.createCsr({ key, ...csrSubject(existing.name), country: subjectCountry }) };
          const application: VerifierApplication = { ...existing, x509: { ...existing.x509, next } as VerifierX509, updatedAt: clock.now().toISOString() };
          if (!(await store.verifierApplications.update(application))) throw missing();
          // A next key no chain was uploaded for is replaced: it never signed.
          if (existing.x509?.next) await keys.destroy(tenant.id, existing.x509.next.keyId);
          return { current: existing.x509?.keyId as string, next };
        },
        // The next key is held where the current one is.
        { sameCustodyAs: existing.x509.keyId },
      );
    },

    async signerFor(tenant, applicationId, responseUri, now) {
      const application = await find(tenant.id, applicationId);
      if (application.clientIdPrefix === 'redirect_uri') return { application, signer: { clientId: `redirect_uri:${responseUri}` } };

      if (application.clientIdPrefix === 'decentralized_identifier') {
        const did = application.did as string;
        const record = await store.dids.get(tenant.id, did);
        const key = record && (currentDidKey(record, 'P-256') ?? currentDidKey(record, 'Ed25519'));
        if (!key)
          throw new DomainError(
            'BadRequest',
            `The verifier application's DID ${did} is gone or holds no signing key: create it again, or point the application at another DID (PUT ${VERIFIER_APPLICATIONS_PATH}/${application.id})`,
          );
        const alg = key.algorithm === 'P-256' ? 'ES256' : 'EdDSA';
        return {
          application,
          signer: { clientId: `decentralized_identifier:${did}`, sign: (claims) => jws(tenant.id, key.kmsKeyId, { alg, kid: key.didDocumentKeyId }, claims) },
        };
      }

      const chain = application.x509?.certificates;
      const keyId = application.x509?.keyId as string;
      const leafPem = chain?.[0];
      if (!leafPem)
        throw new DomainError(
          'BadRequest',
          `The verifier application ${application.id} has no certificate yet: have a CA certify its CSR (csr) and upload the chain with PUT ${VERIFIER_APPLICATIONS_PATH}/${application.id}/certificate`,
        );
      const leaf = x509.parseCertificate(leafPem);
      if (leaf.notBefore.getTime() > now.getTime() || leaf.notAfter.getTime() <= now.getTime())
        throw new DomainError(
          'BadRequest',
          `The verifier application ${application.id}'s certificate is not valid now: upload a new one with PUT ${VERIFIER_APPLICATIONS_PATH}/${application.id}/certificate`,
        );
      // HAIP 1.0 §5: the request's x5c leaves out the trust anchor, so a self-signed CA uploaded at the
      // end of the chain is not sent (the wallet holds it already, or must not trust it from us).
      const sent = [...(chain as string[])];
      while (sent.length > 1 && x509.verifyIssuedBy(sent.at(-1) as string, sent.at(-1) as string)) sent.pop();
      const x5c = sent.map((pem) => base64(pemToDer(pem) ?? x509.parseCertificate(pem).der));
      return {
        application,
        signer: { clientId: x509HashClientId(x509, leafPem), sign: (claims) => jws(tenant.id, keyId, { alg: 'ES256', x5c }, claims) },
      };
    },
  };
}
