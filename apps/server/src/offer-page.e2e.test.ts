// The offer page (docs/offer-page.md) in a real browser: the server runs as a child process, and
// headless Chromium (driven by playwright-core) loads the page as an end user would. The QR code is
// read back from a PNG screenshot with jsQR (decoded with pngjs), so "the page shows the offer"
// means a QR reader others wrote finds exactly the offer URI in what the browser drew.
import { existsSync } from 'node:fs';
import jsQR from 'jsqr';
import { type Browser, chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { freePort, http, type RunningServer, serverEnv } from '../test/process.ts';
import { activeIaca, adminAuthorization, startWithTenant } from '../test/tenant.ts';

const PLATFORM = 'vellum.test';
const HOST = `acme.eu01.${PLATFORM}`;
const CHROMIUM = '/usr/bin/chromium';
// Skipped only where Debian's chromium is not installed (CI installs it): there is no browser to drive.
const noChromium = !existsSync(CHROMIUM);

const backends: Array<[string, () => Backend, boolean]> = [
  ['SQLite', () => sqliteBackend({ masterKey: true }), false],
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['PostgreSQL', () => postgresBackend('vellum_e2e'), !pgAdminUrl],
];

/** The one browser API the test calls inside the page (this package compiles without the DOM library). */
interface BrowserWindow {
  getComputedStyle(element: unknown): { backgroundColor: string };
}

/** The text of the first QR code jsQR finds in a PNG image, or undefined. */
function readQr(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  // jsqr ships CommonJS whose module object is the function and also carries it as `default`.
  const decode = jsQR.default;
  return decode(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length), image.width, image.height)?.data;
}

describe.skipIf(noChromium)('the offer page in headless Chromium (docs/offer-page.md)', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // playwright gives every launch a fresh temporary profile (the user data dir).
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe.each(backends)('served by the real server on %s', (_name, makeBackend, skip) => {
    let backend: Backend;
    let server: RunningServer;
    let admin: Record<string, string>;
    let configurationId: string;

    const call = (method: string, path: string, body?: unknown) =>
      http(server.port, method, path, { host: HOST, headers: admin, ...(body === undefined ? {} : { body }) });

    /** A pre-authorized offer by reference, with a 6-digit transaction code. */
    async function offer() {
      const res = await call('POST', '/v1/openid/offers/pre-authorized', {
        credentials: [configurationId],
        claims: { familyName: 'Lovelace' },
        byReference: true,
        transactionCodeConfiguration: { inputMode: 'numeric', length: 6, description: 'We sent it to you by SMS' },
      });
      expect(res.status, res.text).toBe(200);
      const created = res.json() as { id: string; uri: string; transactionCode: string };
      const offerUrl = new URL(new URL(created.uri).searchParams.get('credential_offer_uri') as string);
      // The browser reaches the tenant's host over plain HTTP on the test port (see --host-resolver-rules).
      return { ...created, pageUrl: `http://${HOST}:${server.port}${offerUrl.pathname}/page` };
    }

    beforeAll(async () => {
      if (skip) return;
      backend = makeBackend();
      const env = serverEnv({ ...(await backend.env()), VELLUM_PORT: String(await freePort()), VELLUM_PLATFORM_DOMAIN: PLATFORM, VELLUM_DEFAULT_TENANT: '' });
      const started = await startWithTenant(env, 'Acme Licensing');
      server = started.server;
      admin = await adminAuthorization(server, HOST, started.creds);
      await activeIaca(call);
      const configuration = await call('POST', '/v2/credentials/mobile/configurations', {
        type: 'org.iso.18013.5.1.mDL',
        expiresIn: { days: 365 },
        display: [{ name: 'Driving licence', locale: 'en' }],
        claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
      });
      expect(configuration.status, configuration.text).toBe(201);
      configurationId = configuration.json().id;
    });

    afterAll(async () => {
      if (skip) return;
      await server?.stop();
      await backend?.cleanup();
    });

    it.skipIf(skip)('draws the offer URI as a QR code that jsQR reads back, with the link, the tenant’s name and the transaction code hint', async () => {
      const created = await offer();
      const context = await browser.newContext({ viewport: { width: 480, height: 1000 }, deviceScaleFactor: 1, javaScriptEnabled: false });
      try {
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
        });
        const requested: string[] = [];
        page.on('request', (r) => requested.push(r.url()));
        const answer = await page.goto(created.pageUrl);
        expect(answer?.status()).toBe(200);

        const shot = await page.screenshot({ type: 'png', fullPage: true });
        expect(readQr(shot)).toBe(created.uri);

        expect(await page.locator('#open-in-wallet').getAttribute('href')).toBe(created.uri);
        expect(await page.locator('#open-in-wallet').innerText()).toBe('Open in wallet');
        expect(await page.locator('h1').innerText()).toBe('Acme Licensing');
        expect(await page.title()).toBe('Credential offer from Acme Licensing');
        expect(await page.locator('ul.credentials li').allInnerTexts()).toEqual(['Driving licence']);
        const hint = await page.locator('#tx-code').innerText();
        expect(hint).toContain('Your wallet will ask for a transaction code: a code of 6 digits.');
        expect(hint).toContain('We sent it to you by SMS');
        expect(await page.locator('body').innerText()).not.toContain(created.transactionCode);

        // The stylesheet is applied, so the CSP's hash allows it; nothing else was fetched or refused.
        expect(await page.locator('#open-in-wallet').evaluate((a) => (globalThis as unknown as BrowserWindow).getComputedStyle(a).backgroundColor)).toBe(
          'rgb(31, 75, 216)',
        );
        expect(problems).toEqual([]);
        expect(requested).toEqual([created.pageUrl]);
      } finally {
        await context.close();
      }
    });

    it.skipIf(skip)('shows the not-available page with status 404 once the offer is deleted', async () => {
      const created = await offer();
      const context = await browser.newContext({ javaScriptEnabled: false });
      try {
        const page = await context.newPage();
        expect((await page.goto(created.pageUrl))?.status()).toBe(200);
        expect((await call('DELETE', `/v1/openid/offers/pre-authorized/${created.id}`)).status).toBe(204);
        const gone = await page.goto(created.pageUrl);
        expect(gone?.status()).toBe(404);
        expect(gone?.headers()['content-type']).toBe('text/html; charset=utf-8');
        expect(await page.locator('h1').innerText()).toBe('This offer is not available');
        expect(await page.locator('a').count()).toBe(0);
        expect(readQr(await page.screenshot({ type: 'png' }))).toBeUndefined();
      } finally {
        await context.close();
      }
    });
  });
});
