import type { Static } from '@sinclair/typebox';
import { Problems } from '../shared/body-problems.ts';
import { normaliseOutboundUrl } from '../shared/outbound-url.ts';
import { WebhookBody, type WebhookEvent } from './schema.ts';

export { WEBHOOK_EVENTS, type WebhookEvent } from './schema.ts';

/**
 * Checks and normalises a receiver URL by the rules of docs/decisions.md "Webhooks": a valid https URL, a
 * host name rather than an IP address, no query or fragment (the outbound rules every address
 * Vellum calls follows, shared/outbound-url.ts). Returns the URL or the problem.
 */
export const normaliseWebhookUrl: (value: string) => { url: string } | { problem: string } = normaliseOutboundUrl;

export interface WebhookInput {
  events?: unknown;
  url?: unknown;
  disabled?: unknown;
}

/** Checks a webhook create or update body (docs/decisions.md "Webhooks"): its shape, then the URL rules, reporting every problem. */
export function checkWebhookInput(input: WebhookInput): { events: WebhookEvent[]; url: string; disabled: boolean } {
  const p = new Problems();
  p.checkShape(WebhookBody, input);
  let url = '';
  if (!p.has('url')) {
    const checked = normaliseWebhookUrl(input.url as string);
    if ('problem' in checked) p.add('url', checked.problem, input.url);
    else url = checked.url;
  }
  p.throwIfAny(WebhookBody);
  const body = input as Static<typeof WebhookBody>;
  return { events: [...new Set(body.events)], url, disabled: body.disabled === true };
}

/** docs/decisions.md "Webhooks": a failed delivery is tried again three times. */
export const WEBHOOK_RETRIES = 3;

/**
 * When the next attempt is due after `failedAttempts` failures: exponential backoff from `baseMs`
 * with full jitter in its upper half, so receivers that failed together do not retry together.
 * Undefined once the retries are spent.
 */
export function nextAttemptDelay(failedAttempts: number, baseMs: number, random: () => number): number | undefined {
  if (failedAttempts < 1 || failedAttempts > WEBHOOK_RETRIES) return undefined;
  const ceiling = baseMs * 2 ** (failedAttempts - 1);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
