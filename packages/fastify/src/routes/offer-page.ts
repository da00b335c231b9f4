// The offer page (docs/offer-page.md): the human face of a by-reference offer. Whoever holds the
// offer's reference may already fetch the offer itself, so the page asks for nothing more.
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isDomainError } from '@vellum/core';
import type { FastifyReply } from 'fastify';
import QRCode from 'qrcode';
import { requestContext } from '../context.ts';
import type { VellumServices } from '../services.ts';

/** Where the page of the offer served at `GET /v1/openid/offers/{id}` lives. */
export const OFFER_PAGE_PATH = '/v1/openid/offers/:id/page';

export type OfferPageView = Awaited<ReturnType<VellumServices['offers']['offerPage']>>;

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = [
  ':root{color-scheme:light;font-family:system-ui,sans-serif;line-height:1.5;color:#1b1b1f;background:#f4f4f6}',
  'body{margin:0;padding:1.5rem 1rem}',
  'main{max-width:26rem;margin:0 auto;background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}',
  'h1{font-size:1.375rem;margin:0 0 .25rem}',
  'p,ul{margin:.5rem 0}',
  '.qr{display:block;width:18rem;height:18rem;max-width:100%;margin:1rem auto}',
  '.qr svg{display:block;width:100%;height:100%}',
  '.open{display:block;text-align:center;background:#1f4bd8;color:#fff;font-weight:600;text-decoration:none;padding:.75rem 1rem;border-radius:8px;margin:1rem 0}',
  '.tx{border-left:4px solid #1f4bd8;background:#eef2fd;padding:.5rem .75rem;border-radius:4px}',
  '.muted{color:#5a5a66;font-size:.875rem}',
].join('\n');

/**
 * Nothing loads from anywhere: no scripts, no fetches, no images but the inline SVG, and only the
 * one stylesheet above (allowed by its hash, so injected markup could not style the page either).
 */
export const OFFER_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A whole page around `body`, with the one stylesheet the CSP allows (the presentation page uses it too). */
export function htmlDocument(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex, nofollow">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    `<body><main>${body}</main></body>`,
    '</html>',
    '',
  ].join('\n');
}

/** "a code of 6 digits": what the wallet will ask the user to type. */
function txCodeShape(tx: NonNullable<OfferPageView['txCode']>): string {
  const numeric = tx.input_mode === 'numeric';
  if (tx.length === undefined) return numeric ? 'a code made of digits' : 'a code of letters and digits';
  return numeric ? `a code of ${tx.length} digits` : `a code of ${tx.length} letters and digits`;
}

/** `2026-05-01 12:05 UTC`: the server does not know the reader's time zone. */
function utcMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The QR code of `uri` as inline SVG. The QR library's SVG holds only paths drawn from the URI, never the URI's text. */
export function qrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}

/** The page of an open offer: QR code, same-device link, transaction code hint. */
export async function renderOfferPage(view: OfferPageView): Promise<string> {
  const qr = await qrSvg(view.uri);
  const issuer = escapeHtml(view.issuerName);
  const parts = [`<h1>${issuer}</h1>`];
  if (view.credentials.length > 0) {
    parts.push(`<p>offers you ${view.credentials.length === 1 ? 'a credential' : 'credentials'}:</p>`);
    parts.push(`<ul class="credentials">${view.credentials.map((c) => `<li>${escapeHtml(c)}</li>`).join('')}</ul>`);
  } else {
    parts.push('<p>offers you a credential.</p>');
  }
  parts.push(`<div class="qr" role="img" aria-label="QR code of the credential offer">${qr}</div>`);
  parts.push('<p>Scan this code with your wallet app.</p>');
  parts.push(`<a class="open" id="open-in-wallet" href="${escapeHtml(view.uri)}">Open in wallet</a>`);
  parts.push('<p class="muted">Use this button instead when your wallet app is on this device.</p>');
  if (view.txCode) {
    const description = view.txCode.description ? `<p class="tx-description">${escapeHtml(view.txCode.description)}</p>` : '';
    parts.push(
      `<div class="tx" id="tx-code"><p>Your wallet will ask for a transaction code: ${txCodeShape(view.txCode)}.</p>${description}` +
        '<p class="muted">The code reaches you separately: it is never shown on this page.</p></div>',
    );
  }
  parts.push(
    `<p class="muted">The offer can be accepted once and expires at <time datetime="${escapeHtml(view.expiresAt)}">${escapeHtml(utcMinute(view.expiresAt))}</time>.</p>`,
  );
  return htmlDocument(`Credential offer from ${view.issuerName}`, parts.join('\n'));
}

/** The page for every offer that cannot be shown, one page for all cases so none can be told apart. */
export function renderOfferNotFoundPage(): string {
  return htmlDocument(
    'Offer not available',
    [
      '<h1>This offer is not available</h1>',
      '<p>The link may be mistyped, or the offer was already accepted, has expired or was withdrawn.</p>',
      '<p>Ask the issuer for a new offer.</p>',
    ].join('\n'),
  );
}

/** Sends a page with the offer page's headers (its CSP, no referrer, no framing, no caching). */
export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  // Set here rather than left to the plugin's policy: the page's address is a capability, so it
  // must never leak through a Referer, and the page must be safe even when the host turns the
  // policy's headers off.
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', OFFER_PAGE_CSP)
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('x-robots-tag', 'noindex, nofollow')
    .header('cache-control', 'no-store')
    .send(html);
}

/** `GET /v1/openid/offers/{id}/page`: public, like the by-reference offer it shows. Register it in the tenant scope. */
export const offerPageRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  // Logged at warn only, like the offer itself: the URL carries the offer's reference.
  const html = (description: string) => ({ description, content: { 'text/html': Type.String() } });
  const schema = {
    params: Type.Object({ id: Type.String() }),
    tags: ['Offers'],
    summary: 'The page of a by-reference offer, for a person: QR code, Open in wallet link, transaction code hint (HTML)',
    documentOnly: { responses: { 200: html('The offer page.'), 404: html('No such open offer (an HTML page).') } },
  };
  app.get(OFFER_PAGE_PATH, { logLevel: 'warn', schema }, async (request, reply) => {
    let view: OfferPageView;
    try {
      view = await services.offers.offerPage(requestContext(request), request.params.id);
    } catch (error) {
      if (isDomainError(error) && error.code === 'NotFound') return sendPage(reply, 404, renderOfferNotFoundPage());
      throw error;
    }
    return sendPage(reply, 200, await renderOfferPage(view));
  });
};
