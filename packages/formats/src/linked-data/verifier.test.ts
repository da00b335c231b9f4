// The ldp_vc verifier of the core over the real adapters: Vellum's Linked Data signer and proof
// verifier, RevocationList2020 lists signed by Vellum's revocation list signer, did:web documents
// served by a stand-in HttpClient (the interop test serves them over loopback TLS).
import { gunzipSync } from 'node:zlib';
import {
  base58btcEncode,
  createDidResolver,
  createLdpVcVerifier,
  createRevocationListLookup,
  didKeyOf,
  type HttpClient,
  type IssuerAnchor,
  type PublicJwk,
} from '@vellum/core';
import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import { Ed25519VerificationKey2020 } from '@digitalbazaar/ed25519-verification-key-2020';
import * as vc from '@digitalbazaar/vc';
import { describe, expect, it } from 'vitest';
import { independentContext } from './independent-verifier.ts';
import { memoryKeyManager } from '../../test/fixtures.ts';
import { createRevocationListSigner } from './revocation-list.ts';
import { createLinkedDataSigner } from './signer.ts';
import { createLinkedDataProofVerifier, verifyDataOf } from './verifier.ts';

const NOW = new Date('2026-06-01T12:00:00Z');
const VC_V1 = 'https://www.w3.org/2018/credentials/v1';
const ED2020 = 'https://w3id.org/security/suites/ed25519-2020/v1';
const LIST_URL = 'https://issuer.example/v2/credentials/web-semantic/revocation-lists/1';
const DID_WEB = 'did:web:issuer.example:tenants:acme';

const clock = { now: () => NOW };
const gunzip = {
  gunzip(data: Uint8Array, maxBytes: number) {
    try {
      return new Uint8Array(gunzipSync(data, { maxOutputLength: maxBytes }));
    } catch {
      return undefined;
    }
  },
};

/** A stand-in for the guarded HttpClient: answers from a map of URL → JSON, and counts the fetches. */
function fakeHttp(routes: Map<string, { body: unknown; headers?: Record<string, string> }>) {
  const fetched: string[] = [];
  const http = {
    send: async () => ({ error: 'unused' }),
    async fetch(request: { url: string }) {
      fetched.push(request.url);
      const route = routes.get(request.url);
      if (!route) return { status: 404, headers: {}, body: new Uint8Array() };
      return { status: 200, headers: route.headers ?? {}, body: new TextEncoder().encode(JSON.stringify(route.body)) };
    },
  } as unknown as HttpClient;
  return { http, fetched };
}

async function setup(options: { issuerDid?: 'key' | 'web' } = {}) {
  const { keys, tenant } = await memoryKeyManager();
  const issuerKey = await keys.create(tenant.id, 'Ed25519');
  const holderKey = await keys.create(tenant.id, 'Ed25519');
  const issuerJwk = issuerKey.publicJwk as PublicJwk;
  const issuerDid = options.issuerDid === 'web' ? DID_WEB : didKeyOf(issuerJwk);
  const issuerVm = options.issuerDid === 'web' ? `${DID_WEB}#key-1` : `${issuerDid}#${issuerDid.slice(8)}`;
  const holderDid = didKeyOf(holderKey.publicJwk as PublicJwk);
  const signer = createLinkedDataSigner({ keys });
  const routes = new Map<string, { body: unknown; headers?: Record<string, string> }>();
  routes.set('https://issuer.example/tenants/acme/did.json', {
    body: {
      '@context': ['https://www.w3.org/ns/did/v1'],
      id: DID_WEB,
      verificationMethod: [{ id: `${DID_WEB}#key-1`, type: 'JsonWebKey2020', controller: DID_WEB, publicKeyJwk: issuerJwk }],
      assertionMethod: ['#key-1'],
    },
  });
  const { http, fetched } = fakeHttp(routes);
  const verify = createLdpVcVerifier({
    proofs: createLinkedDataProofVerifier(),
    dids: createDidResolver({ http, clock }),
    revocationLists: createRevocationListLookup({ http, gunzip, clock }),
  });
  const anchors: IssuerAnchor[] = [{ kind: 'did', trustedIssuerId: 't1', did: issuerDid, formats: ['ldp_vc'], types: ['UniversityDegree'] }];

  async function issue(extra: Record<string, unknown> = {}) {
    return signer.sign({
      tenantId: tenant.id,
      keyId: issuerKey.id,
      type: 'Ed25519Signature2018',
      verificationMethod: issuerVm,
      proofPurpose: 'assertionMethod',
      created: '2026-05-01T12:00:00Z',
      document: {
        '@context': [VC_V1, { '@vocab': 'https://schema.org/' }],
        id: 'urn:uuid:5b0d7f43-7a2e-4b8f-9d0b-0c2b3f7a9e11',
        type: ['VerifiableCredential', 'UniversityDegree'],
        issuer: issuerDid,
        issuanceDate: '2026-05-01T12:00:00Z',
        expirationDate: '2027-05-01T12:00:00Z',
        credentialSubject: { id: holderDid, name: 'Ada' },
        ...extra,
      },
    });
  }

  /** A presentation signed by the holder, Ed25519Signature2020, with challenge and domain in its proof. */
  async function present(credentials: Record<string, unknown>[], challenge = 'n-123', domain = 'https://verifier.example') {
    const vp: Record<string, unknown> = { '@context': [VC_V1, ED2020], type: ['VerifiablePresentation'], holder: holderDid, verifiableCredential: credentials };
    const proof: Record<string, unknown> = {
      type: 'Ed25519Signature2020',
      created: '2026-06-01T11:59:00Z',
      verificationMethod: `${holderDid}#${holderDid.slice(8)}`,
      proofPurpose: 'authentication',
      challenge,
      domain,
    };
    const signature = await keys.sign(tenant.id, holderKey.id, await verifyDataOf(vp, proof));
    return JSON.stringify({ ...vp, proof: { ...proof, proofValue: `z${base58btcEncode(signature)}` } });
  }

  async function publishList(revoked: number[]) {
    const statuses = new Uint8Array(2);
    for (const i of revoked) statuses[Math.floor(i / 8)] = (statuses[Math.floor(i / 8)] as number) | (1 << (i % 8));
    const list = await createRevocationListSigner({ keys }).sign({
      tenantId: tenant.id,
      keyId: issuerKey.id,
      proofType: 'Ed25519Signature2018',
      verificationMethod: issuerVm,
      url: LIST_URL,
      issuer: issuerDid,
      issuedAt: new Date('2026-05-01T12:00:00Z'),
      statuses,
      size: 16,
    } as Parameters<ReturnType<typeof createRevocationListSigner>['sign']>[0]);
    routes.set(LIST_URL, { body: list, headers: { 'cache-control': 'max-age=120' } });
  }

  const status = (idx: number) => ({
    '@context': [VC_V1, 'https://w3id.org/vc-revocation-list-2020/v1', { '@vocab': 'https://schema.org/' }],
    credentialStatus: { id: `${LIST_URL}#${idx}`, type: 'RevocationList2020Status', revocationListIndex: String(idx), revocationListCredential: LIST_URL },
  });

  return { verify, anchors, issue, present, publishList, status, fetched, holderDid, issuerDid };
}

