// Asking a claim source for a user's claims at issuance (docs/authentication.md). One deadline covers the whole
// call, the OAuth token request included; whatever goes wrong is a reason, never an exception, and
// the caller counts it as no claims.

import type { ClaimSubject } from '../configurations/claims.ts';
import type { Clock, HttpClient, OutboundResponse, SecretBox } from '../shared/ports.ts';
import { isPlainObject } from '../shared/body-problems.ts';
import { bytesToBase64Url } from '../shared/encoding.ts';
import { claimProblems } from '../users/rules.ts';
import type { ClaimSource } from './model.ts';
import { claimSourceSecretContext } from './service.ts';

/** docs/authentication.md: the whole call, token request included, ends within 3 s. */
export const CLAIM_SOURCE_TIMEOUT_MS = 3000;
/** The largest answer read from a claim source. */
export const CLAIM_SOURCE_MAX_BYTES = 1024 * 1024;
/** The largest token endpoint answer read. */
const TOKEN_MAX_BYTES = 64 * 1024;

export type ClaimSourceResult = { ok: true; claims: Record<string, unknown> } | { ok: false; reason: string };

export interface ClaimSourceClient {
  /** The claims the source answers for `subject`, or why there are none. Never throws. */
  fetchClaims(source: ClaimSource, subject: ClaimSubject): Promise<ClaimSourceResult>;
}

export interface ClaimSourceClientDeps {
  http: HttpClient;
  secrets: SecretBox;
  /** Measures the deadline (default: the system clock). */
  clock?: Clock;
  /** The deadline for one call, in ms (default CLAIM_SOURCE_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** The value at a dotted path of the subject; own properties only, so `claims.constructor` finds nothing. */
function lookup(subject: ClaimSubject, path: string): unknown {
  let node: unknown = subject;
  for (const part of path.split('.')) {
    if (!isPlainObject(node) || !Object.hasOwn(node, part)) return undefined;
    node = node[part];
  }
  return node;
}

/** Each parameter's value: mapped from the subject, else its default; parameters with neither are left out. */
function resolveParameters(source: ClaimSource, subject: ClaimSubject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(source.requestParameters)) {
    const mapped = spec.mapFrom === undefined ? undefined : lookup(subject, spec.mapFrom);
    const value = mapped === undefined || mapped === null ? spec.defaultValue : mapped;
    if (value !== undefined) Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const asQueryValue = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

/** Standard base64 (with padding) of UTF-8 text, as HTTP Basic authentication carries it. */
function base64(text: string): string {
  const url = bytesToBase64Url(new TextEncoder().encode(text)).replace(/-/g, '+').replace(/_/g, '/');
  return url + '='.repeat((4 - (url.length % 4)) % 4);
}

/** RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined. */
const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');

/** The body as JSON, or undefined when it is not JSON. */
function parseJson(body: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) };
  } catch {
    return undefined;
  }
}

