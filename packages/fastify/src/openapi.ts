// The OpenAPI document of the plugin's routes, made from the TypeBox schemas that validate them,
// and the API reference page that renders it (docs/api-reference.md).
import { createHash } from 'node:crypto';
import swagger from '@fastify/swagger';
import apiReference from '@scalar/fastify-api-reference';
import { DomainError } from '@vellum/core';
import { Kind, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyPluginAsync, RouteOptions } from 'fastify';
import { OPERATION_IDS } from './operation-ids.ts';
import { ErrorBodySchema, OAuthErrorBodySchema } from './schemas/common.ts';

/** An answer the route's handler renders itself, described for the document only. */
export interface DocumentedResponse {
  description: string;
  /** Media type → schema of the content; none for an answer without content. */
  content?: Readonly<Record<string, TSchema>>;
  /** Answer headers worth knowing (name → schema with a description). */
  headers?: Readonly<Record<string, TSchema>>;
}

/**
 * What the document says about a route beyond its validating schemas: inputs the core reads itself
 * and answers the handler renders without a serialising schema. Never validated nor serialised.
 */
export interface DocumentOnly {
  /** Media type → schema of a body the route passes to the core unparsed. */
  body?: Readonly<Record<string, TSchema>>;
  /** Request headers the core reads (an object schema: property name = header name). */
  headers?: TSchema;
  responses?: Readonly<Record<number, DocumentedResponse>>;
}

declare module 'fastify' {
  interface FastifySchema {
    documentOnly?: DocumentOnly;
  }
}

/** Operations of the host's own routes, beside the plugin's, for its document (`paths` of OpenAPI 3.1). */
export type HostPaths = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** Names of the security schemes in `components.securitySchemes`. */
export const SECURITY_SCHEMES = {
  admin: 'adminToken',
  walletBearer: 'walletAccessToken',
  walletDpop: 'walletDpopToken',
  clientBasic: 'walletClientBasic',
} as const;

/** Operations that take a wallet access token, as a Bearer or DPoP-bound token (RFC 6750, RFC 9449). */
export const WALLET_TOKEN_SECURITY = [{ [SECURITY_SCHEMES.walletBearer]: [] }, { [SECURITY_SCHEMES.walletDpop]: [] }] as const;
/** Wallet token and PAR requests: a public client sends nothing, a confidential one may use Basic. */
export const WALLET_CLIENT_SECURITY = [{}, { [SECURITY_SCHEMES.clientBasic]: [] }] as const;

const securitySchemes = {
  [SECURITY_SCHEMES.admin]: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'An admin access token from `POST /oauth/token` (client credentials grant with `client_id`, `client_secret` and the tenant URL as `audience`). Each operation names the permission its role must hold.',
  },
  [SECURITY_SCHEMES.walletBearer]: {
    type: 'http',
    scheme: 'bearer',
    description: 'A wallet access token from `POST /v1/oauth/token` with `token_type` `Bearer`.',
  },
  [SECURITY_SCHEMES.walletDpop]: {
    type: 'http',
    scheme: 'DPoP',
    description: 'A DPoP-bound wallet access token (`token_type` `DPoP`), sent as `Authorization: DPoP <token>` with a proof in the `DPoP` header (RFC 9449).',
  },
  [SECURITY_SCHEMES.clientBasic]: {
    type: 'http',
    scheme: 'basic',
    description:
      'A confidential wallet client’s `client_secret_basic` authentication at the token and PAR endpoints (RFC 6749 §2.3.1); `client_secret_post` sends the same values in the form instead.',
  },
} as const;

const UNAUTHORIZED: DocumentedResponse = {
  description: 'No valid admin access token (docs/errors.md): the plain word, with a Bearer challenge.',
  content: { 'text/plain': Type.Literal('Unauthorized') },
  headers: { 'www-authenticate': Type.Literal('Bearer', { description: 'The challenge.' }) },
};

/** The 4xx answer of a route that takes no input and needs no tenant: headers too large for the host. */
const HEADERS_TOO_LARGE: DocumentedResponse = {
  description: 'The request headers exceed what the host takes (16 KB on the reference server), refused before any route runs.',
  content: { 'application/json': ErrorBodySchema },
};

/** What each status means, for answers whose route does not say. */
const STATUS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'Done; no content.',
  400: 'The request is invalid; `details` names each field (docs/errors.md).',
  401: 'Not authenticated.',
  403: 'The token’s role lacks the permission this operation needs.',
  404: 'Not found, or no tenant is served at this host.',
  409: 'Conflicts with what exists.',
  413: 'The body is too large (docs/limits.md).',
  415: 'The body’s media type is not taken here.',
  503: 'A service this operation needs is not available.',
  default: 'Any other failure, with the error body (docs/errors.md).',
};

