// Issue 31 point 4 (ldp_vc): the web-semantic verify API on the real server over loopback TLS. A
// second issuer's credential and the holder's presentation are built and signed with Digital
// Bazaar's @digitalbazaar/vc, with challenge and domain; a did:web issuer's document is served on
// loopback https. (ldp_vc issued by this server to a wallet, valid and revoked through the revoke
// API, go through the verify API in authorization-code.interop.test.ts, which has the wallet flow.)
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import { Ed25519VerificationKey2020 } from '@digitalbazaar/ed25519-verification-key-2020';
import * as vc from '@digitalbazaar/vc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../../apps/server/test/backends.ts';
import { independentContext } from '../../../packages/formats/src/linked-data/independent-verifier.ts';
import { type IssuerServer, issuerDatabases, prepareIssuerServer } from './issuer-server.ts';

const VC_V1 = 'https://www.w3.org/2018/credentials/v1';
const ED2020 = 'https://w3id.org/security/suites/ed25519-2020/v1';
const CHALLENGE = 'ldp-challenge-1';
const DOMAIN = 'https://verifier.example';

type Result = {
  verified: boolean;
  status?: string;
  issuer?: { id: string; trusted: boolean };
  claims: Record<string, any>;
  checks: Array<{ check: string; ok: boolean; reason?: string }>;
};
const failed = (result: Result) => result.checks.filter((c) => !c.ok).map((c) => c.check);

const documentLoader = async (url: string) => {
  const document = await independentContext(url);
  if (!document) throw new Error(`Offline: ${url}`);
  return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
};

/** An Ed25519 key held by Digital Bazaar's key class, as did:key or under a given DID. */
async function dbKey(did?: string) {
  const key = await Ed25519VerificationKey2020.generate();
  const id = did ?? `did:key:${key.fingerprint()}`;
  key.id = did ? `${did}#key-1` : `${id}#${key.fingerprint()}`;
  key.controller = id;
  return { key, did: id };
}

describe.each(issuerDatabases('vellum_verify_ldp'))('The web-semantic verify API over HTTP on %s (issue 31)', (_name, makeBackend, skip) => {
  let backend: Backend;
  let server: IssuerServer;
  let didServer: Server;
  let didDocument: Record<string, unknown> = {};
  let webDid = '';

  const verify = async (body: Record<string, unknown>): Promise<Result> => {
    const res = await server.call('POST', '/v2/credentials/web-semantic/verify', body);
    expect(res.status, res.text).toBe(200);
    return res.json();
  };
  const trust = async (did: string, name: string) => {
    const res = await server.call('POST', '/v2/credentials/trusted-issuers', { name, formats: ['ldp_vc'], did });
    expect(res.status, res.text).toBe(201);
    return res.json().id as string;
  };

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    server = await prepareIssuerServer({ database: await backend.env(), outboundToLoopback: true });
    await server.start();
    // A did:web issuer's document on loopback https, with the server's own localhost certificate.
    didServer = createServer({ cert: server.cert.certPem, key: server.cert.keyPem }, (req, res) => {
      if (req.url !== '/.well-known/did.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/did+json' }).end(JSON.stringify(didDocument));
    });
    await new Promise<void>((resolve) => didServer.listen(0, '127.0.0.1', resolve));
    webDid = `did:web:localhost%3A${(didServer.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    if (skip) return;
    await new Promise((resolve) => didServer?.close(resolve));
    await server?.stop();
    await backend?.cleanup();
  });

  it.skipIf(skip)(
    'verifies a presentation signed with @digitalbazaar/vc holding a second issuer’s credential; wrong challenge, wrong domain and an untrusted DID fail',
    async () => {
      const holder = await dbKey();
      const issuer = await dbKey();
      const credential = await vc.issue({
        credential: {
          '@context': [VC_V1, ED2020],
          id: 'urn:uuid:6f0c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f',
          type: ['VerifiableCredential'],
          issuer: issuer.did,
          issuanceDate: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
          credentialSubject: { id: holder.did },
        },
        suite: new Ed25519Signature2020({ key: issuer.key }),
        documentLoader,
      });
      const presentation = vc.createPresentation({ verifiableCredential: [credential], holder: holder.did, version: 1.0 });
      const signed = await vc.signPresentation({
        presentation,
        suite: new Ed25519Signature2020({ key: holder.key }),
        challenge: CHALLENGE,
        domain: DOMAIN,
        documentLoader,
      });

      const untrusted = await verify({ credential: signed, nonce: CHALLENGE, audience: DOMAIN });
      expect(failed(untrusted)).toEqual(['trusted-issuer']);
      await trust(issuer.did, 'Second issuer');
      const ok = await verify({ credential: signed, nonce: CHALLENGE, audience: DOMAIN });
      expect(failed(ok)).toEqual([]);
      expect(ok.verified).toBe(true);
      expect(failed(await verify({ credential: signed, nonce: 'another', audience: DOMAIN }))).toEqual(['challenge']);
      expect(failed(await verify({ credential: signed, nonce: CHALLENGE, audience: 'https://other.example' }))).toEqual(['domain']);
      const swapped = { ...signed, verifiableCredential: [{ ...credential, credentialSubject: { id: holder.did, extra: 1 } }] };
      // A credential changed inside the signed presentation breaks both the credential's and the holder's proof.
      const tampered = await verify({ credential: swapped, nonce: CHALLENGE, audience: DOMAIN });
      expect(tampered.verified).toBe(false);
      expect(failed(tampered)).toEqual(['presentation-proof', 'signature']);
    },
  );

  it.skipIf(skip)('resolves a trusted did:web issuer over loopback https', async () => {
    const issuer = await dbKey(webDid);
    const exported = await issuer.key.export({ publicKey: true });
    didDocument = {
      '@context': ['https://www.w3.org/ns/did/v1'],
      id: webDid,
      verificationMethod: [{ id: `${webDid}#key-1`, type: 'Ed25519VerificationKey2020', controller: webDid, publicKeyMultibase: exported.publicKeyMultibase }],
      assertionMethod: [`${webDid}#key-1`],
    };
    const credential = await vc.issue({
      credential: {
        '@context': [VC_V1, ED2020],
        type: ['VerifiableCredential'],
        issuer: webDid,
        issuanceDate: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
        credentialSubject: { id: 'did:example:subject' },
      },
      suite: new Ed25519Signature2020({ key: issuer.key }),
      documentLoader,
    });
    expect(failed(await verify({ credential }))).toEqual(['signature', 'trusted-issuer']);
    await trust(webDid, 'Web issuer');
    const ok = await verify({ credential });
    expect(failed(ok)).toEqual([]);
    expect(ok).toMatchObject({ verified: true, issuer: { id: webDid, trusted: true } });
  });
});