const failed = (r: { checks: { check: string; ok: boolean }[] }) => r.checks.filter((c) => !c.ok).map((c) => c.check);

describe('ldp_vc verifier over the real adapters', () => {
  it('verifies a presentation signed by the holder with the expected challenge and domain', async () => {
    const { verify, anchors, issue, present, issuerDid } = await setup();
    const r = await verify(await present([await issue()]), { anchors, now: NOW, nonce: 'n-123', audience: 'https://verifier.example' });
    expect(failed(r)).toEqual([]);
    expect(r).toMatchObject({
      verified: true,
      format: 'ldp_vc',
      credentialType: 'UniversityDegree',
      issuer: { kind: 'did', id: issuerDid, trusted: true, trustedIssuerId: 't1' },
    });
    expect(r.claims).toMatchObject({ name: 'Ada' });
    expect(r.checks.map((c) => c.check)).toEqual([
      'format',
      'presentation-proof',
      'challenge',
      'domain',
      'credential',
      'signature',
      'trusted-issuer',
      'validity',
      'holder-binding',
    ]);
  });

  it('refuses a wrong challenge, a wrong domain, and a bare credential when they are expected', async () => {
    const { verify, anchors, issue, present } = await setup();
    const vc = await issue();
    expect(failed(await verify(await present([vc], 'other'), { anchors, now: NOW, nonce: 'n-123', audience: 'https://verifier.example' }))).toEqual([
      'challenge',
    ]);
    expect(
      failed(await verify(await present([vc], 'n-123', 'https://evil.example'), { anchors, now: NOW, nonce: 'n-123', audience: 'https://verifier.example' })),
    ).toEqual(['domain']);
    expect(failed(await verify(JSON.stringify(vc), { anchors, now: NOW, nonce: 'n-123' }))).toEqual(['presentation-proof']);
    const bare = await verify(JSON.stringify(vc), { anchors, now: NOW });
    expect(bare.verified).toBe(true);
  });

  it('refuses a tampered credential, a tampered presentation, an untrusted issuer, an expired credential and another type', async () => {
    const { verify, anchors, issue, present } = await setup();
    const vc = await issue();
    const tampered = { ...vc, credentialSubject: { ...(vc.credentialSubject as object), name: 'Eve' } };
    const r = await verify(await present([tampered]), { anchors, now: NOW, nonce: 'n-123' });
    expect(r.verified).toBe(false);
    expect(failed(r)).toEqual(['signature']);
    const vp = JSON.parse(await present([vc]));
    vp.holder = 'did:key:z6MkoTHsgNNrby8JzCNQ1iRLyW5QQ6R8Xuu6AA8igGrMVPUM';
    expect(failed(await verify(JSON.stringify(vp), { anchors, now: NOW }))).toContain('presentation-proof');
    const untrusted = await verify(JSON.stringify(vc), { anchors: [], now: NOW });
    expect(untrusted).toMatchObject({ verified: false, issuer: { trusted: false } });
    expect(failed(untrusted)).toEqual(['trusted-issuer']);
    expect(failed(await verify(JSON.stringify(vc), { anchors, now: new Date('2027-06-01T00:00:00Z') }))).toEqual(['validity']);
    const otherType = [{ ...anchors[0], types: ['Passport'] }] as IssuerAnchor[];
    expect(failed(await verify(JSON.stringify(vc), { anchors: otherType, now: NOW }))).toEqual(['trusted-issuer']);
  });

  it('reads RevocationList2020: valid, revoked, and cached for the response’s max-age', async () => {
    const { verify, anchors, issue, publishList, status, fetched } = await setup();
    await publishList([3]);
    const valid = await verify(JSON.stringify(await issue(status(2))), { anchors, now: NOW });
    expect(failed(valid)).toEqual([]);
    expect(valid.status).toBe('valid');
    const revoked = await verify(JSON.stringify(await issue(status(3))), { anchors, now: NOW });
    expect(revoked).toMatchObject({ verified: false, status: 'revoked' });
    expect(revoked.checks.find((c) => c.check === 'status')?.reason).toMatch(/revoked/);
    expect(fetched.filter((u) => u === LIST_URL)).toHaveLength(1);
    // An untrusted issuer's credential never makes the server fetch its list.
    await verify(JSON.stringify(await issue(status(4))), { anchors: [], now: NOW });
    expect(fetched.filter((u) => u === LIST_URL)).toHaveLength(1);
  });

  it('resolves a trusted did:web issuer through its DID document, and never fetches an untrusted one', async () => {
    const { verify, anchors, issue, fetched } = await setup({ issuerDid: 'web' });
    const r = await verify(JSON.stringify(await issue()), { anchors, now: NOW });
    expect(failed(r)).toEqual([]);
    expect(r.issuer).toMatchObject({ id: DID_WEB, trusted: true });
    expect(fetched).toEqual(['https://issuer.example/tenants/acme/did.json']);
    const untrusted = await verify(JSON.stringify(await issue()), { anchors: [], now: NOW });
    expect(failed(untrusted)).toEqual(['signature', 'trusted-issuer']);
    expect(fetched).toHaveLength(1);
  });

  it('answers malformed input with a failed check, never a throw', async () => {
    const { verify, anchors } = await setup();
    for (const input of ['', 'not json', '[]', '{"type":"Nothing"}', '{"type":"VerifiablePresentation"}', '{"type":"VerifiableCredential","proof":[]}'])
      expect((await verify(input, { anchors, now: NOW })).verified).toBe(false);
  });
});

