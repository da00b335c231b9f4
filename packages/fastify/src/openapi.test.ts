import { createHash } from 'node:crypto';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../test/app.ts';
import { vellumPlugin } from './index.ts';
import { OPERATION_IDS, OPERATION_VERBS } from './operation-ids.ts';
import { ErrorBodySchema, OAuthErrorBodySchema } from './schemas/common.ts';

// docs/api-reference.md: the document is generated from the schemas that validate, covers every
// route, and the reference page runs from the server alone.

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: unknown; style?: string; explode?: boolean }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: unknown }>; headers?: Json }>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string; license?: { name: string }; contact?: { name?: string } };
  servers?: Array<{ url: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string }>; schemas: Record<string, unknown> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Fastify's `:name` path parameters as OpenAPI's `{name}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * A validating schema as the document may show it: plain JSON, without `$id` (an OpenAPI schema
 * has none), and a TypeBox Record's catch-all `patternProperties` as `additionalProperties`.
 */
function documented(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(documented);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(JSON.parse(JSON.stringify(schema)) as Json)) {
    // The document drops the validator's own keywords (ajv-errors' messages); the routes keep them.
    if (key === '$id' || key === 'errorMessage') continue;
    if (key === 'patternProperties') {
      const patterns = Object.entries(value as Json);
      expect(
        patterns.map(([p]) => p),
        'only the catch-all pattern may become additionalProperties',
      ).toEqual(['^(.*)$']);
      out.additionalProperties = documented(patterns[0]?.[1]);
      continue;
    }
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([name, s]) => [name, documented(s)]));
      continue;
    }
    out[key] = documented(value);
  }
  return out;
}

/** Every `$ref` in a value. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') found.push(v);
      else refsIn(v, found);
    }
  }
  return found;
}

// STYLE 14: standalone, and mounted under a prefix beside a host's own routes.
describe.each(['standalone', 'prefixed'] as const)('OpenAPI document and API reference (%s)', (mount) => {
  let t: TestApp;
  let app: FastifyInstance;
  let routes: RouteOptions[];
  let doc: OpenApiDocument;
  let acme: Awaited<ReturnType<TestApp['createTenant']>>;
  const prefix = mount === 'prefixed' ? '/issuance' : '';

  beforeAll(async () => {
    t = await buildTestApp('standalone');
    acme = await t.createTenant('acme');
    // The same services in a host of our own, that records every route as Fastify adds it.
    app = Fastify();
    app.get('/host-route', async () => ({ host: true }));
    routes = [];
    app.addHook('onRoute', (route) => {
      routes.push(route);
    });
    await app.register(vellumPlugin, { services: t.services, prefix });
    await app.ready();
    const res = await app.inject({ url: `${prefix}/openapi.json`, headers: { host: acme.host } });
    expect(res.statusCode).toBe(200);
    doc = res.json() as OpenApiDocument;
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  /** The plugin's operations: every route but HEAD (Fastify's twin of each GET) and CORS preflights. */
  const operations = () => routes.filter((r) => ![r.method].flat().some((m) => m === 'HEAD' || m === 'OPTIONS'));
  const operationOf = (route: RouteOptions): Operation | undefined => doc.paths[openApiPath(route.url)]?.[String(route.method).toLowerCase()];
  const documentedRoutes = () => operations().filter((r) => r.schema?.hide !== true);

  it('is an OpenAPI 3.1 document: version, info, paths, and the security schemes the operations name', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(Object.keys(doc.paths).length).toBeGreaterThan(50);
    expect(doc.components.securitySchemes).toMatchObject({
      adminToken: { type: 'http', scheme: 'bearer' },
      walletAccessToken: { type: 'http', scheme: 'bearer' },
      walletDpopToken: { type: 'http', scheme: 'DPoP' },
      walletClientBasic: { type: 'http', scheme: 'basic' },
    });
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path.startsWith(`${prefix}/`), path).toBe(true);
      for (const [method, op] of Object.entries(item)) {
        expect(METHODS, `${method} ${path}`).toContain(method);
        expect(op.summary, `${method} ${path} has a summary`).toMatch(/\S/);
        expect(op.tags?.length, `${method} ${path} has a tag`).toBeGreaterThan(0);
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
        for (const r of Object.values(op.responses)) expect(r.description, `${method} ${path}`).toMatch(/\S/);
        // Every {name} in the path is a required path parameter, and there are no others.
        const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
        expect(declared.map((p) => p.name).sort(), `${method} ${path}`).toEqual(inPath);
        for (const p of declared) expect(p.required).toBe(true);
        for (const requirement of op.security ?? [])
          for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(scheme);
      }
    }
    // Every reference points into the document.
    for (const ref of refsIn(doc)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas).toHaveProperty(ref.slice('#/components/schemas/'.length));
    }
  });

  it('gives every operation a unique, verb-first operationId from the table (docs/api-reference.md)', () => {
    const verbs = new RegExp(`^(${OPERATION_VERBS.join('|')})[A-Z][A-Za-z0-9]*$`);
    const ids: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(op.operationId, `${method} ${path}`).toMatch(verbs);
        // The id does not depend on where a host mounts the plugin.
        expect(OPERATION_IDS.get(`${method.toUpperCase()} ${path.slice(prefix.length)}`), `${method} ${path}`).toBe(op.operationId);
        ids.push(op.operationId as string);
      }
    }
    expect(new Set(ids).size, 'operationIds are unique').toBe(ids.length);
    expect(ids.length).toBe(documentedRoutes().length);
    // No stale row: each id in the table names an operation of the document.
    expect([...OPERATION_IDS.values()].sort()).toEqual([...ids].sort());
  });

  it('names who serves it, under which licence, and the host it is served from as its server', () => {
    expect(doc.info.license).toMatchObject({ name: 'Apache-2.0' });
    expect(doc.info.contact?.name).toMatch(/\S/);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('says each rule in its descriptions rather than pointing readers to docs/decisions.md', () => {
    expect(JSON.stringify(doc)).not.toContain('decisions.md');
  });

  it('shows only OpenAPI’s keywords: the validator’s errorMessage stays with the validating schemas', () => {
    expect(JSON.stringify(doc)).not.toContain('"errorMessage"');
    const withMessages = documentedRoutes().filter((r) => JSON.stringify(r.schema ?? {}).includes('"errorMessage"'));
    expect(withMessages.length).toBeGreaterThan(10);
  });

  it('lists a 4xx answer for every operation; the ones that name only the tenant lookup answer 404 on a host with no tenant', async () => {
    let checked = 0;
    for (const route of documentedRoutes()) {
      const op = operationOf(route) as Operation;
      const name = `${String(route.method)} ${route.url}`;
      const clientErrors = Object.keys(op.responses).filter((s) => /^4\d\d$/.test(s));
      expect(clientErrors.length, `${name} lists a 4xx answer`).toBeGreaterThan(0);
      for (const status of clientErrors) {
        const content = op.responses[status]?.content ?? {};
        expect(Object.keys(content).length, `${name} ${status} has a body`).toBeGreaterThan(0);
      }
      if (clientErrors.join() === '404' && op.responses['404']?.description === 'Not found, or no tenant is served at this host.') {
        const url = route.url.replace(/:([A-Za-z0-9_]+)/g, 'x');
        const res = await app.inject({ method: route.method as 'GET', url, headers: { host: 'no-tenant.example' } });
        expect(res.statusCode, name).toBe(404);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('documents every route the plugin registers, and no other', () => {
    const registered = documentedRoutes()
      .map((r) => `${String(r.method)} ${openApiPath(r.url)}`)
      .sort();
    const inDocument = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(inDocument).toEqual(registered);
    expect(registered.length).toBeGreaterThan(100);
    // Only the documentation's own routes are left out; the host's route is not the plugin's.
    const hidden = operations()
      .filter((r) => r.schema?.hide === true)
      .map((r) => r.url)
      .sort();
    expect(hidden).toEqual([`${prefix}/docs`, `${prefix}/docs/`, `${prefix}/docs/js/scalar.js`].sort());
    expect(Object.keys(doc.paths)).not.toContain('/host-route');
  });

  it('shows each operation the very schemas that validate its body, query and path parameters', () => {
    let compared = 0;
    for (const route of documentedRoutes()) {
      const op = operationOf(route);
      const name = `${String(route.method)} ${route.url}`;
      expect(op, name).toBeDefined();
      if (!op || !route.schema) continue;
      const { body, querystring, params } = route.schema as { body?: Json; querystring?: Json; params?: Json };
      if (body) {
        const content = Object.entries(op.requestBody?.content ?? {});
        expect(content.length, name).toBeGreaterThan(0);
        for (const [type, media] of content) expect(media.schema, `${name} ${type}`).toEqual(documented(body));
        compared++;
      }
      for (const [where, schema] of [
        ['query', querystring],
        ['path', params],
      ] as const) {
        if (!schema) continue;
        const parameters = (op.parameters ?? []).filter((p) => p.in === where);
        if (schema.properties === undefined) {
          // A Record of free-form parameters: one object parameter in `form` style.
          expect(parameters, name).toEqual([
            expect.objectContaining({ name: 'parameters', style: 'form', explode: true, schema: JSON.parse(JSON.stringify(schema)) }),
          ]);
        } else {
          const properties = schema.properties as Record<string, Json>;
          expect(parameters.map((p) => p.name).sort(), name).toEqual(Object.keys(properties).sort());
          for (const p of parameters) {
            const { description: _moved, ...own } = documented(properties[p.name]) as Json;
            expect(p.schema, `${name} ${where} ${p.name}`).toEqual(own);
            expect(Boolean(p.required), `${name} ${where} ${p.name} required`).toBe(
              where === 'path' || ((schema.required as string[] | undefined) ?? []).includes(p.name),
            );
          }
        }
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('shows the answers each route serialises, and the error body for its failures', () => {
    for (const [name, schema] of [
      ['ErrorBody', ErrorBodySchema],
      ['OAuthErrorBody', OAuthErrorBodySchema],
    ] as const) {
      expect(doc.components.schemas[name]).toEqual({ ...(documented(schema) as Json), title: name });
      // Making the document leaves the schemas the routes serialise with as they were.
      expect(schema).not.toHaveProperty('title');
    }
    for (const route of documentedRoutes()) {
      const op = operationOf(route) as Operation;
      const name = `${String(route.method)} ${route.url}`;
      const oauth = route.config?.errorStyle === 'oauth';
      const errorRef = { $ref: `#/components/schemas/${oauth ? 'OAuthErrorBody' : 'ErrorBody'}` };
      for (const [status, schema] of Object.entries((route.schema?.response ?? {}) as Record<string, Json>)) {
        const answer = op.responses[status];
        expect(answer, `${name} ${status}`).toBeDefined();
        if (schema.type === 'null') expect(answer?.content, `${name} ${status}`).toBeUndefined();
        else if (schema === (ErrorBodySchema as unknown)) expect(answer?.content?.['application/json']?.schema, `${name} ${status}`).toEqual(errorRef);
        else expect(answer?.content?.['application/json']?.schema, `${name} ${status}`).toEqual(documented(schema));
      }
      // Any other failure renders the error body (docs/errors.md).
      expect(op.responses.default?.content?.['application/json']?.schema, name).toEqual(errorRef);
      // A success is always described, even where the handler renders its own answer.
      expect(
        Object.keys(op.responses).some((s) => /^[23]\d\d$/.test(s)),
        `${name} has a success answer`,
      ).toBe(true);
    }
  });

  it('names the security each operation really asks for (checked by calling it without credentials)', async () => {
    const admin = [];
    for (const route of documentedRoutes()) {
      const op = operationOf(route) as Operation;
      const name = `${String(route.method)} ${route.url}`;
      const url = route.url.replace(/:([A-Za-z0-9_]+)/g, 'x');
      const res = await app.inject({ method: route.method as 'GET', url, headers: { host: acme.host } });
      const schemes = (op.security ?? []).flatMap((r) => Object.keys(r));
      const anonymous = (op.security ?? []).length === 0 || (op.security ?? []).some((r) => Object.keys(r).length === 0);
      if (route.config?.permission) {
        admin.push(name);
        expect(op.security, name).toEqual([{ adminToken: [] }]);
        expect(res.statusCode, name).toBe(401);
        expect(res.body, name).toBe('Unauthorized');
        expect(op.responses['401']?.content, name).toHaveProperty('text/plain');
        expect(op.responses['403']?.content?.['application/json']?.schema, name).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      } else if (schemes.includes('walletAccessToken')) {
        expect(op.security, name).toEqual([{ walletAccessToken: [] }, { walletDpopToken: [] }]);
        expect(res.statusCode, name).toBe(401);
        expect(res.json(), name).toMatchObject({ error: 'invalid_token' });
      } else {
        // Public: the server does not ask for a token, and the document does not either.
        expect(anonymous, name).toBe(true);
        expect(res.headers['www-authenticate'] ?? '', name).not.toMatch(/^Bearer$/);
        expect(res.body, name).not.toBe('Unauthorized');
      }
    }
    expect(admin.length).toBeGreaterThan(80);
    const token = doc.paths[`${prefix}/v1/oauth/token`]?.post;
    expect(token?.security).toEqual([{}, { walletClientBasic: [] }]);
    expect(token?.requestBody?.content).toHaveProperty('application/x-www-form-urlencoded');
    expect((token?.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name)).toEqual([
      'dpop',
      'oauth-client-attestation',
      'oauth-client-attestation-pop',
    ]);
  });

  it('is one document for every host, served without a token, even on a host that serves no tenant', async () => {
    const other = await app.inject({ url: `${prefix}/openapi.json`, headers: { host: 'no-tenant.example' } });
    expect(other.statusCode).toBe(200);
    expect(other.headers['content-type']).toMatch(/^application\/json/);
    expect(other.json()).toEqual(doc);
  });

  it('refuses /docs without a usable Host header with 400 and the error body, never a 5xx', async () => {
    // light-my-request fills an empty Host in; the real server's empty Host is in apps/server's fuzz suite.
    for (const host of ['[not a host', 'a b', '[', '[::1', '[x]:80']) {
      const res = await app.inject({ url: `${prefix}/docs/`, headers: { host } });
      expect(res.statusCode, `${JSON.stringify(host)}: ${res.body}`).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', message: expect.stringContaining('Host') });
    }
  });

  it('renders /docs from the server alone: its scripts come from the same origin and answer 200', async () => {
    const redirect = await app.inject({ url: `${prefix}/docs` });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe(`${prefix}/docs/`);

    const page = await app.inject({ url: `${prefix}/docs/` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const base = new URL(`http://vellum.example${prefix}/docs/`);
    const scripts = [...page.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    const sources = scripts.map((m) => /\bsrc="([^"]+)"/.exec(m[1] ?? '')?.[1]).filter((s): s is string => s !== undefined);
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      const url = new URL(src, base);
      expect(url.origin, src).toBe(base.origin);
      const script = await app.inject({ url: url.pathname });
      expect(script.statusCode, src).toBe(200);
      expect(script.headers['content-type']).toMatch(/javascript/);
      expect(script.body.length).toBeGreaterThan(100_000);
    }
    // Nothing on the page points at another origin: no CDN, no web fonts.
    for (const m of page.body.matchAll(/\b(?:src|href)="([^"]+)"/g)) expect(new URL(m[1] as string, base).origin).toBe(base.origin);
    expect(page.body).not.toMatch(/https?:\/\//);

    // The page's policy runs its own script and the inline start-up (by hash), nothing from elsewhere.
    const csp = String(page.headers['content-security-policy']);
    const scriptSrc = /script-src ([^;]+)/.exec(csp)?.[1]?.split(' ') ?? [];
    expect(scriptSrc).toContain("'self'");
    expect(scriptSrc.filter((s) => /^https?:|\*/.test(s))).toEqual([]);
    for (const m of scripts.filter((s) => !/\bsrc=/.test(s[1] ?? ''))) {
      expect(scriptSrc).toContain(
        `'sha256-${createHash('sha256')
          .update(m[2] ?? '')
          .digest('base64')}'`,
      );
    }
    expect(csp).toMatch(/connect-src 'self'(;|$)/);

    // The document the page loads is /openapi.json, found relative to the page.
    const documentUrl = /"url": "([^"]+)"/.exec(page.body)?.[1];
    expect(documentUrl).toBeDefined();
    const fetched = await app.inject({ url: new URL(documentUrl as string, base).pathname });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(doc);
  });
});
