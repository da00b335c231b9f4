// A real OpenID Connect provider for tests (panva's oidc-provider) served over HTTPS on loopback,
// with registered clients and accounts the test gives, and a scripted browser that signs a user in
// through the provider's own redirects, cookies and interaction pages.
import { generateKeyPairSync, randomBytes, randomUUID, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import Provider, { type Adapter, type AdapterPayload, type InteractionResults } from 'oidc-provider';

/** A client registered at the provider. */
export interface OidcProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /**
   * The client's registered `token_endpoint_auth_method` (default `client_secret_basic`). oidc-provider
   * takes either secret method from a client registered with one of them, so tests that care which
   * one a client used read `tokenRequests`.
   */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

export interface OidcProviderOptions {
  /** TLS certificate and key for `localhost` (see `localhostCertificate`); the scripted browser trusts `certPem`. */
  certPem: string;
  keyPem: string;
  clients: OidcProviderClient[];
  /**
   * Claims of accounts, by account id (the ID token's `sub`). The provider releases the claims the
   * requested scopes cover (see `scopes`), in the ID token as well as at userinfo. Any other
   * account id signs in too, with no claims but `sub`.
   */
  accounts: Record<string, Record<string, unknown>>;
  /** Claims each scope releases, added to the standard `profile`, `email`, `address` and `phone`. */
  scopes?: Record<string, string[]>;
}

export interface OidcSignInOptions {
  /**
   * The token endpoint answers this sign-in's code with an ID token signed by a key the provider
   * does not publish, under the `kid` of the one it does (found by the request's `nonce`): a forged
   * token whose signature does not verify against the provider's JWKS.
   */
  badIdToken?: boolean;
}

export interface OidcTestProvider {
  /** `https://localhost:<port>`: the issuer, and the URL to run discovery on. */
  issuer: string;
  /**
   * Plays a browser at `authorizationUrl`: follows the provider's redirects with its cookies, signs in
   * as `accountId` and grants what is asked on the interaction pages. Returns the URL the provider
   * finally sends the browser to (the client's redirect URI with `code` and `state`, or `error`).
   * Throws when the provider answers with a page instead (an authorization request it will not
   * redirect back, such as an unknown client or redirect URI).
   */
  signIn(authorizationUrl: string, accountId: string, options?: OidcSignInOptions): Promise<string>;
  /** Each successful token request, in order: the client and how it sent its secret. */
  tokenRequests: Array<{ clientId: string; authentication: 'client_secret_basic' | 'client_secret_post' }>;
  /** Plays a user who declines on the sign-in page: the provider sends the browser back with `error=access_denied`. */
  deny(authorizationUrl: string): Promise<string>;
  close(): Promise<void>;
}

const STANDARD_SCOPES: Record<string, string[]> = {
  openid: ['sub'],
  profile: [
    'name',
    'given_name',
    'family_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'picture',
    'birthdate',
    'gender',
    'locale',
    'zoneinfo',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** The provider's storage: a plain map per model, so each test provider keeps to itself (and the quick-start adapter's warning stays quiet). */
function memoryAdapterFactory(): (name: string) => Adapter {
  const rows = new Map<string, { payload: AdapterPayload; expiresAt?: number }>();
  return (name) => {
    const key = (id: string) => `${name}:${id}`;
    const live = (k: string) => {
      const row = rows.get(k);
      if (row?.expiresAt !== undefined && row.expiresAt <= Date.now()) rows.delete(k);
      return rows.get(k)?.payload;
    };
    const findBy = (field: 'uid' | 'userCode', value: string) => {
      for (const [k, row] of rows) if (k.startsWith(`${name}:`) && row.payload[field] === value) return live(k);
      return undefined;
    };
    return {
      async upsert(id, payload, expiresIn) {
        rows.set(key(id), { payload, ...(expiresIn ? { expiresAt: Date.now() + expiresIn * 1000 } : {}) });
      },
      async find(id) {
        return live(key(id));
      },
      async findByUid(uid) {
        return findBy('uid', uid);
      },
      async findByUserCode(userCode) {
        return findBy('userCode', userCode);
      },
      async consume(id) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        rows.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const [k, row] of rows) if (row.payload.grantId === grantId) rows.delete(k);
      },
    };
  };
}

