import { LIVE_ISSUANCE_FEATURES, PRE_AUTHORIZED_GRANT } from '@vellum/core';
import { MDL_DISPLAY, mdlIssuerMetadata } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

const MDL = 'org.iso.18013.5.1.mDL';
const mdlBody = {
  type: MDL,
  name: 'Driver licence',
  description: 'A mobile driving licence',
  expiresIn: { days: 365 },
  claimMappings: {
    'org.iso.18013.5.1': {
      family_name: { mapFrom: 'claims.familyName', required: true },
      birth_date: { mapFrom: 'claims.birthDate', type: 'date', required: true },
      issuing_country: { defaultValue: 'NZ' },
    },
  },
  ...MDL_DISPLAY,
};
const flatBody = {
  expiresIn: { years: 2 },
  claimMappings: { name: { mapFrom: 'claims.name', required: true }, level: { defaultValue: 3 } },
  claimDisplay: { name: [{ name: 'Name', locale: 'en' }] },
};

/** Each format's collection (docs/decisions.md "Credential configurations"), a valid body, and what the answer adds by default. */
const COLLECTIONS = [
  { format: 'mso_mdoc', path: '/v2/credentials/mobile/configurations', body: mdlBody, defaults: { includeStatus: false } },
  {
    format: 'ldp_vc',
    path: '/v2/credentials/web-semantic/configurations',
    body: { ...flatBody, type: 'UniversityDegree', issuer: { name: 'University' }, contexts: ['https://schema.example/degree/v1'] },
    defaults: { proofType: 'Ed25519Signature2018', revocable: false },
  },
  { format: 'cwt', path: '/v2/credentials/compact/configurations', body: { ...flatBody, type: 'Badge' }, defaults: { revocable: false } },
  { format: 'cwt_vc', path: '/v2/credentials/compact-semantic/configurations', body: { ...flatBody, type: 'Badge', revocable: true }, defaults: {} },
  {
    format: 'dc+sd-jwt',
    path: '/v2/credentials/sd-jwt/configurations',
    body: { ...flatBody, type: 'https://credentials.example.com/pid', selectivelyDisclosable: ['name'] },
    // A tenant without an issuer CA keeps the DID key (docs/decisions.md "Issuer certificates").
    defaults: { revocable: false, keyResolution: 'did' },
  },
] as const;

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('credential configurations and metadata over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 't');
  const url = (path: string) => `${t.prefix}${path}`;

  describe.each(COLLECTIONS)('$path ($format)', ({ path, body, defaults }) => {
    it('creates (201), lists with a type filter, gets, replaces (PUT) and deletes (204)', async () => {
      const { call } = await tenant();
      const created = await call('POST', path, body);
      expect(created.statusCode, created.body).toBe(201);
      const config = created.json();
      expect(config).toEqual({
        ...body,
        ...defaults,
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        createdAt: expect.any(String),
        updatedAt: config.createdAt,
      });
      const other = (await call('POST', path, { ...body, type: 'org.example.other' })).json();

      const listed = await call('GET', `${path}?limit=1`);
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual({ data: [config], nextCursor: expect.any(String) });
      expect((await call('GET', `${path}?cursor=${listed.json().nextCursor}`)).json()).toEqual({ data: [other] });
      expect((await call('GET', `${path}?type=${encodeURIComponent('org.example.other')}`)).json()).toEqual({ data: [other] });
      expect((await call('GET', `${path}?type=nothing`)).json()).toEqual({ data: [] });

      expect((await call('GET', `${path}/${config.id}`)).json()).toEqual(config);
      const replaced = await call('PUT', `${path}/${config.id}`, { ...body, name: 'Renamed', expiresIn: { days: 10 } });
      expect(replaced.statusCode, replaced.body).toBe(200);
      expect(replaced.json()).toMatchObject({ id: config.id, name: 'Renamed', expiresIn: { days: 10 }, createdAt: config.createdAt });
      expect((await call('GET', `${path}/${config.id}`)).json()).toEqual(replaced.json());

      const deleted = await call('DELETE', `${path}/${config.id}`);
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      expect((await call('GET', `${path}/${config.id}`)).statusCode).toBe(404);
    });

    it('gives a configuration without expiresIn the documented default of 365 days, on create and replace (issue 12, docs/limits.md)', async () => {
      const { call } = await tenant();
      const { expiresIn: _omitted, ...withoutExpiry } = body;
      const created = await call('POST', path, withoutExpiry);
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().expiresIn).toEqual({ days: 365 });
      const replaced = await call('PUT', `${path}/${created.json().id}`, { ...withoutExpiry, name: 'Renamed' });
      expect(replaced.statusCode, replaced.body).toBe(200);
      expect(replaced.json().expiresIn).toEqual({ days: 365 });
      const wrong = await call('POST', path, { ...withoutExpiry, type: `${body.type}.x`, expiresIn: null });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().details).toEqual([expect.objectContaining({ param: 'expiresIn', location: 'body' })]);
    });

    it('refuses a duplicate type with 409 and details on type', async () => {
      const { call } = await tenant();
      const first = (await call('POST', path, body)).json();
      const again = await call('POST', path, body);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toEqual({
        code: 'Conflict',
        message: expect.stringContaining('already has'),
        details: [{ value: body.type, msg: `Already the type of configuration ${first.id}`, param: 'type', location: 'body' }],
      });
    });

    it('answers an unknown, foreign or malformed id with 404, 404 and 400', async () => {
      const { call } = await tenant();
      const other = await tenant();
      const config = (await call('POST', path, body)).json();
      for (const method of ['GET', 'DELETE'] as const) {
        expect((await call(method, `${path}/${crypto.randomUUID()}`)).json()).toMatchObject({ code: 'NotFound' });
        expect((await other.call(method, `${path}/${config.id}`)).statusCode).toBe(404);
        const malformed = await call(method, `${path}/not-a-uuid`);
        expect(malformed.statusCode).toBe(400);
        expect(malformed.json()).toMatchObject({ code: 'BadRequest', details: [{ param: 'id', location: 'params', value: 'not-a-uuid' }] });
      }
      expect((await call('PUT', `${path}/${crypto.randomUUID()}`, body)).statusCode).toBe(404);
    });

    it('lets admin and issuer write, managed-issuer only read, and refuses other roles and anonymous callers', async () => {
      const { call } = await tenant();
      const config = (await call('POST', path, body, 'issuer')).json();
      expect((await call('GET', `${path}/${config.id}`, undefined, 'managed-issuer')).statusCode).toBe(200);
      expect((await call('GET', path, undefined, 'managed-issuer')).json().data).toEqual([config]);
      for (const [method, p] of [
        ['POST', path],
        ['PUT', `${path}/${config.id}`],
        ['DELETE', `${path}/${config.id}`],
      ] as const) {
        const res = await call(method, p, method === 'DELETE' ? undefined : { ...body, type: 'org.example.x' }, 'managed-issuer');
        expect(res.statusCode, `${method} ${p}`).toBe(403);
        expect(res.json()).toMatchObject({ code: 'Forbidden' });
      }
      expect((await call('GET', path, undefined, 'verifier')).statusCode).toBe(403);
      expect((await call('GET', path, undefined, 'auditor')).statusCode).toBe(403);
      const anonymous = await call('POST', path, { nonsense: true }, null);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.body).toBe('Unauthorized');
    });

    it('refuses unknown fields and wrong JSON types with 400 and details', async () => {
      const { call } = await tenant();
      const res = await call('POST', path, { ...body, colour: 'red', expiresIn: { days: 'ten' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
      expect(res.json().details).toEqual(
        expect.arrayContaining([
          { value: 'red', msg: 'Unknown field', param: 'colour', location: 'body' },
          expect.objectContaining({ value: 'ten', param: 'expiresIn.days', location: 'body' }),
        ]),
      );
    });
  });

  describe('validation the core does (docs/decisions.md "Credential configurations")', () => {
    const mobile = '/v2/credentials/mobile/configurations';

    it('names a mapping default that does not match its type, and an expiry past the mDL limit, in one 400', async () => {
      const { call } = await tenant();
      const res = await call('POST', mobile, {
        ...mdlBody,
        expiresIn: { days: 428 },
        claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' }, birth_date: { defaultValue: '1990-13-45', type: 'date' } } },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        code: 'BadRequest',
        message: 'Validation Error',
        details: [
          { value: '1990-13-45', msg: 'Does not match the type date', param: 'claimMappings.org.iso.18013.5.1.birth_date.defaultValue', location: 'body' },
          { value: { days: 428 }, msg: 'At most 427 days for mDL docTypes', param: 'expiresIn', location: 'body' },
        ],
      });
    });

    it('refuses an expiry past 3620 days for other docTypes, and https-less logos', async () => {
      const { call } = await tenant();
      const res = await call('POST', mobile, {
        ...mdlBody,
        type: 'org.example.card',
        expiresIn: { years: 9, days: 336 },
        display: [{ name: 'Card', logo: { uri: 'http://x.example/l.png' } }],
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([
        { value: { years: 9, days: 336 }, msg: 'At most 3620 days', param: 'expiresIn', location: 'body' },
        { value: 'http://x.example/l.png', msg: 'An https URL', param: 'display.0.logo.uri', location: 'body' },
      ]);
      expect((await call('POST', mobile, { ...mdlBody, type: 'org.example.card', expiresIn: { years: 9, days: 335 } })).statusCode).toBe(201);
    });

    it('refuses what a format cannot issue: a disclosable claim no mapping names, an unbundled context, a claim the credential writes itself', async () => {
      const { call } = await tenant();
      const sd = await call('POST', '/v2/credentials/sd-jwt/configurations', {
        ...flatBody,
        type: 'https://credentials.example.com/x',
        selectivelyDisclosable: ['name', 'nickname'],
      });
      expect(sd.statusCode).toBe(400);
      expect(sd.json().details).toEqual([{ value: 'nickname', msg: 'A claim named in claimMappings', param: 'selectivelyDisclosable.1', location: 'body' }]);
      const ldp = await call('POST', '/v2/credentials/web-semantic/configurations', {
        ...flatBody,
        type: 'Degree',
        issuer: { name: 'U' },
        contexts: ['https://contexts.example/unknown/v1'],
        claimMappings: { ...flatBody.claimMappings, type: { defaultValue: 'x' } },
      });
      expect(ldp.statusCode).toBe(400);
      expect(
        ldp
          .json()
          .details.map((d: { param: string }) => d.param)
          .sort(),
      ).toEqual(['claimMappings.type', 'contexts.0']);
    });

    it('keeps collections apart: an mDoc id is not found at another format’s path', async () => {
      const { call } = await tenant();
      const config = (await call('POST', mobile, mdlBody)).json();
      expect((await call('GET', `/v2/credentials/compact/configurations/${config.id}`)).statusCode).toBe(404);
      expect((await call('GET', '/v2/credentials/compact/configurations')).json()).toEqual({ data: [] });
    });

    it('pins an ldp_vc issuer to a DID of the tenant', async () => {
      const { call } = await tenant();
      const did = (await call('POST', '/v1/dids', { method: 'key' })).json().did;
      const web = '/v2/credentials/web-semantic/configurations';
      const ok = await call('POST', web, { ...flatBody, type: 'Degree', issuer: { id: did, name: 'University' } });
      expect(ok.statusCode, ok.body).toBe(201);
      const bad = await call('POST', web, {
        ...flatBody,
        type: 'Other',
        issuer: { id: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', name: 'U' },
      });
      expect(bad.json()).toMatchObject({ code: 'BadRequest', details: [{ param: 'issuer.id', msg: 'The tenant holds no such DID' }] });
    });
  });

  describe('GET /.well-known/openid-credential-issuer (OpenID4VCI 1.0 §12.2, §12.2.2)', () => {
    it('publishes every configuration, field by field, for the tenant host, without a token', async () => {
      const { call, host } = await tenant();
      const ids: Record<string, string> = {};
      for (const c of COLLECTIONS) ids[c.format] = (await call('POST', c.path, c.body)).json().id;
      const res = await t.app.inject({ method: 'GET', url: url('/.well-known/openid-credential-issuer'), headers: { host } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      const issuer = `https://${host}${t.prefix}`;
      const m = res.json();
      // Only what is live is advertised (LIVE_ISSUANCE_FEATURES).
      const iacas = LIVE_ISSUANCE_FEATURES.iacaList ? ['mdoc_iacas_uri'] : [];
      const credential = LIVE_ISSUANCE_FEATURES.credentialEndpoint ? ['credential_endpoint', 'nonce_endpoint', 'notification_endpoint'] : [];
      const encryption = [
        ...(LIVE_ISSUANCE_FEATURES.credentialResponseEncryption ? ['credential_response_encryption'] : []),
        ...(LIVE_ISSUANCE_FEATURES.credentialRequestEncryption ? ['credential_request_encryption'] : []),
      ];
      for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) delete m[key];
      const authorizationCode = LIVE_ISSUANCE_FEATURES.authorizationCode
        ? [
            'pushed_authorization_request_endpoint',
            'require_pushed_authorization_requests',
            'response_types_supported',
            'response_modes_supported',
            'code_challenge_methods_supported',
            'authorization_response_iss_parameter_supported',
            'token_endpoint_auth_methods_supported',
          ]
        : [];
      const proofs = [
        ...(LIVE_ISSUANCE_FEATURES.dpop ? ['dpop_signing_alg_values_supported'] : []),
        ...(LIVE_ISSUANCE_FEATURES.clientAttestation
          ? ['client_attestation_signing_alg_values_supported', 'client_attestation_pop_signing_alg_values_supported']
          : []),
      ];
      expect(Object.keys(m)).toEqual([
        'issuer',
        'credential_issuer',
        ...credential,
        ...iacas,
        'scopes_supported',
        ...authorizationCode,
        ...proofs,
        'grant_types_supported',
        'credentials_supported',
        'credential_configurations_supported',
        ...encryption,
      ]);
      if (LIVE_ISSUANCE_FEATURES.iacaList) expect(m.mdoc_iacas_uri).toBe(`${issuer}/v2/credentials/mobile/iacas`);
      expect(m.issuer).toBe(issuer);
      expect(m.credential_issuer).toBe(issuer);
      // The Pre-authorized Code grant is live (issue 5), and the Authorization Code grant (issue 13).
      expect(m.grant_types_supported).toEqual(['authorization_code', PRE_AUTHORIZED_GRANT]);
      expect(res.json()).toMatchObject({ token_endpoint: `${issuer}/v1/oauth/token`, jwks_uri: `${issuer}/.well-known/jwks.json` });
      expect(m.scopes_supported).toEqual([
        `mso_mdoc:${MDL}`,
        'ldp_vc:UniversityDegree',
        'cwt:Badge',
        'cwt_vc:Badge',
        'dc+sd-jwt:https://credentials.example.com/pid',
      ]);
      expect(Object.keys(m.credential_configurations_supported)).toEqual(Object.values(ids));

      const supported = m.credential_configurations_supported;
      expect(supported[ids.mso_mdoc as string]).toEqual(
        mdlIssuerMetadata(ids.mso_mdoc as string, [
          { path: ['org.iso.18013.5.1', 'family_name'], mandatory: true, display: MDL_DISPLAY.claimDisplay['org.iso.18013.5.1'].family_name },
          { path: ['org.iso.18013.5.1', 'birth_date'], mandatory: true },
          { path: ['org.iso.18013.5.1', 'issuing_country'], mandatory: false },
        ]),
      );
      const flatClaims = (prefix: string[]) => [
        { path: [...prefix, 'name'], mandatory: true, display: [{ name: 'Name', locale: 'en' }] },
        { path: [...prefix, 'level'], mandatory: false },
      ];
      expect(supported[ids.ldp_vc as string]).toEqual({
        format: 'ldp_vc',
        id: ids.ldp_vc,
        scope: 'ldp_vc:UniversityDegree',
        credential_definition: {
          '@context': ['https://www.w3.org/2018/credentials/v1', 'https://schema.example/degree/v1'],
          type: ['VerifiableCredential', 'UniversityDegree'],
        },
        credential_signing_alg_values_supported: ['Ed25519Signature2018'],
        cryptographic_binding_methods_supported: ['did:key'],
        proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256', 'EdDSA'] } },
        // OpenID4VCI 1.0 §12.2.4: no name, no display (never an empty array).
        credential_metadata: { claims: flatClaims(['credentialSubject']) },
      });
      expect(supported[ids.cwt as string]).toMatchObject({
        format: 'cwt',
        scope: 'cwt:Badge',
        type: 'Badge',
        credential_signing_alg_values_supported: [-7],
        credential_metadata: { claims: flatClaims([]) },
      });
      expect(supported[ids.cwt_vc as string]).toMatchObject({
        format: 'cwt_vc',
        types: ['VerifiableCredential', 'Badge'],
        credential_metadata: { claims: flatClaims(['vc', 'credentialSubject']) },
      });
      expect(supported[ids['dc+sd-jwt'] as string]).toMatchObject({
        format: 'dc+sd-jwt',
        vct: 'https://credentials.example.com/pid',
        cryptographic_binding_methods_supported: ['jwk'],
      });

      // OpenID4VCI draft 13: the deprecated list stays until its end of life.
      expect(m.credentials_supported).toHaveLength(5);
      expect(m.credentials_supported[0]).toEqual({
        format: 'mso_mdoc',
        id: ids.mso_mdoc,
        scope: `mso_mdoc:${MDL}`,
        doctype: MDL,
        cryptographic_binding_methods_supported: ['mso'],
        cryptographic_suites_supported: ['ES256'],
      });
      expect(m.credentials_supported[1]).toEqual({
        format: 'ldp_vc',
        id: ids.ldp_vc,
        scope: 'ldp_vc:UniversityDegree',
        '@context': ['https://www.w3.org/2018/credentials/v1', 'https://schema.example/degree/v1'],
        type: ['VerifiableCredential', 'UniversityDegree'],
        credentialSubject: { name: {}, level: {} },
        cryptographic_binding_methods_supported: ['did:key'],
        cryptographic_suites_supported: ['Ed25519Signature2018'],
      });
    });

    it('names the origin the request came on: the tenant host or its verified custom domain', async () => {
      const { call, host, name } = await tenant();
      await call('POST', COLLECTIONS[0].path, mdlBody);
      const domain = `${name}.issuer.example.org`;
      const created = (await call('POST', '/v1/config/domain', { domain })).json();
      const viaDomain = () => t.app.inject({ method: 'GET', url: url('/.well-known/openid-credential-issuer'), headers: { host: domain } });
      // Not verified yet: the domain does not reach the tenant.
      expect((await viaDomain()).statusCode).toBe(404);
      t.zone[domain] = [created.verificationToken];
      expect((await call('POST', '/v1/config/domain/verify')).statusCode).toBe(204);
      const custom = (await viaDomain()).json();
      expect(custom.credential_issuer).toBe(`https://${domain}${t.prefix}`);
      expect(custom.issuer).toBe(`https://${domain}${t.prefix}`);
      const own = (await t.app.inject({ method: 'GET', url: url('/.well-known/openid-credential-issuer'), headers: { host } })).json();
      expect(own.credential_issuer).toBe(`https://${host}${t.prefix}`);
      expect(custom.credential_configurations_supported).toEqual(own.credential_configurations_supported);
    });

    it('shows a change at once, and answers a matching If-None-Match with 304', async () => {
      const { call, host } = await tenant();
      const get = (headers: Record<string, string> = {}) =>
        t.app.inject({ method: 'GET', url: url('/.well-known/openid-credential-issuer'), headers: { host, ...headers } });
      const empty = await get();
      expect(empty.headers['cache-control']).toBe('no-cache');
      const etag = empty.headers.etag as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const unchanged = await get({ 'if-none-match': etag });
      expect(unchanged.statusCode).toBe(304);
      expect(unchanged.body).toBe('');
      await call('POST', COLLECTIONS[0].path, mdlBody);
      const changed = await get({ 'if-none-match': etag });
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(Object.keys(changed.json().credential_configurations_supported)).toHaveLength(1);
    });

    it('answers a host that names no tenant with 404', async () => {
      const res = await t.app.inject({ method: 'GET', url: url('/.well-known/openid-credential-issuer'), headers: { host: 'nobody.eu01.vellum.test' } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NotFound' });
    });
  });

  describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
    it('names the issuer and advertises the live flows only: the Authorization Code grant with PAR and PKCE, and the Pre-authorized Code grant, anonymous', async () => {
      const { host } = await tenant();
      const res = await t.app.inject({ method: 'GET', url: url('/.well-known/oauth-authorization-server'), headers: { host } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      const issuer = `https://${host}${t.prefix}`;
      expect(res.json()).toEqual({
        issuer,
        token_endpoint: `${issuer}/v1/oauth/token`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        authorization_endpoint: `${issuer}/v1/oauth/authorize`,
        pushed_authorization_request_endpoint: `${issuer}/v1/oauth/par`,
        require_pushed_authorization_requests: false,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'attest_jwt_client_auth'],
        authorization_details_types_supported: ['openid_credential'],
        dpop_signing_alg_values_supported: ['ES256', 'EdDSA'],
        client_attestation_signing_alg_values_supported: ['ES256', 'EdDSA'],
        client_attestation_pop_signing_alg_values_supported: ['ES256', 'EdDSA'],
        grant_types_supported: ['authorization_code', PRE_AUTHORIZED_GRANT],
        'pre-authorized_grant_anonymous_access_supported': true,
      });
    });
  });
});
