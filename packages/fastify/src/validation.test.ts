import { checkCreateDidInput, checkCreateIacaInput, checkWebhookInput, type DomainError } from '@vellum/core';
import {
  checkAuthorizationCodeOffer,
  checkConfigurationInput,
  checkPreAuthorizedOffer,
  createCwtFormat,
  createLdpVcFormat,
  createMdocFormat,
  createSdJwtFormat,
} from '@vellum/core';
import {
  checkClaimSourceInput,
  checkCustomDomainInput,
  checkOpenIdSettingsInput,
  checkProviderInput,
  checkUserInput,
  checkUserSearch,
  checkWalletClientInput,
  ROLE_PERMISSIONS,
  type Tenant,
} from '@vellum/core';
import { type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Problems } from '@vellum/core/schemas';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, PLATFORM, type TestApp } from '../test/app.ts';
import { handleError } from './errors.ts';
import { validatorCompiler } from './validation.ts';

// docs/decisions.md "One validation path": a body that misses its schema gets the same details over
// HTTP (Fastify runs the core's schema with the core's check) as from the core called directly. (The
// core goes on to the value rules of the fields whose shape is right, so the bodies here fail on shape.)
describe('one validation path: the same bad body, the same answer through either door', () => {
  let t: TestApp;
  let headers: Record<string, string>;

  beforeAll(async () => {
    t = await buildTestApp('standalone');
    const created = await t.createTenant('v1');
    headers = { authorization: `Bearer ${await t.token('v1', 'admin')}`, host: created.host };
  });
  afterAll(async () => t.close());

  /** The details the core's own check gives for `body`. */
  function coreDetails(check: (body: never) => unknown, body: object): unknown {
    try {
      check(body as never);
    } catch (error) {
      return (error as DomainError).details;
    }
    throw new Error('the core accepted the body');
  }

  it.each([
    ['an unknown event, a number for the URL and an unknown field', { events: ['OpenIdCredentialIssued', 'Nope'], url: 5, extra: 'x' }],
    ['an empty list, a missing URL and a secret-named unknown field', { events: [], client_secret: 'hunter2' }],
    ['a string for disabled', { events: ['OpenIdCredentialIssued'], url: 'https://hooks.example.com/a', disabled: 'no' }],
    ['one event where a list belongs, and no body fields but that', { events: 'OpenIdCredentialIssued' }],
  ])('webhooks: %s', async (_, body) => {
    const answer = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers, payload: body });
    expect(answer.statusCode).toBe(400);
    const details = answer.json().details;
    expect(details.length).toBeGreaterThan(0);
    expect(details).toEqual(coreDetails(checkWebhookInput, body));
    expect(JSON.stringify(details)).not.toContain('hunter2');
  });

  it.each([
    ['no method', {}],
    ['an unknown method and key type, and an unknown option', { method: 'ion', options: { keyType: 'RSA', colour: 'red' } }],
    ['a number for the URL', { method: 'web', options: { url: 7 } }],
    ['options that are no object', { method: 'key', options: 'Ed25519' }],
  ])('DIDs: %s', async (_, body) => {
    const answer = await t.app.inject({ method: 'POST', url: '/v1/dids', headers, payload: body });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().details).toEqual(coreDetails(checkCreateDidInput, body));
  });

  it.each([
    ['a lower-case country, a blank name and an unknown field', { country: 'us', commonName: ' ', serial: 1 }],
    ['a number for a date and a PEM that is no text', { notBefore: 20260101, certificatePem: ['x'] }],
  ])('IACAs: %s', async (_, body) => {
    const answer = await t.app.inject({ method: 'POST', url: '/v2/credentials/mobile/iacas', headers, payload: body });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().details).toEqual(coreDetails((b: object) => checkCreateIacaInput(b, { now: new Date(), tenantName: 'v1' }), body));
  });

  // Credential configurations: the format's handler runs its value rules after the schema, as the service does.
  const assigned = { id: crypto.randomUUID(), tenantId: 't', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' };
  const mappings = { name: { mapFrom: 'claims.name' } };
  it.each([
    [
      'mso_mdoc',
      '/v2/credentials/mobile/configurations',
      'an unknown field, a blank name and a colour that is no colour',
      { type: 'org.example.card', name: ' ', colour: 'red', claimMappings: { ns: mappings }, display: [{ name: 'Card', background_color: 'blue-ish' }] },
    ],
    ['mso_mdoc', '/v2/credentials/mobile/configurations', 'no type, no claim mappings and a duration that is no object', { expiresIn: 'P1Y' }],
    [
      'cwt',
      '/v2/credentials/compact/configurations',
      'an issuer with an unknown field and an id that is no DID, a string for revocable, key attestations with an empty list of roots',
      {
        type: 'Badge',
        claimMappings: mappings,
        issuer: { id: 'https://issuer.example', colour: 1 },
        revocable: 'yes',
        keyAttestationsRequired: { keyStorage: ['x'], rootCertificates: [] },
      },
    ],
    [
      'ldp_vc',
      '/v2/credentials/web-semantic/configurations',
      'no issuer, and one context where a list belongs',
      { type: 'Degree', claimMappings: mappings, contexts: 'https://x.example/v1' },
    ],
    [
      'dc+sd-jwt',
      '/v2/credentials/sd-jwt/configurations',
      'a claim source id that is no UUID, a display entry that is no object, labels in a list',
      { type: 'Pid', claimMappings: mappings, claimSourceId: 'source-1', display: ['Card'], claimDisplay: [], selectivelyDisclosable: 'name' },
    ],
  ] as const)('configurations (%s at %s): %s', async (format, url, _, body) => {
    const handlers = {
      mso_mdoc: createMdocFormat({} as never),
      cwt: createCwtFormat({ format: 'cwt' } as never),
      ldp_vc: createLdpVcFormat({ signer: { contexts: [] } } as never),
      'dc+sd-jwt': createSdJwtFormat({} as never),
    };
    const answer = await t.app.inject({ method: 'POST', url, headers, payload: body });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().details).toEqual(coreDetails((b: object) => checkConfigurationInput(handlers[format], b, assigned), body));
  });

  it.each([
    [
      'an empty list, a transaction code of the wrong mode, length and fields, an expiry in hours, a string for byReference',
      { credentials: [], transactionCodeConfiguration: { inputMode: 'emoji', length: 12, pin: 1 }, expiresIn: { hours: 1 }, byReference: 'yes' },
    ],
    [
      'no credentials, an empty user id, claims in a list, one claim name to persist, an unknown field',
      { userId: '', claims: [], claimsToPersist: 'a', extra: 1 },
    ],
    [
      'wallet requirements that are no flags, key attestation levels with roots and a level twice',
      { credentials: ['a'], walletRequirements: { dpop: 'yes', pin: true }, keyAttestationsRequired: { keyStorage: ['x', 'x'], rootCertificates: [] } },
    ],
  ])('pre-authorized offers: %s', async (_, body) => {
    const answer = await t.app.inject({ method: 'POST', url: '/v1/openid/offers/pre-authorized', headers, payload: body });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().details).toEqual(coreDetails(checkPreAuthorizedOffer, body));
  });

  it('Authorization Code offers: one id where a list belongs, request parameters as text, a number for byReference', async () => {
    const body = { credentials: 'x', request_parameters: 'login_hint=x', byReference: 1 };
    const answer = await t.app.inject({ method: 'POST', url: '/v1/openid/offers', headers, payload: body });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().details).toEqual(coreDetails(checkAuthorizationCodeOffer, body));
  });

  // Users, authentication providers, claim sources, wallet clients, admin clients, custom domains.
  it.each([
    ['POST', '/v1/users', 'users: claims in a list and an unknown field', (b: object) => checkUserInput(b), { claims: ['a'], extra: 1 }],
    ['POST', '/v1/users', 'users: a body that is no object', (b: object) => checkUserInput(b), [1, 2]],
    [
      'POST',
      '/v1/users/search',
      'user search: claims as text, an empty subject id, a limit of 0 and a number for the cursor',
      (b: object) => checkUserSearch(b),
      { claims: 'x', authenticationProvider: { subjectId: '' }, limit: 0, cursor: 5 },
    ],
    [
      'POST',
      '/v1/users/authentication-providers',
      'authentication providers: a number for the URL and the secret, a blank client id, an unknown method, bad names and a secret-named field',
      (b: object) => checkProviderInput(b, true),
      {
        url: 5,
        clientId: ' ',
        clientSecret: 5,
        tokenEndpointAuthMethod: 'none',
        staticRequestParameters: { prompt: 1 },
        forwardedRequestParameters: ['a b'],
        claimsToPersist: [''],
        password: 'hunter2',
      },
    ],
    [
      'PUT',
      '/v1/openid/configuration',
      'the interaction hook: a number for the URL, claims as text, a fractional timeout and a secret of its own',
      (b: object) => checkOpenIdSettingsInput(b),
      { interactionHook: { url: 7, claims: 'email', sessionTimeoutInSec: 90.5, secret: 'hunter2' } },
    ],
    ['PUT', '/v1/openid/configuration', 'the interaction hook as text', (b: object) => checkOpenIdSettingsInput(b), { interactionHook: 'https://x.example' }],
    [
      'POST',
      '/v1/claim-sources',
      'claim sources: a blank name, a number for the URL, an unknown method, a bad parameter and an unknown authorization type',
      (b: object) => checkClaimSourceInput(b),
      {
        name: ' ',
        url: 1,
        requestMethod: 'PUT',
        requestParameters: { email: { mapFrom: 5, required: true } },
        authorization: { type: 'mtls', value: 'hunter2' },
      },
    ],
    [
      'POST',
      '/v1/claim-sources',
      'claim sources: an API key that is no text',
      (b: object) => checkClaimSourceInput(b),
      { name: 'CRM', url: 'https://crm.example.com/claims', requestMethod: 'GET', authorization: { type: 'api-key', value: 5 } },
    ],
    [
      'POST',
      '/v1/openid/clients',
      'wallet clients: an empty name, one URI where a list belongs, a flag that is no boolean, no roots and a secret of its own',
      (b: object) => checkWalletClientInput(b),
      { clientName: '', redirectUris: 'https://w.example/cb', dpop: { required: 'yes' }, clientAttestation: { rootCertificates: [] }, clientSecret: 'hunter2' },
    ],
    ['POST', '/v1/openid/clients', 'wallet clients: a body that is no object', (b: object) => checkWalletClientInput(b), [1, 2]],
    [
      'POST',
      '/v1/config/domain',
      'custom domains: numbers for the domain, logo and name',
      (b: object) => checkCustomDomainInput(b as never, PLATFORM),
      { domain: 42, logoUrl: 5, name: 7 },
    ],
    ['POST', '/v1/config/domain', 'custom domains: no domain', (b: object) => checkCustomDomainInput(b as never, PLATFORM), {}],
  ] as const)('%s %s: %s', async (method, url, _, check, body) => {
    const answer = await t.app.inject({ method, url, headers, payload: body as object });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().details).toEqual(coreDetails(check, body as object));
    expect(answer.body).not.toContain('hunter2');
  });

  it('admin clients: an unknown role, a blank name and an unknown field', async () => {
    const body = { role: 'root', name: ' ', extra: 1 };
    const answer = await t.app.inject({ method: 'POST', url: '/v1/admin-clients', headers, payload: body });
    expect(answer.statusCode).toBe(400);
    const tenant = await t.store.tenants.findBySubdomain('v1');
    const requestor = { clientId: 'c', role: 'admin' as const, permissions: new Set(ROLE_PERMISSIONS.admin) };
    const ctx = { tenant: tenant as Tenant, origin: `https://${headers.host}`, requestor, requestId: 'r', ip: '127.0.0.1' };
    const refused = await t.services.adminClients.create(ctx, body).then(
      () => undefined,
      (error: DomainError) => error.details,
    );
    expect(answer.json().details).toEqual(refused);
  });
});