/** The 4xx answer of an operation that names none: every route is served for a tenant chosen by the Host. */
const NO_TENANT = 'Not found, or no tenant is served at this host.';

/** The error bodies, as components the operations refer to. */
const ERROR_COMPONENTS = new Map<TSchema, string>([
  [ErrorBodySchema, 'ErrorBody'],
  [OAuthErrorBodySchema, 'OAuthErrorBody'],
]);

/** A media type's schema, or a reference when it is one of the error bodies. */
function mediaSchema(schema: TSchema): unknown {
  const name = ERROR_COMPONENTS.get(schema);
  return name ? { $ref: `#/components/schemas/${name}` } : schema;
}

/** A response in the form @fastify/swagger takes as it is (`description`, `content`, `headers`). */
function response(status: string, value: TSchema | DocumentedResponse): unknown {
  if (!(Kind in value)) {
    const r = value as DocumentedResponse;
    // Without content, a `null` type: @fastify/swagger then lists no content for it.
    if (!r.content) return { type: 'null', description: r.description, ...(r.headers ? { headers: r.headers } : {}) };
    const content = Object.fromEntries(Object.entries(r.content).map(([type, s]) => [type, { schema: mediaSchema(s) }]));
    return { description: r.description, content, ...(r.headers ? { headers: r.headers } : {}) };
  }
  const schema = value as TSchema;
  if (schema.type === 'null') return { ...schema, description: schema.description ?? STATUS_DESCRIPTIONS[status] ?? 'No content' };
  return { description: STATUS_DESCRIPTIONS[status] ?? 'OK', content: { 'application/json': { schema: mediaSchema(schema) } } };
}

/** A schema as plain JSON, apart from the live one the routes serialise with. */
const plain = (schema: TSchema): TSchema => JSON.parse(JSON.stringify(schema)) as TSchema;

/** Marks an operation whose query is a free-form object, to be written as one parameter afterwards. */
const QUERY_OBJECT = 'x-vellum-query-object';

/** The tag of a route that names none. */
const UNTAGGED = 'Other';

type RouteSchema = NonNullable<RouteOptions['schema']>;

/**
 * Builds the schema @fastify/swagger documents from a route's own: its validating schemas as they
 * are, and what only the document says (security from the route's permission, error answers).
 */
function documentRoute(route: RouteOptions, prefix: string): RouteSchema {
  const method = [route.method].flat()[0];
  const schema: RouteSchema = route.schema ?? {};
  // CORS preflights are answers of the HTTP policy, not operations (docs/limits.md).
  if (method === 'OPTIONS') return { hide: true };
  if (schema.hide) return schema;
  const { documentOnly, querystring, ...own } = schema;
  const oauth = route.config?.errorStyle === 'oauth';
  const errorBody = oauth ? OAuthErrorBodySchema : ErrorBodySchema;
  const permission = route.config?.permission;
  const optional = route.config?.authentication === 'optional';
  const responses: Record<string, unknown> = {};
  for (const [status, value] of Object.entries((own.response ?? {}) as Record<string, TSchema>)) {
    // Wallet-facing routes render the same body with the OAuth fields always set (docs/errors.md).
    responses[status] = response(status, oauth && value === ErrorBodySchema ? OAuthErrorBodySchema : value);
  }
  for (const [status, value] of Object.entries(documentOnly?.responses ?? {})) responses[status] ??= response(status, value);
  if (permission || optional) responses[401] ??= response('401', UNAUTHORIZED);
  if (permission) responses[403] ??= response('403', errorBody);
  // Every operation names at least one 4xx answer, so that a client generated from it has a type for it.
  if (!Object.keys(responses).some((status) => status.startsWith('4')))
    responses[404] = response('404', { description: NO_TENANT, content: { 'application/json': errorBody } });
  responses.default = response('default', errorBody);
  const description = [
    own.description,
    permission ? `Needs an admin token whose role holds the \`${permission}\` permission.` : undefined,
    optional ? 'Public; an admin token, when sent, must be valid, and shows what its role may see.' : undefined,
  ]
    .filter(Boolean)
    .join('\n\n');
  const security = permission ? [{ [SECURITY_SCHEMES.admin]: [] }] : optional ? [{}, { [SECURITY_SCHEMES.admin]: [] }] : (own.security ?? []);
  // A query of free-form parameters (a TypeBox Record) is one object parameter, not one per keyword.
  const freeQuery = querystring !== undefined && (querystring as TSchema).properties === undefined;
  const path = route.url.slice(prefix.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}') || '/';
  const operationId = (own.operationId as string | undefined) ?? OPERATION_IDS.get(`${method} ${path}`);
  return {
    ...own,
    ...(operationId ? { operationId } : {}),
    tags: own.tags ?? [UNTAGGED],
    ...(description ? { description } : {}),
    security,
    ...(querystring === undefined ? {} : freeQuery ? { [QUERY_OBJECT]: querystring } : { querystring }),
    ...(own.body === undefined && documentOnly?.body
      ? { body: { content: Object.fromEntries(Object.entries(documentOnly.body).map(([type, s]) => [type, { schema: s }])) } }
      : {}),
    ...(own.headers === undefined && documentOnly?.headers ? { headers: documentOnly.headers } : {}),
    response: responses,
  };
}

