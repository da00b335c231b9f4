// Issue 29 points 2 and 5: the issuer metadata signed under the tenant's issuer CA (OpenID4VCI 1.0
// §12.2.3, HAIP 1.0 §4.3) and the JWT VC Issuer Metadata (SD-JWT VC), from the real server over real
// TLS on loopback. A wallet library we did not write (@openid4vc/openid4vci) reads the signed form
// (its typ, its sub, the metadata in its payload) and hands its x5c to our callback, which checks
// the chain up to the issuer CA from the public list (node:crypto's X509Certificate) and the
// signature with jose, that other people wrote.
import { X509Certificate } from 'node:crypto';
import type { Jwk, VerifyJwtCallback } from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, importX509, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../../apps/server/test/backends.ts';
import { type IssuerServer, issuerDatabases, prepareIssuerServer } from './issuer-server.ts';

const ISSUER_CAS = '/v2/credentials/issuer-cas';
const TYP = 'openidvci-issuer-metadata+jwt';

/**
 * The x5c chain checked up to `anchorPem` (RFC 5280 path building in miniature): each certificate
 * issued and signed by the next, the last by the anchor, all valid now, the anchor itself never in
 * the chain (HAIP 1.0 §4.3), and the leaf naming `issuer`. Returns the leaf.
 */
function checkChain(x5c: readonly string[], anchorPem: string, issuer: string): X509Certificate {
  const chain = x5c.map((c) => new X509Certificate(Buffer.from(c, 'base64')));
  const anchor = new X509Certificate(anchorPem);
  const now = new Date();
  chain.forEach((certificate, i) => {
    const parent = chain[i + 1] ?? anchor;
    expect(certificate.fingerprint256).not.toBe(anchor.fingerprint256);
    expect(certificate.checkIssued(parent), `certificate ${i} issued by the next`).toBe(true);
    expect(certificate.verify(parent.publicKey), `certificate ${i} signed by the next`).toBe(true);
    expect(new Date(certificate.validFrom) <= now && now < new Date(certificate.validTo)).toBe(true);
  });
  const leaf = chain[0] as X509Certificate;
  expect(leaf.ca).toBe(false);
  // The leaf's SAN names the credential issuer, so `sub` and the certificate agree.
  expect(leaf.subjectAltName).toContain(`URI:${issuer}`);
  return leaf;
}