// The query string, path parameters and headers go through the same check, with their location,
// after their text is converted to the schema's types.
describe('one validation path: query strings, path parameters and headers', () => {
  const Query = Type.Object(
    { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })), flag: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  );
  const Params = Type.Object({ id: Type.String({ pattern: '^[0-9a-f-]{36}$', errorMessage: 'A UUID' }) });
  const Headers = Type.Object({ 'x-count': Type.Integer() });
  const app = Fastify();

  beforeAll(async () => {
    app.setValidatorCompiler(validatorCompiler);
    app.setErrorHandler(handleError);
    app.get('/things/:id', { schema: { querystring: Query, params: Params, headers: Headers } }, async (request) => ({
      query: request.query,
      count: (request.headers as Record<string, unknown>)['x-count'],
    }));
    await app.ready();
  });
  afterAll(async () => app.close());

  const ID = '0b5f1d0c-3f4e-4c4a-9d53-3b2b8d1c6a10';
  /** What the core's check says of `input` at `location`. */
  function expected(schema: TSchema, input: object, location: 'query' | 'params' | 'headers'): unknown {
    const problems = new Problems(location);
    problems.checkShape(schema, Value.Convert(schema, input));
    return problems.error(schema)?.details;
  }

  it('converts text to the types of a schema that fits', async () => {
    const answer = await app.inject({ url: `/things/${ID}?limit=3&flag=true`, headers: { 'x-count': '7' } });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ query: { limit: 3, flag: true }, count: 7 });
  });

  it.each([
    ['a limit too large', 'limit=11', { limit: '11' }],
    ['a limit that is no number and an unknown field', 'limit=ten&colour=red', { limit: 'ten', colour: 'red' }],
  ])('a query with %s is refused with its location', async (_, search, query) => {
    const answer = await app.inject({ url: `/things/${ID}?${search}`, headers: { 'x-count': '1' } });
    expect(answer.statusCode).toBe(400);
    const details = answer.json().details;
    expect(details.length).toBeGreaterThan(0);
    expect(details.every((d: { location: string }) => d.location === 'query')).toBe(true);
    expect(details).toEqual(expected(Query, query, 'query'));
  });

  it('a path parameter that misses its schema is refused with the schema’s words', async () => {
    const answer = await app.inject({ url: '/things/nope', headers: { 'x-count': '1' } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().details).toEqual([{ value: 'nope', msg: 'A UUID', param: 'id', location: 'params' }]);
  });

  it('a header that misses its schema is refused with its location', async () => {
    const missing = await app.inject({ url: `/things/${ID}` });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details).toEqual([{ msg: 'Required', param: 'x-count', location: 'headers' }]);
    const wrong = await app.inject({ url: `/things/${ID}`, headers: { 'x-count': 'many' } });
    expect(wrong.json().details).toEqual(expected(Headers, { 'x-count': 'many' }, 'headers'));
    expect(wrong.json().details[0]).toMatchObject({ param: 'x-count', location: 'headers', value: 'many' });
  });
});
