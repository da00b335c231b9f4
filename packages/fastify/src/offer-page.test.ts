import { createHash } from 'node:crypto';
import { PRE_AUTHORIZED_CODE_GRANT } from '@vellum/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Method, useTestApp } from '../test/app.ts';
import { vellumPlugin } from './plugin.ts';
import { escapeHtml, OFFER_PAGE_CSP, OFFER_PAGE_PATH } from './routes/offer-page.ts';
import type { VellumServices } from './services.ts';

/** The plugin over `services`, which serves the offer page. */
async function appWithPage(services: VellumServices, prefix: string, securityHeaders = true): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(vellumPlugin, { services, prefix, securityHeaders });
  // The plugin registers the page; a build without it fails here rather than on every assertion.
  if (!app.hasRoute({ method: 'GET', url: `${prefix}${OFFER_PAGE_PATH}` })) throw new Error('vellumPlugin does not register the offer page');
  await app.ready();
  return app;
}

const mdlBody = {
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 365 },
  display: [{ name: 'Driving licence', locale: 'en' }],
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' } } },
};

/** The path of an offer's page: its by-reference URL plus `/page`. */
const pagePathOf = (uri: string) => `${new URL(new URL(uri).searchParams.get('credential_offer_uri') as string).pathname}/page`;

/** The text of an HTML fragment, without tags and with the entities this page uses decoded. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/\s+/g, ' ');

describe.each(['standalone', 'prefixed'] as const)('GET /v1/openid/offers/{id}/page (docs/offer-page.md) (%s)', (mount) => {
  const t = useTestApp(mount);
  let app: FastifyInstance;
  let tenants = 0;

  /** A tenant named `name` with an mDoc configuration, an admin caller, and an anonymous browser. */
  async function issuer(name = 'Acme Licensing', configuration: Record<string, unknown> = mdlBody) {
    const subdomain = `page${(tenants += 1)}`;
    // Straight into the store: the test app's createTenant takes no name.
    await t.store.tenants.insert({ id: crypto.randomUUID(), subdomain, region: 'eu01', name, loggingLevel: 1, createdAt: new Date().toISOString() });
    const host = t.hostOf(subdomain);
    const token = await t.token(subdomain);
    const call = (method: Method, path: string, payload?: object) =>
      app.inject({ method, url: `${t.prefix}${path}`, headers: { host, authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    const browse = (path: string) => app.inject({ method: 'GET', url: path, headers: { host } });
    const mdoc = (await call('POST', '/v2/credentials/mobile/configurations', configuration)).json() as { id: string };
    const offer = async (body: Record<string, unknown> = {}) => {
      const res = await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], byReference: true, ...body });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { id: string; uri: string; expiresAt: string; transactionCode?: string };
    };
    return { host, call, browse, mdoc, offer };
  }

  beforeAll(async () => {
    app = await appWithPage(t.services, t.prefix);
  });
  afterAll(async () => app.close());

  it('shows the tenant’s name, the credential, the offer URI as QR code and link, and the transaction code hint without the code', async () => {
    const { offer, browse } = await issuer();
    const created = await offer({ transactionCodeConfiguration: { inputMode: 'numeric', length: 6, description: 'Sent to you by SMS' } });
    const page = await browse(pagePathOf(created.uri));
    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toBe(OFFER_PAGE_CSP);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    const html = page.body;
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>Credential offer from Acme Licensing</title>');
    expect(html).toContain('<h1>Acme Licensing</h1>');
    expect(html).toContain('<li>Driving licence</li>');
    expect(html).toContain(`<a class="open" id="open-in-wallet" href="${escapeHtml(created.uri)}">Open in wallet</a>`);
    expect(html).toMatch(/<div class="qr" role="img" aria-label="[^"]+"><svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 \d+ \d+"/);
    const hint = textOf(/<div class="tx" id="tx-code">.*?<\/div>/s.exec(html)?.[0] ?? '');
    expect(hint).toContain('Your wallet will ask for a transaction code: a code of 6 digits.');
    expect(hint).toContain('Sent to you by SMS');
    expect(html).not.toContain(created.transactionCode as string);
    expect(html).toContain(`<time datetime="${created.expiresAt}">`);
  });

  it('loads nothing from elsewhere: no scripts, links or sources, and the one stylesheet matches the hash the CSP allows', async () => {
    const { offer, browse } = await issuer();
    const html = (await browse(pagePathOf((await offer()).uri))).body;
    expect(html).not.toMatch(/<script|<link|<iframe|<img|\ssrc=|\sstyle=|url\(/i);
    const styles = [...html.matchAll(/<style>(.*?)<\/style>/gs)].map((m) => m[1] as string);
    expect(styles).toHaveLength(1);
    const hash = createHash('sha256')
      .update(styles[0] as string)
      .digest('base64');
    expect(OFFER_PAGE_CSP.split('; ')).toEqual([
      "default-src 'none'",
      `style-src 'sha256-${hash}'`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]);
    expect(html).not.toContain('id="tx-code"');
  });

  it('escapes the tenant’s name, the credential’s label and the code description', async () => {
    const evil = '<script>alert("x")</script> & \'co\'';
    const { offer, browse } = await issuer(evil, { ...mdlBody, display: [{ name: '<img src=x onerror=alert(1)>', locale: 'en' }] });
    const created = await offer({ transactionCodeConfiguration: { inputMode: 'text', length: 8, description: '</p><a href="https://evil.example">' } });
    const html = (await browse(pagePathOf(created.uri))).body;
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('evil.example">');
    expect(html).toContain(`<h1>${escapeHtml(evil)}</h1>`);
    expect(html).toContain('<h1>&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;co&#39;</h1>');
    expect(textOf(html)).toContain('<img src=x onerror=alert(1)>');
    expect(textOf(html)).toContain('a transaction code: a code of 8 letters and digits.');
    expect(textOf(html)).toContain('</p><a href="https://evil.example">');
  });

  it('shows Authorization Code offers by reference too, without a transaction code hint', async () => {
    const { call, mdoc, browse } = await issuer();
    const { uri } = (await call('POST', '/v1/openid/offers', { credentials: [mdoc.id], byReference: true })).json() as { uri: string };
    const page = await browse(pagePathOf(uri));
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain(`href="${escapeHtml(uri)}"`);
    expect(page.body).not.toContain('transaction code');
  });

  it('answers one 404 page for unknown, malformed, by-value, used and deleted offers, and for another tenant’s', async () => {
    const { offer, browse, call, host } = await issuer();
    const other = await issuer('Other Tenant');
    const deleted = await offer();
    expect((await browse(pagePathOf(deleted.uri))).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/openid/offers/pre-authorized/${deleted.id}`)).statusCode).toBe(204);

    const used = await offer();
    const fetched = (await browse(new URL(new URL(used.uri).searchParams.get('credential_offer_uri') as string).pathname)).json();
    const code = fetched.grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'] as string;
    const redeemed = await app.inject({
      method: 'POST',
      url: `${t.prefix}/v1/oauth/token`,
      headers: { host },
      payload: { grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': code },
    });
    expect(redeemed.statusCode, redeemed.body).toBe(200);

    const byValue = await offer({ byReference: false });
    const byValueCode = JSON.parse(new URL(byValue.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT][
      'pre-authorized_code'
    ] as string;
    const elsewhere = await offer();

    const paths = [
      pagePathOf(deleted.uri),
      pagePathOf(used.uri),
      `${t.prefix}/v1/openid/offers/${byValueCode}/page`,
      `${t.prefix}/v1/openid/offers/${'A'.repeat(43)}/page`,
      `${t.prefix}/v1/openid/offers/%3Cscript%3E/page`,
    ];
    const pages = [...(await Promise.all(paths.map((p) => browse(p)))), await other.browse(pagePathOf(elsewhere.uri))];
    for (const page of pages) {
      expect(page.statusCode).toBe(404);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toBe(OFFER_PAGE_CSP);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).toContain('<h1>This offer is not available</h1>');
      expect(page.body).not.toContain('<script');
    }
    expect(new Set(pages.map((p) => p.body)).size).toBe(1);
  });

  it('keeps its own security headers when the host turns the plugin’s off', async () => {
    const bare = await appWithPage(t.services, t.prefix, false);
    try {
      const { offer, host } = await issuer();
      const created = await offer();
      const page = await bare.inject({ method: 'GET', url: pagePathOf(created.uri), headers: { host } });
      expect(page.statusCode).toBe(200);
      expect(page.headers).toMatchObject({
        'content-security-policy': OFFER_PAGE_CSP,
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
      });
      const api = await bare.inject({ method: 'GET', url: `${t.prefix}/v1/openid/offers/${'A'.repeat(43)}`, headers: { host } });
      expect(api.headers['content-security-policy']).toBeUndefined();
    } finally {
      await bare.close();
    }
  });
});