describe.each(issuerDatabases('vellum_signedmeta'))(
  'signed issuer metadata and JWT VC Issuer Metadata, verified with libraries we did not write, on %s (issue 29)',
  (_name, makeBackend, skip) => {
    let backend: Backend;
    let issuer: IssuerServer;
    let caPem: string;

    beforeAll(async () => {
      if (skip) return;
      backend = makeBackend();
      issuer = await prepareIssuerServer({ database: await backend.env() });
      await issuer.start();
      const configuration = await issuer.call('POST', '/v2/credentials/sd-jwt/configurations', {
        type: 'https://credentials.example.com/pid',
        name: 'Person identification',
        expiresIn: { days: 365 },
        claimMappings: { given_name: { mapFrom: 'claims.givenName', required: true } },
      });
      expect(configuration.status, configuration.text).toBe(201);
    });

    afterAll(async () => {
      if (skip) return;
      await issuer?.stop();
      await backend?.cleanup();
    });

    const get = (path: string, accept?: string) => issuer.tlsFetch(`${issuer.origin}${path}`, { headers: accept ? { accept } : {} });

    it.skipIf(skip)('answers application/jwt with the JSON while the tenant has no issuer CA, and has no JWT VC Issuer Metadata (404)', async () => {
      const res = await get('/.well-known/openid-credential-issuer', 'application/jwt');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('vary')).toBe('accept');
      expect(((await res.json()) as { credential_issuer: string }).credential_issuer).toBe(issuer.origin);
      const jwtVc = await get('/.well-known/jwt-vc-issuer');
      expect(jwtVc.status).toBe(404);
      expect(await jwtVc.json()).toMatchObject({ code: 'NotFound' });
    });

    describe.skipIf(skip)('with an active managed issuer CA', () => {
      beforeAll(async () => {
        const ca = await issuer.call('POST', ISSUER_CAS, { country: 'US', commonName: 'Acme Issuer CA' });
        expect(ca.status, ca.text).toBe(201);
        const activated = await issuer.call('PUT', `${ISSUER_CAS}/${ca.json().id}`, { active: true });
        expect(activated.status, activated.text).toBe(200);
        // The trust anchor as a verifier gets it: the public list of active issuer CAs, no token.
        const list = await issuer.call('GET', ISSUER_CAS, undefined, {});
        expect(list.status, list.text).toBe(200);
        caPem = list.json().data[0].certificatePem;
      });

      it('@openid4vc/openid4vci resolves the signed metadata, and jose verifies it against the chain up to the issuer CA (OpenID4VCI 1.0 §12.2.3)', async () => {
        const verified: Array<{ header: Record<string, unknown>; payload: Record<string, unknown> }> = [];
        // The wallet's trust decision, which the library leaves to it: the x5c chain to our anchor, then the signature.
        const verifyJwt: VerifyJwtCallback = async (signer, { compact }) => {
          if (signer.method !== 'x5c') return { verified: false };
          const leaf = checkChain(signer.x5c, caPem, issuer.origin);
          const { payload, protectedHeader } = await jwtVerify(compact, await importX509(leaf.toString(), 'ES256'), {
            typ: TYP,
            subject: issuer.origin,
            algorithms: ['ES256'],
          });
          verified.push({ header: protectedHeader as Record<string, unknown>, payload: payload as Record<string, unknown> });
          return { verified: true, signerJwk: leaf.publicKey.export({ format: 'jwk' }) as Jwk };
        };
        const unused = () => {
          throw new Error('not used to read metadata');
        };
        // The library takes a JWT answer (and then checks typ and sub and calls verifyJwt) exactly when
        // verifyJwt is there, but sends no Accept header: this wallet's fetch adds the one OpenID4VCI
        // 1.0 §12.2.2 recommends, naming both forms.
        const requested: string[] = [];
        const walletFetch: typeof fetch = (input, init) => {
          const headers = new Headers(init?.headers);
          if (String(input).includes('/.well-known/openid-credential-issuer')) headers.set('accept', 'application/jwt, application/json;q=0.9');
          requested.push(`${String(input)} ${headers.get('accept')}`);
          return issuer.tlsFetch(input, { ...init, headers });
        };
        // The client's option type leaves verifyJwt out, but resolveIssuerMetadata hands its callbacks on.
        const callbacks = { fetch: walletFetch, hash: unused, generateRandom: unused, signJwt: unused, clientAuthentication: () => {}, verifyJwt };
        const client = new Openid4vciClient({ callbacks: callbacks as unknown as ConstructorParameters<typeof Openid4vciClient>[0]['callbacks'] });
        const metadata = await client.resolveIssuerMetadata(issuer.origin);
        expect(verified, requested.join('\n')).toHaveLength(1);
        // The library read the metadata from the JWT it verified, not from a JSON document.
        expect(metadata.signedCredentialIssuer?.jwt.header.typ).toBe(TYP);
        const { header, payload } = verified[0] as (typeof verified)[number];
        expect(header.typ).toBe(TYP);
        expect(header.x5c).toHaveLength(1);
        expect(payload.sub).toBe(issuer.origin);
        expect(typeof payload.iat).toBe('number');
        expect(payload.exp as number).toBeGreaterThan(payload.iat as number);
        // Every parameter of the JSON form is a top-level claim, with the same value.
        const json = (await (await get('/.well-known/openid-credential-issuer')).json()) as Record<string, unknown>;
        for (const [name, value] of Object.entries(json)) expect(payload[name], name).toEqual(value);
        expect(metadata.credentialIssuer.credential_issuer).toBe(issuer.origin);
      });

      it('serves application/jwt with Vary: Accept and an ETag, the same JWT again (not signed per request), and the JSON byte for byte as before', async () => {
        const json = await get('/.well-known/openid-credential-issuer');
        const jsonBody = await json.text();
        const first = await get('/.well-known/openid-credential-issuer', 'application/jwt');
        expect(first.status).toBe(200);
        expect(first.headers.get('content-type')).toBe('application/jwt');
        expect(first.headers.get('vary')).toBe('accept');
        const jwt = await first.text();
        expect(decodeProtectedHeader(jwt).typ).toBe(TYP);
        const again = await get('/.well-known/openid-credential-issuer', 'application/jwt, application/json;q=0.9');
        expect(await again.text()).toBe(jwt);
        expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
        expect(first.headers.get('etag')).not.toBe(json.headers.get('etag'));
        const notModified = await issuer.tlsFetch(`${issuer.origin}/.well-known/openid-credential-issuer`, {
          headers: { accept: 'application/jwt', 'if-none-match': first.headers.get('etag') as string },
        });
        expect(notModified.status).toBe(304);
        expect(await (await get('/.well-known/openid-credential-issuer', '*/*')).text()).toBe(jsonBody);
      });

      it('publishes JWT VC Issuer Metadata whose jwks holds the key that signs, with its chain (SD-JWT VC)', async () => {
        const signed = await (await get('/.well-known/openid-credential-issuer', 'application/jwt')).text();
        const x5c = decodeProtectedHeader(signed).x5c as string[];
        const leaf = checkChain(x5c, caPem, issuer.origin);
        const res = await get('/.well-known/jwt-vc-issuer');
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        const body = (await res.json()) as { issuer: string; jwks: { keys: Array<Record<string, unknown>> } };
        expect(Object.keys(body)).toEqual(['issuer', 'jwks']);
        expect(body.issuer).toBe(issuer.origin);
        const leafJwk = leaf.publicKey.export({ format: 'jwk' });
        const published = body.jwks.keys.find((k) => k.x === leafJwk.x && k.y === leafJwk.y);
        expect(published).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'sig', alg: 'ES256', kid: expect.any(String), x5c });
        // The published key verifies what the leaf signed, the way a verifier resolving `iss` would use it.
        const { x5c: _chain, ...jwk } = published as Record<string, unknown>;
        await jwtVerify(signed, await importJWK(jwk as Parameters<typeof importJWK>[0], 'ES256'), { typ: TYP, subject: issuer.origin });
        expect(await calculateJwkThumbprint(jwk as Parameters<typeof calculateJwkThumbprint>[0])).toBe(await calculateJwkThumbprint(leafJwk as never));
      });
    });
  },
);
