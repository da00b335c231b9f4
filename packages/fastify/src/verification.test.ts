import type { FormatVerifier, VerifyOptions } from '@vellum/core';
import { makeTestWalletProvider } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

// docs/verification.md: trusted issuers `/v2/credentials/trusted-issuers` and the verify API over HTTP,
// standalone and mounted under a prefix (STYLE 14). The verifier of SD-JWT VC is a fake that records
// what it was given (the real verifiers are tested on their own); no mDoc verifier is composed, so
// that route shows the 503.
const PATH = '/v2/credentials/trusted-issuers';
const ca = makeTestWalletProvider('Trusted issuer');
const other = makeTestWalletProvider('Other issuer');

describe.each(['standalone', 'prefixed'] as const)('trusted issuers and the verify API over HTTP (%s)', (mount) => {
  const seen: Array<{ credential: string; options: VerifyOptions }> = [];
  const fake: FormatVerifier = async (credential, options) => {
    seen.push({ credential, options });
    const trusted = options.anchors.length > 0;
    return {
      verified: credential === 'eyJ.good~' && trusted,
      format: 'dc+sd-jwt',
      claims: credential === 'eyJ.good~' ? { given_name: 'Erika', address: { locality: 'Berlin' } } : {},
      checks: [
        { check: 'signature', ok: credential === 'eyJ.good~', ...(credential === 'eyJ.good~' ? {} : { reason: 'The signature does not verify' }) },
        { check: 'issuer-trusted', ok: trusted, ...(trusted ? {} : { reason: 'No trusted issuer anchors this credential' }) },
      ],
    };
  };
  const t = useTestApp(mount, { formatVerifiers: { 'dc+sd-jwt': fake } });
  const tenant = freshTenants(t, 'vt');

  it('creates (201), pages, reads, replaces and deletes (204) trusted issuers', async () => {
    const { call } = await tenant();
    const created = await call('POST', PATH, { name: 'PID', formats: ['dc+sd-jwt', 'mso_mdoc'], types: ['urn:eudi:pid:1'], certificates: [ca.rootPem] });
    expect(created.statusCode, created.body).toBe(201);
    const a = created.json();
    expect(a).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'PID',
      formats: ['dc+sd-jwt', 'mso_mdoc'],
      types: ['urn:eudi:pid:1'],
      certificates: [ca.rootPem],
      createdAt: expect.any(String),
      updatedAt: a.createdAt,
    });
    const b = (await call('POST', PATH, { name: 'DID', formats: ['ldp_vc'], did: 'did:web:issuer.example.com' })).json();
    const page = await call('GET', `${PATH}?limit=1`);
    expect(page.json()).toEqual({ data: [a], nextCursor: expect.any(String) });
    expect((await call('GET', `${PATH}?cursor=${page.json().nextCursor}`)).json().data).toEqual([b]);
    expect((await call('GET', `${PATH}/${a.id}`)).json()).toEqual(a);
    const replaced = await call('PUT', `${PATH}/${a.id}`, { name: 'Renamed', formats: ['cwt'], did: 'did:key:z6MkTest' });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toEqual({
      id: a.id,
      name: 'Renamed',
      formats: ['cwt'],
      did: 'did:key:z6MkTest',
      createdAt: a.createdAt,
      updatedAt: expect.any(String),
    });
    expect((await call('DELETE', `${PATH}/${a.id}`)).statusCode).toBe(204);
    expect((await call('GET', `${PATH}/${a.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `${PATH}/${a.id}`)).statusCode).toBe(404);
    expect((await call('PUT', `${PATH}/${a.id}`, { name: 'x', formats: ['cwt'], did: 'did:web:x.example' })).statusCode).toBe(404);
  });

  it('answers 400 with the error body naming each problem: a leaf certificate, both anchors, an unknown format, a bad DID, a bad body, a bad id', async () => {
    const { call } = await tenant();
    const leaf = await call('POST', PATH, { name: 'n', formats: ['mso_mdoc'], certificates: [ca.rootPem, ca.signerPem] });
    expect(leaf.statusCode).toBe(400);
    expect(leaf.json()).toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'certificates.1', msg: 'Not a CA certificate (BasicConstraints cA is not true)', location: 'body' }],
    });
    const both = await call('POST', PATH, { name: 'n', formats: ['mso_mdoc'], certificates: [ca.rootPem], did: 'did:web:a.example' });
    expect(both.json()).toMatchObject({ details: [{ param: 'did', msg: 'Give certificates or did, not both' }] });
    const format = await call('POST', PATH, { name: 'n', formats: ['jwt_vc_json'], did: 'did:web:a.example' });
    expect(format.statusCode).toBe(400);
    expect(format.json().details.map((d: { param: string }) => d.param)).toContain('formats');
    const did = await call('POST', PATH, { name: 'n', formats: ['ldp_vc'], did: 'https://a.example' });
    expect(did.json()).toMatchObject({ details: [{ param: 'did', msg: 'A DID such as did:web:issuer.example.com' }] });
    const array = await call('POST', PATH, [{ name: 'n' }]);
    expect(array.statusCode).toBe(400);
    expect(array.json()).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ location: 'body' })] });
    const id = await call('GET', `${PATH}/not-a-uuid`);
    expect(id.statusCode).toBe(400);
    expect(id.json()).toMatchObject({ details: [{ param: 'id', location: 'params' }] });
    expect((await call('GET', PATH)).json()).toEqual({ data: [] });
  });

  it('lets admin and verifier manage trusted issuers and verify; issuer, auditor and no token are refused; tenants are apart', async () => {
    const a = await tenant();
    const b = await tenant();
    const made = await a.call('POST', PATH, { name: 'v', formats: ['dc+sd-jwt'], certificates: [ca.rootPem] }, 'verifier');
    expect(made.statusCode, made.body).toBe(201);
    expect((await a.call('POST', '/v2/credentials/sd-jwt/verify', { credential: 'eyJ.good~' }, 'verifier')).statusCode).toBe(200);
    for (const role of ['issuer', 'managed-issuer', 'auditor'] as const) {
      expect((await a.call('GET', PATH, undefined, role)).statusCode, role).toBe(403);
      expect((await a.call('POST', PATH, { name: 'v', formats: ['cwt'], did: 'did:web:a.example' }, role)).statusCode, role).toBe(403);
      expect((await a.call('POST', '/v2/credentials/sd-jwt/verify', { credential: 'eyJ.good~' }, role)).statusCode, role).toBe(403);
    }
    expect((await a.call('GET', PATH, undefined, null)).statusCode).toBe(401);
    expect((await a.call('POST', '/v2/credentials/sd-jwt/verify', { credential: 'eyJ.good~' }, null)).statusCode).toBe(401);
    expect((await b.call('GET', `${PATH}/${made.json().id}`)).statusCode).toBe(404);
    expect((await b.call('GET', PATH)).json()).toEqual({ data: [] });
  });

  it('verifies with the tenant’s anchors for the format: 200 verified, 200 not verified with the failed checks, no-store', async () => {
    const a = await tenant();
    const b = await tenant();
    const mine = (await a.call('POST', PATH, { name: 'sd', formats: ['dc+sd-jwt'], certificates: [ca.rootPem] })).json();
    await a.call('POST', PATH, { name: 'mdoc', formats: ['mso_mdoc'], certificates: [other.rootPem] });
    await b.call('POST', PATH, { name: 'b', formats: ['dc+sd-jwt'], certificates: [other.rootPem] });
    seen.length = 0;
    const ok = await a.call('POST', '/v2/credentials/sd-jwt/verify', { credential: 'eyJ.good~', nonce: 'n-1', audience: 'x509_hash:abc' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(ok.json()).toEqual({
      verified: true,
      format: 'dc+sd-jwt',
      claims: { given_name: 'Erika', address: { locality: 'Berlin' } },
      checks: [
        { check: 'signature', ok: true },
        { check: 'issuer-trusted', ok: true },
      ],
    });
    expect(seen[0]?.options.anchors).toEqual([{ kind: 'x509', trustedIssuerId: mine.id, certificatePem: ca.rootPem, formats: ['dc+sd-jwt'] }]);
    expect(seen[0]?.options).toMatchObject({ nonce: 'n-1', audience: 'x509_hash:abc' });

    const c = await tenant();
    const untrusted = await c.call('POST', '/v2/credentials/sd-jwt/verify', { credential: 'eyJ.bad~' });
    expect(untrusted.statusCode).toBe(200);
    expect(untrusted.json()).toMatchObject({
      verified: false,
      checks: [
        { check: 'signature', ok: false, reason: 'The signature does not verify' },
        { check: 'issuer-trusted', ok: false, reason: 'No trusted issuer anchors this credential' },
      ],
    });
  });

  it('answers 400 for malformed input, 503 when no verifier of the format is composed, 404 for a profile not verifiable', async () => {
    const { call } = await tenant();
    const V = '/v2/credentials/sd-jwt/verify';
    const missing = await call('POST', V, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ param: 'credential', location: 'body' })] });
    expect((await call('POST', V, { credential: 'x', extra: 1 })).json()).toMatchObject({
      details: [expect.objectContaining({ param: 'extra', msg: 'Unknown field' })],
    });
    expect((await call('POST', V, { credential: 'x'.repeat(100_001) })).statusCode).toBe(400);
    expect((await call('POST', V, { credential: 'has space' })).statusCode).toBe(400);
    const transcript = await call('POST', V, { credential: 'eyJ.good~', sessionTranscript: 'gw' });
    expect(transcript.statusCode).toBe(400);
    expect(transcript.json()).toMatchObject({ details: [expect.objectContaining({ param: 'sessionTranscript' })] });
    const mdoc = await call('POST', '/v2/credentials/mobile/verify', { credential: 'o2d2ZXJzaW9u', sessionTranscript: 'g_b29g' });
    expect(mdoc.statusCode).toBe(503);
    expect(mdoc.json()).toMatchObject({ code: 'ServiceUnavailable', message: 'This server has no mso_mdoc verifier' });
    // web-semantic takes the JSON document itself: a string is a 400; this test host composes no ldp_vc verifier (503).
    const ldpString = await call('POST', '/v2/credentials/web-semantic/verify', { credential: 'x' });
    expect(ldpString.statusCode).toBe(400);
    expect(ldpString.json()).toMatchObject({ details: [expect.objectContaining({ param: 'credential' })] });
    const ldp = await call('POST', '/v2/credentials/web-semantic/verify', { credential: { type: ['VerifiablePresentation'] }, nonce: 'n', audience: 'a' });
    expect(ldp.statusCode).toBe(503);
    expect(ldp.json()).toMatchObject({ code: 'ServiceUnavailable', message: 'This server has no ldp_vc verifier' });
    for (const profile of ['compact', 'compact-semantic']) {
      expect((await call('POST', `/v2/credentials/${profile}/verify`, { credential: 'x' })).statusCode, profile).toBe(404);
    }
  });
});