const rsaKey = (): KeyObject => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

/** Replaces the token response's ID token, when its nonce is one of `nonces`, with the same header and claims signed by `key`. */
function forgeIdToken(body: string, nonces: Set<string>, key: KeyObject): string | undefined {
  let parsed: { id_token?: unknown };
  try {
    parsed = JSON.parse(body) as { id_token?: unknown };
  } catch {
    return undefined;
  }
  if (typeof parsed.id_token !== 'string') return undefined;
  const [header = '', payload = ''] = parsed.id_token.split('.');
  let nonce: unknown;
  try {
    ({ nonce } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { nonce?: unknown });
  } catch {
    return undefined;
  }
  if (typeof nonce !== 'string' || !nonces.delete(nonce)) return undefined;
  // RS256: RSASSA-PKCS1-v1_5 with SHA-256, as the provider signs, but with a key it never published.
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), key).toString('base64url');
  return JSON.stringify({ ...parsed, id_token: `${header}.${payload}.${signature}` });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the provider on 127.0.0.1 over HTTPS; its issuer is `https://localhost:<port>`. */
export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcTestProvider> {
  const signingKey = { ...rsaKey().export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' } satisfies JsonWebKey;
  const forger = rsaKey();
  /** Nonces of sign-ins whose ID token is to be forged. */
  const forgeFor = new Set<string>();
  const scopes = { ...STANDARD_SCOPES, ...options.scopes };
  let provider: Provider | undefined;
  let handle: ReturnType<Provider['callback']> | undefined;

  async function interaction(req: IncomingMessage, res: ServerResponse, current: Provider): Promise<void> {
    const details = await current.interactionDetails(req, res);
    if (req.method === 'GET') {
      // The page a user would see; the scripted browser posts its form.
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<form method="post"><input name="account"><button>${details.prompt.name}</button></form>`);
      return;
    }
    const form = new URLSearchParams(await readBody(req));
    const accountId = form.get('account') ?? '';
    let result: InteractionResults;
    if (form.has('deny') || accountId === '') {
      result = { error: 'access_denied', error_description: 'The user declined to sign in' };
    } else if (details.prompt.name === 'login') {
      result = { login: { accountId } };
    } else if (details.prompt.name === 'consent') {
      const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
      const grant = details.grantId
        ? await current.Grant.find(details.grantId)
        : new current.Grant({ accountId: details.session?.accountId ?? '', clientId: String(details.params.client_id) });
      if (!grant) throw new Error('the interaction names a grant the provider does not hold');
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [resource, wanted] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, wanted.join(' '));
      result = { consent: { grantId: await grant.save() } };
    } else {
      result = { error: 'access_denied', error_description: `The test provider does not handle the ${details.prompt.name} prompt` };
    }
    await current.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }

  const server: Server = createServer({ cert: options.certPem, key: options.keyPem }, (req, res) => {
    const current = provider;
    if (!current || !handle) return void res.writeHead(503).end();
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    if (path.startsWith('/interaction/')) {
      interaction(req, res, current).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`interaction failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      return;
    }
    if (path === '/token' && forgeFor.size > 0) {
      // Koa sends a JSON body with one `end`, before which the headers are still open.
      const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
      res.end = ((chunk?: unknown) => {
        const forged = typeof chunk === 'string' || Buffer.isBuffer(chunk) ? forgeIdToken(chunk.toString(), forgeFor, forger) : undefined;
        if (forged === undefined) return end(chunk);
        if (!res.headersSent) res.setHeader('content-length', Buffer.byteLength(forged));
        return end(forged);
      }) as typeof res.end;
    }
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://localhost:${(server.address() as AddressInfo).port}`;

  provider = new Provider(issuer, {
    adapter: memoryAdapterFactory(),
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? 'client_secret_basic',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: [signingKey as Record<string, unknown>] } as never,
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: scopes,
    // Many providers put the scopes' claims in the ID token; the flow reads them from there.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // Given, so the provider does not note each default; ID tokens live an hour, as the defaults have it.
    ttl: { AuthorizationCode: 60, AccessToken: 3600, Grant: 3600, IdToken: 3600, Interaction: 600, Session: 3600 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, i) => `/interaction/${i.uid}` },
    async findAccount(_ctx, sub) {
      const claims = Object.hasOwn(options.accounts, sub) ? options.accounts[sub] : {};
      return { accountId: sub, claims: () => ({ ...claims, sub }) };
    },
  });
  handle = provider.callback();
  const tokenRequests: OidcTestProvider['tokenRequests'] = [];
  provider.on('grant.success', (ctx) => {
    const basic = /^basic /i.test(ctx.headers.authorization ?? '');
    tokenRequests.push({ clientId: ctx.oidc.client?.clientId ?? '', authentication: basic ? 'client_secret_basic' : 'client_secret_post' });
  });

  /** The scripted browser: from the authorization URL to wherever the provider sends it back, answering its pages with `form`. */
  async function play(authorizationUrl: string, form: Record<string, string>): Promise<string> {
    const cookies = new Map<string, string>();
    let next: { method: 'GET' | 'POST'; url: URL; form?: string } = { method: 'GET', url: new URL(authorizationUrl) };
    for (let hop = 0; hop < 20; hop += 1) {
      const answer = await browse(next, cookies, options.certPem);
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && typeof location === 'string') {
        const target = new URL(location, next.url);
        // Leaving the provider: this is where it sends the browser back to the client.
        if (target.origin !== issuer) return target.href;
        next = { method: 'GET', url: target };
        continue;
      }
      if (answer.status === 200 && next.method === 'GET' && next.url.pathname.startsWith('/interaction/')) {
        next = { method: 'POST', url: next.url, form: new URLSearchParams(form).toString() };
        continue;
      }
      throw new Error(`the test provider answered ${answer.status} at ${next.url.pathname}: ${answer.body.slice(0, 300)}`);
    }
    throw new Error('the test provider redirected too many times');
  }

  return {
    issuer,
    tokenRequests,
    async signIn(authorizationUrl, accountId, signInOptions = {}) {
      if (signInOptions.badIdToken) {
        const nonce = new URL(authorizationUrl).searchParams.get('nonce');
        if (!nonce) throw new Error('badIdToken needs a nonce in the authorization request: the forged ID token is found by it');
        forgeFor.add(nonce);
      }
      return play(authorizationUrl, { account: accountId });
    },
    async deny(authorizationUrl) {
      return play(authorizationUrl, { deny: 'yes' });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One request of the scripted browser: sends the cookies it holds and keeps the ones it is given. */
function browse(
  step: { method: 'GET' | 'POST'; url: URL; form?: string },
  cookies: Map<string, string>,
  ca: string,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'text/html' };
    if (cookies.size) headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (step.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = request(step.url, { method: step.method, headers, ca, agent: false }, (res) => {
      for (const line of res.headers['set-cookie'] ?? []) {
        const [pair = '', ...attributes] = line.split(';');
        const at = pair.indexOf('=');
        const name = pair.slice(0, at).trim();
        const value = pair.slice(at + 1).trim();
        const expires = attributes.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('expires='));
        const expired = expires !== undefined && Date.parse(expires.slice('expires='.length)) <= Date.now();
        if (value === '' || expired) cookies.delete(name);
        else cookies.set(name, value);
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(step.form);
  });
}
