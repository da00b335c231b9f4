// `GET /` on a tenant's host: a short page that says where to go next (the API reference, the
// issuer metadata, the README), so that the URL `npm start` prints leads somewhere in a browser.
// The links are relative: they hold on whatever origin the page was reached.

/** What the landing page shows: the tenant's display name and the origin its metadata names. */
export interface LandingInput {
  tenantName: string;
  credentialIssuer: string;
}

/** The JSON form (`Accept: application/json`). */
export interface Landing {
  tenant: string;
  credentialIssuer: string;
  links: { docs: string; openapi: string; issuerMetadata: string; authorizationServerMetadata: string; adminToken: string };
  readme: string;
}

const README = 'README.md at the root of the Vellum repository: running the server, then calling the API with curl';

/** The landing document, as data. */
export function landing({ tenantName, credentialIssuer }: LandingInput): Landing {
  return {
    tenant: tenantName,
    credentialIssuer,
    links: {
      docs: '/docs',
      openapi: '/openapi.json',
      issuerMetadata: '/.well-known/openid-credential-issuer',
      authorizationServerMetadata: '/.well-known/oauth-authorization-server',
      adminToken: '/oauth/token',
    },
    readme: README,
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** The HTML form: no script, no style, nothing fetched (the default security policy, `default-src 'none'`, holds). */
export function landingHtml(input: LandingInput): string {
  const { tenant, credentialIssuer, links } = landing(input);
  const name = escapeHtml(tenant);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${name} · Vellum</title></head>
<body>
<h1>${name}</h1>
<p>A Vellum credential issuer (OpenID4VCI). Its identifier: <code>${escapeHtml(credentialIssuer)}</code>.</p>
<ul>
<li><a href="${links.docs}">API reference</a> (<a href="${links.openapi}">OpenAPI document</a>)</li>
<li><a href="${links.issuerMetadata}">Issuer metadata</a>, as wallets read it</li>
<li><a href="${links.authorizationServerMetadata}">Authorization server metadata</a></li>
<li>Admin access tokens: <code>POST ${links.adminToken}</code> with the client id and secret the first start printed</li>
</ul>
<p>Next steps: ${escapeHtml(README)}.</p>
</body>
</html>
`;
}

/** Whether an Accept header asks for JSON rather than a page: it names application/json and not text/html. */
export function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.toLowerCase();
  return types.includes('application/json') && !types.includes('text/html');
}
