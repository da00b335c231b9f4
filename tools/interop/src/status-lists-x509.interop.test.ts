// Issue 29 point 4, the CWT form: a Token Status List CWT of a list signed under the tenant's issuer
// CA, served by the real server app (real KMS, X.509, COSE and SQL store, answering through
// app.inject), read only with code Vellum did not write: node:crypto checks the x5chain's leaf up to
// the issuer CA from the public list, @ldclabs/cose-ts verifies the COSE_Sign1 with the leaf's key
// and reads its headers, pako inflates the bits. No configuration of cwt or cwt_vc signs with x5c
// yet, so the entries are taken through the status list use case, as issuance would take them.
import { X509Certificate } from 'node:crypto';
import pako from 'pako';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../../../apps/server/test/backends.ts';
import { type InProcessServers, serversOnOneDatabase, tenantAdmin } from '../../../apps/server/test/in-process.ts';
import { loadCoseTs } from '../../../packages/formats/src/cwt/independent-cose.ts';

const cose = await loadCoseTs();

describe.each([
  ['SQLite', () => sqliteBackend({ masterKey: true }), false],
  ['PostgreSQL', () => postgresBackend('vellum_statusx5c'), !pgAdminUrl],
] as Array<[string, () => Backend, boolean]>)(
  'Token Status List CWT signed under the issuer CA, checked with code we did not write, on %s (issue 29)',
  (_name, makeBackend, skip) => {
    let backend: Backend;
    let servers: InProcessServers;
    let app: InProcessServers['apps'][number];
    let admin: { host: string; authorization: string };

    beforeAll(async () => {
      if (skip) return;
      backend = makeBackend();
      servers = await serversOnOneDatabase(backend, 1);
      app = servers.apps[0] as InProcessServers['apps'][number];
      admin = await tenantAdmin(servers, 'acme');
    });

    afterAll(async () => {
      if (skip) return;
      await servers?.close();
      await backend?.cleanup();
    });

    it.skipIf(skip)(
      'x5chain in the protected header, the leaf issued by the issuer CA, alg ES256, typ application/statuslist+cwt, sub, iss, ttl and exp as the draft says, the entries valid',
      async () => {
        const headers = { host: admin.host, authorization: admin.authorization };
        const ca = await app.inject({ method: 'POST', url: '/v2/credentials/issuer-cas', headers, payload: { country: 'NL', commonName: 'Acme Issuer CA' } });
        expect(ca.statusCode, ca.body).toBe(201);
        const caId = ca.json().id as string;
        expect((await app.inject({ method: 'PUT', url: `/v2/credentials/issuer-cas/${caId}`, headers, payload: { active: true } })).statusCode).toBe(200);
        const anchors = await app.inject({ method: 'GET', url: '/v2/credentials/issuer-cas', headers: { host: admin.host } });
        const anchor = new X509Certificate(anchors.json().data[0].certificatePem as string);

        const { vellum } = servers.runtimes[0] as InProcessServers['runtimes'][number];
        const tenant = await vellum.tenants.findTenant('acme');
        expect(tenant).toBeDefined();
        // The issuer identifier the server gives this host (its public origin is https, whatever the transport).
        const origin = `https://${admin.host}`;
        const a = await vellum.statusLists.allocateReferenced(tenant as NonNullable<typeof tenant>, 'token-cwt', { kind: 'x509', caId }, origin);
        const b = await vellum.statusLists.allocateReferenced(tenant as NonNullable<typeof tenant>, 'token-cwt', { kind: 'x509', caId }, origin);
        expect(a.listId).toBe(b.listId);
        const path = new URL(a.uri as string).pathname;
        expect(path).toBe(`/v2/credentials/compact/status-lists/${a.listId}`);

        const res = await app.inject({ method: 'GET', url: path, headers: { host: admin.host } });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.headers['content-type']).toBe('application/statuslist+cwt');
        const token = new Uint8Array(res.rawPayload);
        const [protectedBytes, unprotected] = cose.decodeCBOR(token) as [Uint8Array, Map<number, unknown>];
        const protectedHeader = cose.decodeCBOR(protectedBytes) as Map<number, unknown>;
        expect(protectedHeader.get(1)).toBe(-7);
        expect(protectedHeader.get(16)).toBe('application/statuslist+cwt');
        expect(protectedHeader.has(4)).toBe(false);
        expect(unprotected.size).toBe(0);
        // RFC 9360: one certificate, the leaf, as a byte string; the CA is the trust anchor, never in the chain.
        const leaf = new X509Certificate(protectedHeader.get(33) as Uint8Array);
        expect(leaf.fingerprint256).not.toBe(anchor.fingerprint256);
        expect(leaf.checkIssued(anchor)).toBe(true);
        expect(leaf.verify(anchor.publicKey)).toBe(true);
        expect(leaf.ca).toBe(false);
        const now = Date.now();
        expect(Date.parse(leaf.validFrom) <= now && now < Date.parse(leaf.validTo)).toBe(true);
        expect(leaf.subjectAltName).toContain(`URI:${origin}`);

        const jwk = leaf.publicKey.export({ format: 'jwk' });
        const key = cose.ECDSAKey.fromPublic(
          Buffer.concat([Uint8Array.of(4), Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]),
        );
        const message = cose.Sign1Message.fromBytes(key, token);
        const claims = cose.decodeCBOR(message.payload) as Map<number, unknown>;
        expect(claims.get(1)).toBe(origin);
        expect(claims.get(2)).toBe(a.uri);
        const iat = Number(claims.get(6));
        const exp = Number(claims.get(4));
        const ttl = Number(claims.get(65534));
        expect(ttl).toBe(3600);
        expect(exp - iat).toBe(86_400);
        expect(exp * 1000).toBeLessThanOrEqual(Date.parse(leaf.validTo));
        const maxAge = Number(/max-age=(\d+)/.exec(String(res.headers['cache-control']))?.[1]);
        expect(maxAge).toBeGreaterThan(0);
        expect(maxAge).toBeLessThanOrEqual(ttl);
        const statusList = claims.get(65533) as Map<string, unknown>;
        expect(statusList.get('bits')).toBe(1);
        const bits = pako.inflate(statusList.get('lst') as Uint8Array);
        for (const idx of [a.idx, b.idx] as number[]) expect(((bits[idx >> 3] as number) >> (idx & 7)) & 1).toBe(0);
        // Tampered: cose-ts refuses it.
        const tampered = token.slice();
        tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
        expect(() => cose.Sign1Message.fromBytes(key, tampered)).toThrow();
      },
    );
  },
);
