import { createHash, createPublicKey, X509Certificate } from 'node:crypto';
import type { PublicJwk } from '@vellum/core';
import { children, tlv } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';
import { foreignAuthority } from '../test/authority.ts';

// docs/verification.md "Verifier applications": `/v2/presentations/applications` over HTTP, standalone
// and mounted under a prefix (STYLE 14), with real certificates for the x509_hash CSR flow.
const PATH = '/v2/presentations/applications';
const pemBody = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));

/** The public key a PKCS#10 request (RFC 2986) carries, as a JWK. */
function csrPublicJwk(csrPem: string): PublicJwk {
  const der = pemBody(csrPem);
  const info = children(der, tlv(der, 0))[0]!;
  const spki = children(der, info)[2]!;
  const jwk = createPublicKey({ key: Buffer.from(der.subarray(spki.start, spki.end)), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  return { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
}

describe.each(['standalone', 'prefixed'] as const)('verifier applications over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'va');

  it('creates (201), pages, reads, replaces and deletes (204)', async () => {
    const { call } = await tenant();
    const created = await call('POST', PATH, { name: 'Dev', clientIdPrefix: 'redirect_uri', redirectUris: ['https://shop.example/done'] });
    expect(created.statusCode, created.body).toBe(201);
    const a = created.json();
    expect(a).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Dev',
      clientIdPrefix: 'redirect_uri',
      responseModes: ['direct_post.jwt'],
      redirectUris: ['https://shop.example/done'],
      createdAt: expect.any(String),
      updatedAt: a.createdAt,
    });
    const b = (
      await call('POST', PATH, { name: 'Bank', clientIdPrefix: 'x509_hash', country: 'DE', display: { name: 'Bank', logoUri: 'https://bank.example/l.png' } })
    ).json();
    const page = await call('GET', `${PATH}?limit=1`);
    expect(page.json()).toEqual({ data: [a], nextCursor: expect.any(String) });
    expect((await call('GET', `${PATH}?cursor=${page.json().nextCursor}`)).json().data).toEqual([b]);
    expect((await call('GET', `${PATH}/${a.id}`)).json()).toEqual(a);
    const replaced = await call('PUT', `${PATH}/${a.id}`, { name: 'Dev 2', clientIdPrefix: 'redirect_uri', responseModes: ['direct_post'] });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({ id: a.id, name: 'Dev 2', responseModes: ['direct_post'], redirectUris: [], createdAt: a.createdAt });
    expect((await call('DELETE', `${PATH}/${a.id}`)).statusCode).toBe(204);
    expect((await call('GET', `${PATH}/${a.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `${PATH}/${a.id}`)).statusCode).toBe(404);
  });

  it('answers 400 with the error body naming each problem, and 403 to roles without the verification permission', async () => {
    const { call } = await tenant();
    const cases: Array<[unknown, string]> = [
      [{ name: 'n', clientIdPrefix: 'x509_san_dns' }, 'clientIdPrefix'],
      [{ name: 'n', clientIdPrefix: 'redirect_uri', redirectUris: ['http://a.example/'] }, 'redirectUris.0'],
      [{ name: 'n', clientIdPrefix: 'redirect_uri', responseModes: ['fragment'] }, 'responseModes'],
      [{ name: 'n', clientIdPrefix: 'decentralized_identifier' }, 'did'],
      [{ name: 'n', clientIdPrefix: 'decentralized_identifier', did: 'did:web:not-ours.example' }, 'did'],
    ];
    for (const [body, param] of cases) {
      const r = await call('POST', PATH, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json(), JSON.stringify(body)).toMatchObject({
        code: 'BadRequest',
        details: expect.arrayContaining([expect.objectContaining({ param, location: 'body' })]),
      });
    }
    expect((await call('POST', PATH, [{ name: 'n' }])).statusCode).toBe(400);
    const id = await call('GET', `${PATH}/not-a-uuid`);
    expect(id.statusCode).toBe(400);
    expect(id.json()).toMatchObject({ details: [expect.objectContaining({ param: 'id', location: 'params' })] });
    const v = await tenant('verifier');
    expect((await v.call('POST', PATH, { name: 'n', clientIdPrefix: 'redirect_uri' })).statusCode).toBe(201);
    for (const role of ['issuer', 'managed-issuer', 'auditor'] as const) {
      expect((await v.call('GET', PATH, undefined, role)).statusCode, role).toBe(403);
    }
  });

  it('x509_hash: answers a CSR, takes back a chain for that key, and shows the x509_hash client_id', async () => {
    const { call } = await tenant();
    const app = (await call('POST', PATH, { name: 'Bank verifier', clientIdPrefix: 'x509_hash', country: 'DE' })).json();
    expect(app.csr).toContain('CERTIFICATE REQUEST');
    expect(app).not.toHaveProperty('clientId');
    const root = await foreignAuthority({ commonName: 'Bank Root CA', url: 'https://pki.bank.example', days: 3650 });
    const leaf = await root.certify(csrPublicJwk(app.csr), 'Bank Verifier', 365, ['https://bank.example']);
    const stranger = await root.certify(
      csrPublicJwk((await call('POST', PATH, { name: 'Other', clientIdPrefix: 'x509_hash', country: 'DE' })).json().csr),
      'Other',
      365,
      ['https://bank.example'],
    );

    const wrongKey = await call('PUT', `${PATH}/${app.id}/certificate`, { certificates: [stranger.pem, root.certificate.pem] });
    expect(wrongKey.statusCode).toBe(400);
    expect(wrongKey.json()).toMatchObject({ details: [expect.objectContaining({ param: 'certificates.0', msg: expect.stringContaining('another key') })] });
    const badOrder = await call('PUT', `${PATH}/${app.id}/certificate`, { certificates: [root.certificate.pem, leaf.pem] });
    expect(badOrder.statusCode).toBe(400);
    expect((await call('PUT', `${PATH}/${app.id}/certificate`, { certificates: ['nope'] })).statusCode).toBe(400);
    expect((await call('PUT', `${PATH}/${app.id}/certificate`, { chain: [] })).statusCode).toBe(400);

    const set = await call('PUT', `${PATH}/${app.id}/certificate`, { certificates: [leaf.pem, root.certificate.pem] });
    expect(set.statusCode, set.body).toBe(200);
    const hash = createHash('sha256').update(new X509Certificate(leaf.pem).raw).digest('base64url');
    expect(set.json()).toMatchObject({ clientId: `x509_hash:${hash}`, certificates: [leaf.pem, root.certificate.pem] });
    expect((await call('GET', `${PATH}/${app.id}`)).json().clientId).toBe(`x509_hash:${hash}`);
  });
});