/** JSON Schema keywords the validator reads that are not OpenAPI's (ajv-errors' messages). */
const VALIDATION_ONLY_KEYWORDS = new Set(['errorMessage']);

/**
 * A copy of a document without the validation-only keywords. The keys of a `properties` (or
 * `patternProperties`, `$defs`) map are names, not keywords: a field called `errorMessage` stays.
 */
function withoutValidationKeywords(value: unknown, names = false): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutValidationKeywords(v));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!names && VALIDATION_ONLY_KEYWORDS.has(key)) continue;
    out[key] = withoutValidationKeywords(v, !names && NAME_MAPS.has(key));
  }
  return out;
}
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'paths', 'schemas', 'responses', 'content', 'headers']);

/** Writes each free-form query as one `form`-style object parameter (OpenAPI 3.1 §4.8.12.4). */
function writeQueryObjects(document: { paths?: Record<string, Record<string, Record<string, unknown>>> }): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const query = operation[QUERY_OBJECT];
      if (query === undefined) continue;
      delete operation[QUERY_OBJECT];
      const parameter = {
        in: 'query',
        name: 'parameters',
        style: 'form',
        explode: true,
        description: 'Any query parameters, each as text (a repeated one as a list).',
        schema: plain(query as TSchema),
      };
      operation.parameters = [...((operation.parameters as unknown[] | undefined) ?? []), parameter];
    }
  }
}

const TAGS = [
  [
    'Admin token',
    'Admin access tokens for a tenant’s admin clients. A token is taken only by the tenant that issued it, and only at the origin named as its `audience`.',
  ],
  ['Wallet authorization', 'The wallet’s OAuth side: token, nonce, authorization and PAR endpoints.'],
  ['Credential issuance', 'The credential and notification endpoints (OpenID4VCI 1.0 §8, §11).'],
  ['Metadata', 'Public issuer and authorization server metadata, and this document.'],
  ['Offers', 'Credential offers.'],
  [
    'Credential configurations',
    'Credential configurations, one collection per format (`/v2/credentials/{format}/configurations`), all with the same operations; `expiresIn` counts a year as 365 days and a month as 30.',
  ],
  ['Issuer display', 'How wallets name and show the issuer: the `display` of the credential issuer metadata, per locale.'],
  [
    'Batch issuance',
    'How many credentials one credential request may ask for, each bound to its own key: `batch_credential_issuance` in the credential issuer metadata.',
  ],
  ['Issued credentials', 'Records of issued credentials.'],
  ['Status lists', 'Revocation and status lists, and their public documents.'],
  ['mDoc PKI', 'IACAs (the tenant’s mDoc root certificates) and the document signers they certify; creating an IACA needs its `country`.'],
  ['DIDs', 'The tenant’s DIDs and their public did:web documents.'],
  ['Users', 'Users and their persisted claims.'],
  ['Authentication providers', 'The OpenID Connect provider users sign in with.'],
  ['Claim sources', 'APIs Vellum asks for a user’s claims at issuance.'],
  ['OpenID settings', 'OpenID settings and the interaction hook.'],
  ['Wallet clients', 'OAuth clients of wallets.'],
  ['Webhooks', 'Webhooks, their deliveries and signing keys.'],
  [
    'Custom domain',
    'The tenant’s custom domain. It is verified by a DNS TXT record holding its `verificationToken`; changing the domain starts verification again.',
  ],
  ['Analytics', 'Analytic events and their settings.'],
  ['Admin clients', 'The tenant’s admin clients.'],
  ['Operations', 'Health and readiness checks, where the host serves them (the reference server does).'],
].map(([name, description]) => ({ name: name as string, description: description as string }));

/**
 * Registers @fastify/swagger on the plugin's instance: call it before the first route, so that
 * every route the plugin adds (and only those) is in the document.
 */