/** Builds the caller issuance uses to ask claim sources for claims. */
export function createClaimSourceClient(deps: ClaimSourceClientDeps): ClaimSourceClient {
  const { http, secrets } = deps;
  const now = () => (deps.clock ? deps.clock.now().getTime() : Date.now());
  const timeoutMs = deps.timeoutMs ?? CLAIM_SOURCE_TIMEOUT_MS;

  const send = async (request: Parameters<HttpClient['fetch']>[0]): Promise<OutboundResponse> => {
    try {
      return await http.fetch(request);
    } catch {
      // The port never throws; an adapter that does still must not fail issuance.
      return { error: 'request failed' };
    }
  };

  async function accessToken(source: ClaimSource, deadline: number): Promise<{ token: string } | { reason: string }> {
    const a = source.authorization;
    if (a.type !== 'oauth-client-credentials') return { reason: 'not an OAuth source' };
    const secret = secrets.open(a.sealedClientSecret, claimSourceSecretContext(source.tenantId, source.id));
    if (secret === undefined) return { reason: 'The claim source client secret cannot be read' };
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (a.audience !== undefined) form.set('audience', a.audience);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (a.tokenEndpointAuthMethod === 'client_secret_post') {
      form.set('client_id', a.clientId);
      form.set('client_secret', secret);
    } else {
      headers.authorization = `Basic ${base64(`${formEncode(a.clientId)}:${formEncode(secret)}`)}`;
    }
    const left = deadline - now();
    if (left <= 0) return { reason: 'Token endpoint: timed out' };
    const answer = await send({
      method: 'POST',
      url: a.tokenEndpoint,
      headers,
      body: new TextEncoder().encode(form.toString()),
      timeoutMs: left,
      maxBytes: TOKEN_MAX_BYTES,
    });
    if ('error' in answer) return { reason: `Token endpoint: ${answer.error}` };
    if (answer.status < 200 || answer.status > 299) return { reason: `Token endpoint answered HTTP ${answer.status}` };
    const parsed = answer.body.length > TOKEN_MAX_BYTES ? undefined : parseJson(answer.body);
    const token = parsed && isPlainObject(parsed.value) ? parsed.value : undefined;
    if (!token || typeof token.access_token !== 'string' || token.access_token.length === 0) return { reason: 'Token endpoint gave no access token' };
    if (token.token_type !== undefined && (typeof token.token_type !== 'string' || token.token_type.toLowerCase() !== 'bearer')) {
      return { reason: 'Token endpoint gave a token that is not a Bearer token' };
    }
    return { token: token.access_token };
  }

  async function fetchClaims(source: ClaimSource, subject: ClaimSubject): Promise<ClaimSourceResult> {
    const deadline = now() + timeoutMs;
    const headers: Record<string, string> = { accept: 'application/json' };
    const a = source.authorization;
    if (a.type === 'api-key') {
      const key = secrets.open(a.sealedValue, claimSourceSecretContext(source.tenantId, source.id));
      if (key === undefined) return { ok: false, reason: 'The claim source API key cannot be read' };
      headers['x-api-key'] = key;
    } else {
      const got = await accessToken(source, deadline);
      if ('reason' in got) return { ok: false, reason: got.reason };
      headers.authorization = `Bearer ${got.token}`;
    }

    const parameters = resolveParameters(source, subject);
    let url = source.url;
    let body: Uint8Array | undefined;
    if (source.requestMethod === 'GET') {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(parameters)) query.append(name, asQueryValue(value));
      const text = query.toString();
      if (text.length > 0) url += (url.includes('?') ? '&' : '?') + text;
    } else {
      headers['content-type'] = 'application/json';
      body = new TextEncoder().encode(JSON.stringify(parameters));
    }

    const left = deadline - now();
    if (left <= 0) return { ok: false, reason: 'Claim source: timed out' };
    const answer = await send({ method: source.requestMethod, url, headers, ...(body ? { body } : {}), timeoutMs: left, maxBytes: CLAIM_SOURCE_MAX_BYTES });
    if ('error' in answer) return { ok: false, reason: `Claim source: ${answer.error}` };
    if (answer.status < 200 || answer.status > 299) return { ok: false, reason: `Claim source answered HTTP ${answer.status}` };
    if (answer.body.length > CLAIM_SOURCE_MAX_BYTES) return { ok: false, reason: 'Claim source answer is larger than 1 MiB' };
    const parsed = parseJson(answer.body);
    if (!parsed) return { ok: false, reason: 'Claim source answer is not JSON' };
    if (!isPlainObject(parsed.value)) return { ok: false, reason: 'Claim source answer is not a JSON object' };
    if (claimProblems(parsed.value, 'claims').length > 0)
      return { ok: false, reason: 'Claim source answer has claim names too long or values nested too deep' };
    return { ok: true, claims: parsed.value };
  }

  return {
    async fetchClaims(source, subject) {
      try {
        return await fetchClaims(source, subject);
      } catch {
        // Nothing above should throw; if it does, it is still only "no claims".
        return { ok: false, reason: 'Claim source call failed' };
      }
    },
  };
}