describe('ldp_vc verifier against Digital Bazaar’s @digitalbazaar/vc', () => {
  /** An Ed25519 did:key made and held by Digital Bazaar's key class, with an offline document loader. */
  async function dbKey() {
    const key = await Ed25519VerificationKey2020.generate();
    const did = `did:key:${key.fingerprint()}`;
    key.id = `${did}#${key.fingerprint()}`;
    key.controller = did;
    return { key, did };
  }
  const documentLoader = async (url: string) => {
    const document = await independentContext(url);
    if (!document) throw new Error(`Offline: ${url}`);
    return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
  };

  it('verifies a presentation signed by @digitalbazaar/vc around a Vellum credential, and a credential issued by @digitalbazaar/vc', async () => {
    const { verify, anchors, issue } = await setup();
    const holder = await dbKey();
    const vellumVc = await issue({ credentialSubject: { id: holder.did, name: 'Ada' } });
    const other = await dbKey();
    const otherVc = await vc.issue({
      credential: {
        '@context': [VC_V1, ED2020],
        id: 'urn:uuid:0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b',
        type: ['VerifiableCredential'],
        issuer: other.did,
        issuanceDate: '2026-05-01T12:00:00Z',
        credentialSubject: { id: holder.did },
      },
      suite: new Ed25519Signature2020({ key: other.key }),
      documentLoader,
    });
    const presentation = vc.createPresentation({ verifiableCredential: [vellumVc, otherVc], holder: holder.did, version: 1.0, now: NOW });
    const signed = await vc.signPresentation({
      presentation,
      suite: new Ed25519Signature2020({ key: holder.key }),
      challenge: 'n-42',
      domain: 'https://verifier.example',
      documentLoader,
    });
    const trustBoth = [...anchors, { kind: 'did', trustedIssuerId: 't2', did: other.did, formats: ['ldp_vc'] }] as IssuerAnchor[];
    const ok = await verify(JSON.stringify(signed), { anchors: trustBoth, now: NOW, nonce: 'n-42', audience: 'https://verifier.example' });
    expect(failed(ok)).toEqual([]);
    expect(ok.verified).toBe(true);
    const wrongChallenge = await verify(JSON.stringify(signed), { anchors: trustBoth, now: NOW, nonce: 'n-43' });
    expect(failed(wrongChallenge)).toEqual(['challenge']);
    // The second issuer untrusted: the presentation is refused, and says which credential.
    const one = await verify(JSON.stringify(signed), { anchors, now: NOW, nonce: 'n-42' });
    expect(one.verified).toBe(false);
    expect(failed(one)).toEqual(['credential[1].trusted-issuer']);
  });
});