export async function addOpenApi(app: FastifyInstance, hostPaths: HostPaths = {}): Promise<void> {
  const prefix = app.prefix;
  await app.register(swagger, {
    mode: 'dynamic',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vellum',
        version: '1',
        description: [
          'Vellum’s HTTP API: the admin API of each tenant, the wallet-facing OpenID4VCI endpoints and the public documents. A tenant is chosen by the Host the request is sent to: its own subdomain, its verified custom domain, or the server’s public URL in single-tenant mode. The paths below are the same on every tenant’s host, and an admin token is taken only on the tenant that issued it.',
          'Some paths overlap in shape, such as `/v2/credentials/sd-jwt/{id}/revocation-status` and `/v2/credentials/sd-jwt/status-lists/{listId}`: a literal segment always wins over a parameter, so `configurations`, `status-lists`, `revocation-lists`, `pre-authorized` and `authentication-providers` are never read as an id.',
        ].join('\n\n'),
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        contact: { name: 'Vellum maintainers' },
      },
      // Relative: the document describes the host it is served from, whichever tenant’s that is.
      servers: [{ url: '/', description: 'The host this document is served from; each tenant has its own.' }],
      tags: TAGS,
      // Copies: @fastify/swagger's resolver writes into the schemas it is given (a `title`).
      components: {
        securitySchemes,
        schemas: { ErrorBody: { ...plain(ErrorBodySchema), title: 'ErrorBody' }, OAuthErrorBody: { ...plain(OAuthErrorBodySchema), title: 'OAuthErrorBody' } },
      },
    },
    // TypeBox writes JSON Schema 2020-12, which OpenAPI 3.1 takes as it is: keep `const`.
    convertConstToEnum: false,
    transform: ({ route, url }) => ({ schema: documentRoute(route, prefix), url }),
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const openapi = document.openapiObject as Parameters<typeof writeQueryObjects>[0];
      writeQueryObjects(openapi);
      openapi.paths = { ...(hostPaths as typeof openapi.paths), ...openapi.paths };
      // A copy: the validating schemas keep their messages, the document shows only OpenAPI's keywords.
      return withoutValidationKeywords(openapi) as typeof document.openapiObject;
    },
  });
}

/** A CSP that lets the reference page run its own script and nothing from elsewhere. */
function pageSecurityPolicy(html: string): string {
  // Inline scripts (the page's configuration and start-up) are allowed by their hash only.
  const hashes = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64')}'`,
  );
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    // The bundle injects its styles at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * `GET /openapi.json` and the API reference at `/docs` (Scalar, its script served from `/docs/js/`,
 * nothing from a CDN). Register it inside the plugin, beside the routes it documents.
 */
export const apiReferenceRoutes: FastifyPluginAsync = async (app) => {
  let json: string | undefined;
  const schema = {
    summary: 'This OpenAPI document',
    description: 'The same document on every host, served without a token, whether or not the host serves a tenant.',
    tags: ['Metadata'],
    documentOnly: {
      responses: {
        200: { description: 'The OpenAPI 3.1 document.', content: { 'application/json': Type.Object({}, { additionalProperties: true }) } },
        431: HEADERS_TOO_LARGE,
      },
    },
  };
  app.get('/openapi.json', { logLevel: 'warn', schema }, async (_request, reply) => {
    // The routes are fixed once the app is ready: the document is rendered once.
    json ??= JSON.stringify(app.swagger());
    return reply.header('access-control-allow-origin', '*').header('cache-control', 'no-cache').type('application/json; charset=utf-8').send(json);
  });

  // Scalar builds URLs from the Host header, and throws on one it cannot parse (an empty Host, say):
  // such a request is refused here with the error body, never a 500.
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith(`${app.prefix}/docs`)) return;
    // The same base Scalar builds (its handler: protocol, then hostname).
    if (request.hostname === '' || !URL.canParse(request.url, `${request.protocol}://${request.hostname}`)) {
      throw new DomainError('BadRequest', 'The request needs a Host header that names a host');
    }
  });

  // The page is a document to render, unlike every other answer: it gets a policy of its own.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (typeof payload === 'string' && String(reply.getHeader('content-type')).startsWith('text/html')) {
      reply.header('content-security-policy', pageSecurityPolicy(payload));
      reply.header('x-frame-options', 'DENY');
    }
    done(null, payload);
  });
  await app.register(apiReference, {
    routePrefix: '/docs',
    logLevel: 'warn',
    configuration: {
      // Relative to `/docs/`, so that it holds under a prefix too.
      url: '../openapi.json',
      pageTitle: 'Vellum API reference',
      withDefaultFonts: false,
      // Nothing that calls out to Scalar's services: no telemetry, AI agent, MCP or developer tools.
      hideClientButton: true,
      telemetry: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
    },
  });
};
