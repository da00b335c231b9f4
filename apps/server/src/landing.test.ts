import { describe, expect, it } from 'vitest';
import { landing, landingHtml, wantsJson } from './landing.ts';

describe('the landing page on a tenant’s host (issue 28)', () => {
  const input = { tenantName: 'Acme', credentialIssuer: 'http://localhost:3000' };

  it('links the API reference, the issuer metadata and names the README, with relative links', () => {
    const html = landingHtml(input);
    for (const href of ['/docs', '/openapi.json', '/.well-known/openid-credential-issuer', '/.well-known/oauth-authorization-server']) {
      expect(html).toContain(`href="${href}"`);
    }
    expect(html).toContain('README.md');
    expect(landing(input).links).toMatchObject({ docs: '/docs', issuerMetadata: '/.well-known/openid-credential-issuer' });
  });

  it('escapes the tenant’s name, which its admins choose', () => {
    const html = landingHtml({ ...input, tenantName: '<script>alert(1)</script> & "Co"' });
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;');
  });

  it('has nothing the default security policy (default-src none) would block: no script, style or image', () => {
    expect(landingHtml(input)).not.toMatch(/<script|<style|<img|<link|style=/);
  });

  it.each([
    ['application/json', true],
    ['application/json, text/plain, */*', true],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['*/*', false],
    [undefined, false],
    ['text/html, application/json', false],
  ])('answers JSON for Accept %s: %s', (accept, json) => {
    expect(wantsJson(accept)).toBe(json);
  });
});
