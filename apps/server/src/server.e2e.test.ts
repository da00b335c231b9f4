import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { startDnsServer, type DnsTestServer } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { cli, freePort, http, type RunningServer, serverEnv, startServer, tempDir } from '../test/process.ts';
import { startWithTenant } from '../test/tenant.ts';

const PLATFORM = 'vellum.test';

const backends: Array<[string, () => Backend, boolean]> = [
  ['sqlite', () => sqliteBackend(), false],
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['postgres', () => postgresBackend('vellum_e2e'), !pgAdminUrl],
];

describe.each(backends)('the server over real HTTP on %s', (_name, makeBackend, skip) => {
  let backend: Backend;
  let dns: DnsTestServer;
  let server: RunningServer;
  let env: Record<string, string>;
  let creds: { tenantUrl: string; authUrl: string; audience: string; clientId: string; clientSecret: string };
  const host = `acme.eu01.${PLATFORM}`;

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    dns = await startDnsServer({});
    const port = await freePort();
    env = serverEnv({
      ...(await backend.env()),
      VELLUM_PORT: String(port),
      VELLUM_PLATFORM_DOMAIN: PLATFORM,
      VELLUM_DEFAULT_TENANT: '',
      VELLUM_DNS_SERVERS: dns.address,
    });
    ({ server, creds } = await startWithTenant(env, 'Acme Licensing'));
  });

  afterAll(async () => {
    if (skip) return;
    await server?.stop();
    await dns?.close();
    await backend?.cleanup();
  });

  async function token(clientId = creds.clientId, clientSecret = creds.clientSecret): Promise<string> {
    const res = await http(server.port, 'POST', '/oauth/token', {
      host,
      body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: creds.audience },
    });
    expect(res.status, res.text).toBe(200);
    return res.json().access_token;
  }

  it.skipIf(skip)('prints the tenant’s credentials from `vellum tenants create`', () => {
    expect(creds).toMatchObject({ tenantUrl: `https://${host}`, audience: `https://${host}`, clientId: expect.any(String), clientSecret: expect.any(String) });
  });

  it.skipIf(skip)('answers /health and /ready, with the security headers every answer carries (docs/limits.md, HTTP edge)', async () => {
    const health = await http(server.port, 'GET', '/health');
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await http(server.port, 'GET', '/ready');
    expect(ready.json()).toEqual({ status: 'ready' });
    const unknown = await http(server.port, 'GET', '/nowhere', { host });
    for (const res of [health, ready, unknown]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it.skipIf(skip)('answers GET / on a tenant’s host with a page (or JSON) pointing to /docs, the metadata and the README (issue 28)', async () => {
    const page = await http(server.port, 'GET', '/', { host, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status, page.text).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    for (const href of ['/docs', '/.well-known/openid-credential-issuer']) expect(page.text).toContain(`href="${href}"`);
    expect(page.text).toContain('<h1>Acme Licensing</h1>');
    expect(page.text).toContain('README.md');
    // What the page points to is there.
    expect((await http(server.port, 'GET', '/docs/', { host })).status).toBe(200);
    expect((await http(server.port, 'GET', '/.well-known/openid-credential-issuer', { host })).status).toBe(200);

    const json = await http(server.port, 'GET', '/', { host, headers: { accept: 'application/json' } });
    expect(json.status, json.text).toBe(200);
    expect(json.json()).toMatchObject({
      tenant: 'Acme Licensing',
      credentialIssuer: creds.tenantUrl,
      links: { docs: '/docs', issuerMetadata: '/.well-known/openid-credential-issuer' },
      readme: expect.stringContaining('README.md'),
    });

    // A host that names no tenant gets the error body, never a page or a 5xx.
    const nobody = await http(server.port, 'GET', '/', { host: `nobody.eu01.${PLATFORM}` });
    expect(nobody.status).toBe(404);
    expect(nobody.json()).toMatchObject({ code: 'NotFound' });
  });

  it.skipIf(skip)('sets the issuer display and publishes it in the issuer metadata at once, then removes it (issue 29, OpenID4VCI 1.0 §12.2.4)', async () => {
    const auth = { authorization: `Bearer ${await token()}` };
    const display = [{ name: 'Acme Licensing', locale: 'en', logo: { uri: 'https://licensing.example.org/logo.png', alt_text: 'Acme' } }];
    const metadata = async () => (await http(server.port, 'GET', '/.well-known/openid-credential-issuer', { host })).json();
    expect(await metadata()).not.toHaveProperty('display');
    const set = await http(server.port, 'PUT', '/v1/config/issuer-display', { host, headers: auth, body: { display } });
    expect(set.status, set.text).toBe(200);
    expect((await http(server.port, 'GET', '/v1/config/issuer-display', { host, headers: auth })).json()).toEqual({ display });
    expect((await metadata()).display).toEqual(display);
    const bad = await http(server.port, 'PUT', '/v1/config/issuer-display', {
      host,
      headers: auth,
      body: { display: [{ name: 'A', logo: { uri: 'http://x.example/l.png' } }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ details: [{ param: 'display.0.logo.uri', msg: 'An https URL' }] });
    // The other tests of this server read the metadata without it.
    expect((await http(server.port, 'PUT', '/v1/config/issuer-display', { host, headers: auth, body: { display: [] } })).status).toBe(200);
    expect(await metadata()).not.toHaveProperty('display');
  });

  it.skipIf(skip)('takes a custom domain through create, read, update, DNS verification and delete, with events for each step', async () => {
    const auth = { authorization: `Bearer ${await token()}` };
    const created = await http(server.port, 'POST', '/v1/config/domain', {
      host,
      headers: auth,
      body: { domain: 'licensing.example.org', name: 'Acme Licensing', logoUrl: 'https://licensing.example.org/logo.png' },
    });
    expect(created.status, created.text).toBe(201);
    const { verificationToken } = created.json();

    expect((await http(server.port, 'GET', '/v1/config/domain', { host, headers: auth })).json()).toMatchObject({
      domain: 'licensing.example.org',
      isVerified: false,
    });

    const updated = await http(server.port, 'PUT', '/v1/config/domain', {
      host,
      headers: auth,
      body: { domain: 'licensing.example.org', name: 'Acme Licensing Authority' },
    });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({ name: 'Acme Licensing Authority', verificationToken });

    // The real DNS server has no record yet: verification fails with 400.
    const early = await http(server.port, 'POST', '/v1/config/domain/verify', { host, headers: auth });
    expect(early.status).toBe(400);
    expect(early.json()).toMatchObject({ code: 'BadRequest' });

    dns.zone['licensing.example.org'] = ['v=spf1 -all', verificationToken];
    const verified = await http(server.port, 'POST', '/v1/config/domain/verify', { host, headers: auth });
    expect(verified.status, verified.text).toBe(204);
    expect(dns.queries.some((q) => q.name.toLowerCase() === 'licensing.example.org' && q.type === 'TXT')).toBe(true);
    const after = (await http(server.port, 'GET', '/v1/config/domain', { host, headers: auth })).json();
    expect(after).toMatchObject({ isVerified: true, verifiedAt: expect.any(String) });

    // The verified domain now reaches the tenant, and admin tokens may name it as audience.
    const viaDomain = await http(server.port, 'POST', '/oauth/token', {
      host: 'licensing.example.org',
      body: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, audience: 'https://licensing.example.org' },
    });
    expect(viaDomain.status).toBe(200);

    const deleted = await http(server.port, 'DELETE', '/v1/config/domain', { host, headers: auth });
    expect(deleted.status).toBe(204);
    expect((await http(server.port, 'GET', '/v1/config/domain', { host, headers: auth })).status).toBe(404);
    expect((await http(server.port, 'GET', '/v1/config/domain', { host: 'licensing.example.org', headers: auth })).status).toBe(404);

    const events = await http(server.port, 'GET', '/v1/events?categories=custom-domain&limit=1000', { host, headers: auth });
    expect(events.status).toBe(200);
    const types = (events.json().data as Array<{ type: string }>).map((e) => e.type).reverse();
    expect(types).toEqual([
      'CONFIG_CUSTOM_DOMAIN_CREATE_START',
      'CONFIG_CUSTOM_DOMAIN_CREATE_SUCCESS',
      'CONFIG_CUSTOM_DOMAIN_RETRIEVE_START',
      'CONFIG_CUSTOM_DOMAIN_RETRIEVE_SUCCESS',
      'CONFIG_CUSTOM_DOMAIN_UPDATE_START',
      'CONFIG_CUSTOM_DOMAIN_UPDATE_SUCCESS',
      'CONFIG_CUSTOM_DOMAIN_VERIFY_START',
      'CONFIG_CUSTOM_DOMAIN_VERIFY_FAIL',
      'CONFIG_CUSTOM_DOMAIN_VERIFY_START',
      'CONFIG_CUSTOM_DOMAIN_VERIFY_SUCCESS',
      'CONFIG_CUSTOM_DOMAIN_RETRIEVE_START',
      'CONFIG_CUSTOM_DOMAIN_RETRIEVE_SUCCESS',
      'CONFIG_CUSTOM_DOMAIN_DELETE_START',
      'CONFIG_CUSTOM_DOMAIN_DELETE_SUCCESS',
      'CONFIG_CUSTOM_DOMAIN_RETRIEVE_START',
      'CONFIG_CUSTOM_DOMAIN_RETRIEVE_FAIL',
    ]);
    expect(events.json().data[0]).toMatchObject({ requestIp: '127.0.0.1', clientId: creds.clientId });
  });

  it.skipIf(skip)(
    'creates DIDs, serves the did:web document and the DID configuration, and deletes a DID (docs/decisions.md "The DID configuration")',
    async () => {
      const auth = { authorization: `Bearer ${await token()}` };
      const key = await http(server.port, 'POST', '/v1/dids', { host, headers: auth, body: { method: 'key', options: { keyType: 'P-256' } } });
      expect(key.status, key.text).toBe(201);
      const web = await http(server.port, 'POST', '/v1/dids', { host, headers: auth, body: { method: 'web', options: { url: host } } });
      expect(web.status, web.text).toBe(201);
      expect((await http(server.port, 'GET', '/.well-known/did.json', { host })).json()).toEqual(web.json().localMetadata.initialDidDocument);
      const configuration = (await http(server.port, 'GET', '/.well-known/did-configuration', { host })).json();
      expect(configuration.entries.map((e: { issuer: string; proof: { type: string } }) => [e.issuer, e.proof.type])).toEqual([
        [key.json().did, 'JsonWebSignature2020'],
        [web.json().did, 'Ed25519Signature2018'],
      ]);
      expect((await http(server.port, 'DELETE', `/v1/dids/${encodeURIComponent(key.json().did)}`, { host, headers: auth })).status).toBe(204);
      expect((await http(server.port, 'GET', '/.well-known/did-configuration', { host })).json().entries.map((e: { issuer: string }) => e.issuer)).toEqual([
        web.json().did,
      ]);
      const listed = (await http(server.port, 'GET', '/v1/dids', { host, headers: auth })).json();
      expect(listed.data.map((d: { did: string }) => d.did)).toEqual([web.json().did]);
    },
  );

  it.skipIf(skip)(
    'tells a wallet only temporarily_unavailable when the SSRF guard refuses the tenant’s identity provider, and logs why (docs/limits.md "Outbound calls")',
    async () => {
      const auth = { authorization: `Bearer ${await token()}` };
      // What this test makes is removed at its end: the tenant is shared with the other tests.
      const made: string[] = [];
      const create = async (path: string, body: unknown, id: (created: Record<string, string>) => string) => {
        const res = await http(server.port, 'POST', path, { host, headers: auth, body });
        expect(res.status, res.text).toBe(201);
        made.unshift(`${path}/${id(res.json())}`);
      };
      onTestFinished(async () => {
        for (const path of made) expect((await http(server.port, 'DELETE', path, { host, headers: auth })).status, path).toBe(204);
      });
      await create(
        '/v2/credentials/mobile/configurations',
        { type: 'org.example.guarded.1', claimMappings: { 'org.example.guarded.1': { family_name: { mapFrom: 'claims.familyName' } } } },
        (c) => c.id as string,
      );
      await create(
        '/v1/openid/clients',
        { clientId: 'guarded-wallet', clientName: 'Wallet', redirectUris: ['https://wallet.example.com/cb'] },
        (c) => c.clientId as string,
      );
      // localhost is a host name the API takes; it resolves to loopback, which the guard refuses (the server runs without VELLUM_OUTBOUND_ALLOW_PRIVATE).
      await create(
        '/v1/users/authentication-providers',
        { url: 'https://localhost:1', clientId: 'vellum', clientSecret: 'idp-secret-never-logged' },
        (c) => c.id as string,
      );
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: 'guarded-wallet',
        redirect_uri: 'https://wallet.example.com/cb',
        scope: 'mso_mdoc:org.example.guarded.1',
        state: 'xyz',
        code_challenge_method: 'S256',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      });
      const answer = await http(server.port, 'GET', `/v1/oauth/authorize?${query}`, { host });
      expect(answer.status, answer.text).toBe(303);
      const back = new URL(answer.headers.location as string);
      expect(`${back.origin}${back.pathname}`).toBe('https://wallet.example.com/cb');
      expect(Object.fromEntries(back.searchParams)).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'Sign-in is temporarily unavailable; try again later',
        state: 'xyz',
        iss: `https://${host}`,
      });
      // The operator's log says which provider and why, without its secret. The server writes it
      // before it answers, but its output comes through a pipe: wait for the line to arrive here.
      const loggedLines = () =>
        server
          .output()
          .split('\n')
          .filter((line) => line.includes('identity provider failed'));
      for (const deadline = Date.now() + 30_000; loggedLines().length === 0 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const logged = loggedLines().map((line) => JSON.parse(line));
      expect(logged.at(-1)).toMatchObject({
        level: 40,
        step: 'authorize',
        providerUrl: 'https://localhost:1/',
        reason: 'the provider could not be reached: The server resolves to a loopback, private or other special-purpose address',
        unavailable: true,
      });
      expect(server.output()).not.toContain('idp-secret-never-logged');
    },
  );

  it.skipIf(skip)(
    'creates an mDoc configuration and publishes it in the issuer metadata (docs/decisions.md "Credential configurations", OpenID4VCI 1.0 §12.2)',
    async () => {
      const auth = { authorization: `Bearer ${await token()}` };
      const path = '/v2/credentials/mobile/configurations';
      const body = {
        type: 'org.iso.18013.5.1.mDL',
        name: 'Driver licence',
        expiresIn: { days: 365 },
        claimMappings: {
          'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true }, birth_date: { mapFrom: 'claims.birthDate', type: 'date' } },
        },
        claimDisplay: { 'org.iso.18013.5.1': { family_name: [{ name: 'Family name', locale: 'en' }] } },
      };
      const created = await http(server.port, 'POST', path, { host, headers: auth, body });
      expect(created.status, created.text).toBe(201);
      const { id } = created.json();
      expect((await http(server.port, 'GET', `${path}/${id}`, { host, headers: auth })).json()).toEqual(created.json());
      const duplicate = await http(server.port, 'POST', path, { host, headers: auth, body });
      expect(duplicate.status).toBe(409);
      expect(duplicate.json()).toMatchObject({ code: 'Conflict', details: [{ param: 'type' }] });
      const tooLong = await http(server.port, 'POST', path, {
        host,
        headers: auth,
        body: { ...body, type: 'org.iso.18013.5.1.mDL.copy', expiresIn: { days: 3621 } },
      });
      expect(tooLong.status).toBe(400);
      expect(tooLong.json()).toMatchObject({ details: [{ param: 'expiresIn', msg: 'At most 3620 days' }] });

      const metadata = await http(server.port, 'GET', '/.well-known/openid-credential-issuer', { host });
      expect(metadata.status, metadata.text).toBe(200);
      expect(metadata.headers['cache-control']).toBe('no-cache');
      const m = metadata.json();
      expect(m.credential_issuer).toBe(`https://${host}`);
      expect(m.credential_configurations_supported[id]).toMatchObject({
        format: 'mso_mdoc',
        scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
        doctype: 'org.iso.18013.5.1.mDL',
        credential_metadata: {
          claims: [
            { path: ['org.iso.18013.5.1', 'family_name'], mandatory: true, display: [{ name: 'Family name', locale: 'en' }] },
            { path: ['org.iso.18013.5.1', 'birth_date'], mandatory: false },
          ],
        },
      });
      expect(m.credentials_supported).toEqual([expect.objectContaining({ id, format: 'mso_mdoc', doctype: 'org.iso.18013.5.1.mDL' })]);
      expect(m.token_endpoint).toBe(`https://${host}/v1/oauth/token`);
      expect((await http(server.port, 'GET', '/.well-known/oauth-authorization-server', { host })).json()).toEqual({
        issuer: `https://${host}`,
        token_endpoint: `https://${host}/v1/oauth/token`,
        jwks_uri: `https://${host}/.well-known/jwks.json`,
        authorization_endpoint: `https://${host}/v1/oauth/authorize`,
        pushed_authorization_request_endpoint: `https://${host}/v1/oauth/par`,
        require_pushed_authorization_requests: false,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'attest_jwt_client_auth'],
        authorization_details_types_supported: ['openid_credential'],
        grant_types_supported: ['authorization_code', 'urn:ietf:params:oauth:grant-type:pre-authorized_code'],
        'pre-authorized_grant_anonymous_access_supported': true,
        // Issue 16: sender-constrained tokens and attested clients.
        dpop_signing_alg_values_supported: ['ES256', 'EdDSA'],
        client_attestation_signing_alg_values_supported: ['ES256', 'EdDSA'],
        client_attestation_pop_signing_alg_values_supported: ['ES256', 'EdDSA'],
      });

      expect((await http(server.port, 'DELETE', `${path}/${id}`, { host, headers: auth })).status).toBe(204);
      expect((await http(server.port, 'GET', '/.well-known/openid-credential-issuer', { host })).json().credential_configurations_supported).toEqual({});
    },
  );

  it.skipIf(skip)(
    'creates a pre-authorized offer and redeems it at the token endpoint, as a wallet does (docs/decisions.md "Users, offers, the token and nonce endpoints", OpenID4VCI 1.0 §6)',
    async () => {
      const auth = { authorization: `Bearer ${await token()}` };
      const configuration = await http(server.port, 'POST', '/v2/credentials/mobile/configurations', {
        host,
        headers: auth,
        body: {
          type: 'org.example.pid',
          expiresIn: { days: 30 },
          claimMappings: { 'org.example.pid.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
        },
      });
      expect(configuration.status, configuration.text).toBe(201);
      const offer = await http(server.port, 'POST', '/v1/openid/offers/pre-authorized', {
        host,
        headers: auth,
        body: {
          credentials: [configuration.json().id],
          claims: { familyName: 'Lovelace', once: true },
          claimsToPersist: ['familyName'],
          transactionCodeConfiguration: { inputMode: 'numeric', length: 6 },
          byReference: true,
        },
      });
      expect(offer.status, offer.text).toBe(200);
      const { id, userId, uri, transactionCode } = offer.json();
      expect(transactionCode).toMatch(/^\d{6}$/);

      // The wallet follows the offer URI to the offer, over plain HTTP here (the e2e server has no TLS).
      const offerUrl = new URL(new URL(uri).searchParams.get('credential_offer_uri') as string);
      expect(offerUrl.origin).toBe(`https://${host}`);
      const fetched = await http(server.port, 'GET', offerUrl.pathname, { host });
      expect(fetched.status, fetched.text).toBe(200);
      const code = fetched.json().grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code'];
      expect(fetched.json().grants['urn:ietf:params:oauth:grant-type:pre-authorized_code'].tx_code).toEqual({ length: 6, input_mode: 'numeric' });

      const form = (fields: Record<string, string>) => ({
        host,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        raw: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', ...fields }).toString(),
      });
      const redeemed = await http(server.port, 'POST', '/v1/oauth/token', form({ 'pre-authorized_code': code, tx_code: transactionCode }));
      expect(redeemed.status, redeemed.text).toBe(200);
      expect(redeemed.headers['cache-control']).toBe('no-store');
      expect(redeemed.json()).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'mso_mdoc:org.example.pid' });
      const again = await http(server.port, 'POST', '/v1/oauth/token', form({ 'pre-authorized_code': code, tx_code: transactionCode }));
      expect(again.status).toBe(400);
      expect(again.json()).toMatchObject({ error: 'invalid_grant', code: 'BadRequest' });
      expect((await http(server.port, 'GET', offerUrl.pathname, { host })).status).toBe(404);

      // The access token verifies against the tenant's published key.
      const jwks = (await http(server.port, 'GET', '/.well-known/jwks.json', { host })).json();
      const [h, p, sig] = redeemed.json().access_token.split('.');
      const key = createPublicKey({ key: jwks.keys[0], format: 'jwk' });
      expect(verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'))).toBe(true);
      expect(JSON.parse(Buffer.from(p, 'base64url').toString())).toMatchObject({ iss: `https://${host}`, aud: `https://${host}`, sub: userId, oid: id });

      const nonce = await http(server.port, 'POST', '/v1/openid/nonce', { host });
      expect(nonce.status).toBe(200);
      expect(nonce.json().c_nonce).toEqual(expect.any(String));
      expect((await http(server.port, 'GET', `/v1/users/${userId}`, { host, headers: auth })).json().claims).toEqual({ familyName: 'Lovelace' });

      const events = (await http(server.port, 'GET', '/v1/events?categories=openid&limit=100', { host, headers: auth }))
        .json()
        .data.map((e: { type: string }) => e.type);
      expect(events).toEqual(
        expect.arrayContaining(['OPENID_PRE_AUTHORIZED_OFFER_CREATE_SUCCESS', 'OPENID_TOKEN_SUCCESS', 'OPENID_TOKEN_FAIL', 'OPENID_NONCE_SUCCESS']),
      );
      expect(server.output()).not.toContain(code);
    },
  );

  it.skipIf(skip)('answers bad input with the right status and error body, never a 5xx', async () => {
    const auth = { authorization: `Bearer ${await token()}` };
    const issuer = JSON.parse(cli(['clients', 'create', '--tenant', 'acme', '--role', 'auditor'], env).stdout);
    const auditor = { authorization: `Bearer ${await token(issuer.clientId, issuer.clientSecret)}` };
    const cases: Array<[string, Promise<Awaited<ReturnType<typeof http>>>, number, string]> = [
      ['missing domain', http(server.port, 'POST', '/v1/config/domain', { host, headers: auth, body: { name: 'x' } }), 400, 'BadRequest'],
      ['wrong type', http(server.port, 'POST', '/v1/config/domain', { host, headers: auth, body: { domain: ['a'] } }), 400, 'BadRequest'],
      ['IP domain', http(server.port, 'POST', '/v1/config/domain', { host, headers: auth, body: { domain: '127.0.0.1' } }), 400, 'BadRequest'],
      ['URL domain', http(server.port, 'POST', '/v1/config/domain', { host, headers: auth, body: { domain: 'https://a.example.com/' } }), 400, 'BadRequest'],
      [
        'bad XML',
        http(server.port, 'POST', '/v1/config/domain', { host, headers: { ...auth, 'content-type': 'application/xml' }, raw: '<a><domain>x.example.com</a>' }),
        400,
        'BadRequest',
      ],
      [
        'broken JSON',
        http(server.port, 'POST', '/v1/config/domain', { host, headers: { ...auth, 'content-type': 'application/json' }, raw: '{' }),
        400,
        'BadRequest',
      ],
      ['role without permission', http(server.port, 'GET', '/v1/config/domain', { host, headers: auditor }), 403, 'Forbidden'],
      ['unknown tenant host', http(server.port, 'GET', '/v1/config/domain', { host: `ghost.eu01.${PLATFORM}`, headers: auth }), 404, 'NotFound'],
      [
        'body over 1 MB',
        http(server.port, 'POST', '/v1/config/domain', {
          host,
          headers: { ...auth, 'content-type': 'application/json' },
          raw: JSON.stringify({ domain: 'a.example.com', name: 'x'.repeat(1_100_000) }),
        }),
        413,
        'PayloadTooLarge',
      ],
    ];
    for (const [name, pending, status, code] of cases) {
      const res = await pending;
      expect(res.status, name).toBe(status);
      expect(res.json(), name).toMatchObject({ code });
    }
  });

  it.skipIf(skip)('answers headers over 16 KB with 431 and the error body', async () => {
    const res = await http(server.port, 'GET', '/v1/config/domain', { host, headers: { 'x-filler': 'a'.repeat(17 * 1024) } });
    expect(res.status).toBe(431);
    expect(res.json()).toEqual({ code: 'RequestHeaderFieldsTooLarge', message: 'Request headers exceed 16 KB' });
  });

  it.skipIf(skip)(
    'answers a HEAD with headers over 16 KB with 431 and no content, and a GET past the parser limit with 431 (RFC 9110 §9.3.2, docs/decisions.md "HTTP")',
    async () => {
      const raw = (request: string) =>
        new Promise<string>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port: server.port }, () => socket.write(request));
          let got = '';
          socket.on('data', (chunk: Buffer) => {
            got += chunk.toString('latin1');
            if (got.includes('\r\n\r\n')) setTimeout(() => socket.destroy(), 200);
          });
          socket.on('close', () => resolve(got));
          socket.on('error', () => resolve(got));
        });
      for (const request of [
        `HEAD /v1/config/domain?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
        `HEAD /health HTTP/1.1\r\nHost: ${host}\r\nX-A: ${'a'.repeat(30_000)}\r\n\r\n`,
      ]) {
        const answer = await raw(request);
        expect(answer).toMatch(/^HTTP\/1\.1 431 /);
        expect(answer.endsWith('\r\n\r\n'), 'nothing after the header block').toBe(true);
      }
      const big = await raw(`GET /v1/config/domain HTTP/1.1\r\nHost: ${host}\r\nX-A: ${'a'.repeat(300_000)}\r\n\r\n`);
      expect(big).toMatch(/^HTTP\/1\.1 431 /);
    },
  );

  it.skipIf(skip)('refuses a token for another tenant with plain-text 401', async () => {
    const other = JSON.parse(cli(['tenants', 'create', '--subdomain', 'other', '--region', 'us01'], env).stdout);
    const res = await http(server.port, 'POST', '/oauth/token', {
      host,
      body: { grant_type: 'client_credentials', client_id: other.clientId, client_secret: other.clientSecret, audience: other.audience },
    });
    expect(res.status).toBe(200);
    const foreign = await http(server.port, 'GET', '/v1/config/domain', { host, headers: { authorization: `Bearer ${res.json().access_token}` } });
    expect(foreign.status).toBe(401);
    expect(foreign.text).toBe('Unauthorized');
    expect(foreign.headers['www-authenticate']).toBe('Bearer');
  });

  it.skipIf(skip)('keeps secrets out of the log', () => {
    expect(server.output()).not.toContain(creds.clientSecret);
    expect(server.output()).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}\.eyJ/);
  });

  it.skipIf(skip)('stops on SIGTERM with exit code 0', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});

describe('starting on a fresh data directory (single-tenant mode)', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the demo tenant once, prints its credentials, and they work at the public URL', async () => {
    const port = await freePort();
    const env = serverEnv({ VELLUM_DATA_DIR: dir, VELLUM_PORT: String(port) });
    const first = await startServer(env);
    try {
      const printed = first.output();
      const start = printed.indexOf('{', printed.indexOf('shown only this once'));
      const json = printed.slice(start, printed.indexOf('\n}', start) + 2);
      const demo = JSON.parse(json);
      expect(demo).toMatchObject({ tenantUrl: `http://localhost:${port}`, authUrl: `http://localhost:${port}`, audience: `http://localhost:${port}` });
      const res = await http(port, 'POST', '/oauth/token', {
        host: `localhost:${port}`,
        body: { grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.clientSecret, audience: demo.audience },
      });
      expect(res.status, res.text).toBe(200);
      const domain = await http(port, 'GET', '/v1/config/domain', {
        host: `localhost:${port}`,
        headers: { authorization: `Bearer ${res.json().access_token}` },
      });
      expect(domain.status).toBe(404);
      expect(printed).toContain('VELLUM_MASTER_KEY is not set');
    } finally {
      await first.stop();
    }
    const second = await startServer(env);
    await second.stop();
    expect(second.output()).not.toContain('clientSecret');
  });

  it('flushes analytic events on SIGTERM, so a request just before shutdown is still recorded', async () => {
    // A flush interval of a minute: only the flush at shutdown can have written the probe's events.
    const env = serverEnv({ VELLUM_DATA_DIR: tempDir(), VELLUM_PORT: String(await freePort()), VELLUM_EVENT_FLUSH_INTERVAL_MS: '60000' });
    const tenant = JSON.parse(cli(['tenants', 'create', '--subdomain', 'demo', '--region', 'eu01'], env).stdout);
    const origin = `http://localhost:${env.VELLUM_PORT}`;
    const tokenOn = async (port: number) =>
      (
        await http(port, 'POST', '/oauth/token', {
          body: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret, audience: origin },
        })
      ).json().access_token as string;
    const first = await startServer(env);
    const probe = await http(first.port, 'GET', '/v1/config/domain', {
      headers: { authorization: `Bearer ${await tokenOn(first.port)}`, 'user-agent': 'shutdown-probe' },
    });
    expect(probe.status).toBe(404);
    expect(await first.stop('SIGTERM')).toBe(0);
    const second = await startServer(env);
    try {
      const events = await http(second.port, 'GET', '/v1/events?types=CONFIG_CUSTOM_DOMAIN_RETRIEVE_FAIL', {
        headers: { authorization: `Bearer ${await tokenOn(second.port)}` },
      });
      expect(events.json().data.map((e: { userAgent?: string }) => e.userAgent)).toContain('shutdown-probe');
    } finally {
      await second.stop();
    }
  });

  it('runs the operator commands: migrate, tenants list, clients list', async () => {
    const env = serverEnv({ VELLUM_DATA_DIR: tempDir() });
    const migrated = cli(['migrate'], env);
    expect(cli(['tenants', 'create', '--subdomain', 'demo', '--region', 'eu01'], env).status).toBe(0);
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('up to date');
    const tenants = cli(['tenants', 'list'], env);
    expect(JSON.parse(tenants.stdout).data.map((t: { subdomain: string }) => t.subdomain)).toContain('demo');
    const clients = JSON.parse(cli(['clients', 'list', '--tenant', 'demo'], env).stdout);
    expect(clients.data[0]).toMatchObject({ role: 'admin', clientId: expect.any(String) });
    expect(JSON.stringify(clients)).not.toMatch(/secret/i);
    const bad = cli(['tenants', 'create', '--subdomain', 'Bad Name', '--region', 'mars'], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('subdomain');
    expect(bad.stderr).toContain('region');
    expect(cli(['frobnicate'], env).status).toBe(2);
  });

  it('refuses to start with a master key that does not match the stored keys', async () => {
    const env = serverEnv({ VELLUM_DATA_DIR: dir, VELLUM_PORT: String(await freePort()), VELLUM_MASTER_KEY: randomBytes(32).toString('base64') });
    await expect(startServer(env)).rejects.toThrow(/exited with 1[\s\S]*master key/i);
  });

  it.each([
    ['VELLUM_PORT', 'seventy'],
    ['VELLUM_PUBLIC_URL', 'ftp://x'],
    ['VELLUM_MASTER_KEY', 'c2hvcnQ='],
    ['DATABASE_URL', 'mysql://x'],
    ['VELLUM_DNS_SERVERS', 'not a server'],
  ])('refuses to start when %s is %j, naming it', async (name, value) => {
    const r = cli(['serve'], serverEnv({ VELLUM_DATA_DIR: tempDir(), VELLUM_PORT: String(await freePort()), [name]: value }));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(name);
  });
});
