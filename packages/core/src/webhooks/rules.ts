import { Problems } from '../shared/body-problems.ts';
import { normaliseOutboundUrl } from '../shared/outbound-url.ts';

/** docs/decisions.md "Webhooks": the events a webhook may subscribe to. */
/** The three event types of docs/decisions.md "Webhooks", and `CredentialStatusUpdated` (a Vellum addition: revocation, suspension, reinstatement). */
export const WEBHOOK_EVENTS = ['OpenIdCredentialIssued', 'OpenIdCredentialIssuedSummary', 'OidcIssuerCredentialIssued', 'CredentialStatusUpdated'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

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

/** Checks a webhook create or update body (docs/decisions.md "Webhooks"), reporting every problem. */
export function checkWebhookInput(input: WebhookInput): { events: WebhookEvent[]; url: string; disabled: boolean } {
  const p = new Problems();
  const events = input.events;
  if (!Array.isArray(events) || events.length === 0) p.add('events', `A non-empty list of: ${WEBHOOK_EVENTS.join(', ')}`, events);
  else {
    events.forEach((e, i) => {
      if (!(WEBHOOK_EVENTS as readonly unknown[]).includes(e)) p.add(`events.${i}`, `Unknown event; one of ${WEBHOOK_EVENTS.join(', ')}`, e);
    });
  }
  let url = '';
  if (typeof input.url !== 'string') p.add('url', 'Required: the https address of the receiver', input.url);
  else {
    const checked = normaliseWebhookUrl(input.url);
    if ('problem' in checked) p.add('url', checked.problem, input.url);
    else url = checked.url;
  }
  if (input.disabled !== undefined && typeof input.disabled !== 'boolean') p.add('disabled', 'true or false', input.disabled);
  p.throwIfAny();
  return { events: [...new Set(events as WebhookEvent[])], url, disabled: input.disabled === true };
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
