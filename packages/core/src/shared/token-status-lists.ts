// Reading Token Status Lists (draft-ietf-oauth-status-list) that other parties publish: wallet
// providers' lists of wallet attestations, and the lists a verified credential names. One place
// fetches through the outbound guard, keeps a list for its `ttl` within bounds (never past its
// `exp`), collapses concurrent fetches of one list, and reads an entry's bits. Whoever calls it
// decides what a list must be signed by: the `decode` it passes verifies the token and returns its
// claims (docs/decisions.md "Status lists while verifying (issue 31)").

import { isPlainObject } from './body-problems.ts';
import { base64UrlToBytes } from './encoding.ts';
import type { Clock, HttpClient } from './ports.ts';

/** zlib (RFC 1950) decompression, bounded: a Token Status List's `lst` (draft-ietf-oauth-status-list §4.1). */
export interface Inflater {
  /** The inflated bytes, or undefined when `data` is no zlib stream or inflates to more than `maxBytes`. Never throws. */
  inflate(data: Uint8Array, maxBytes: number): Uint8Array | undefined;
}

/** A credential's or attestation's reference into a list (`status.status_list`). */
export interface StatusListReference {
  idx: number;
  uri: string;
}

/** What a verified status list token says, before its `lst` is inflated. */
export interface StatusListClaims {
  /** `sub`: must be the URI the token was fetched from. */
  sub: unknown;
  bits: unknown;
  /** `lst`, still compressed. */
  lst: Uint8Array | undefined;
  /** Seconds since the epoch, when the token names them. */
  exp?: number;
  ttl?: number;
}

export type Refusal = { ok: false; reason: string };
export const refuse = (reason: string): Refusal => ({ ok: false, reason });

/** Verifies one fetched token (its signature and type) and gives its claims, or why it is refused. */
export type StatusListDecoder = (body: Uint8Array, contentType: string | undefined) => Promise<StatusListClaims | Refusal>;

export interface StatusListLookup {
  /** The value of the entry (0 valid, 1 invalid, 2 suspended, 3 and above application-specific), or why it could not be read. */
  lookup(
    reference: StatusListReference,
    options: {
      /** The Accept header of the fetch. */
      accept: string;
      /** Lists are cached per key: whatever decides trust (the tenant's anchors) belongs in it beside the URI. */
      cacheKey: string;
      decode: StatusListDecoder;
      at: Date;
    },
  ): Promise<{ ok: true; value: number } | Refusal>;
  /** Drops the cached lists whose cache key starts with `prefix` (trust changed). */
  forget(prefix: string): void;
}

/** Status lists: reused for their `ttl` within these bounds (default five minutes), never past their `exp`. */
export const STATUS_LIST_TTL = { defaultSeconds: 300, minSeconds: 60, maxSeconds: 3600 } as const;
const FETCH_TIMEOUT_MS = 5000;
const STATUS_LIST_MAX_BYTES = 1024 * 1024;
/** The most a status list may inflate to: 32 million one-bit entries. */
const STATUS_LIST_MAX_INFLATED = 4 * 1024 * 1024;
const MAX_URI_LENGTH = 2048;
/** Status lists kept at once; the oldest goes first. */
const MAX_STATUS_LISTS = 1000;

export const clampSeconds = (value: number, bounds: { minSeconds: number; maxSeconds: number }) =>
  Math.min(Math.max(value, bounds.minSeconds), bounds.maxSeconds);

/** An https URI a status claim may name, or undefined. */
function statusUri(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_URI_LENGTH) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.username === '' && url.password === '' && url.hash === '' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Token Status List reference of a `status` claim (JSON or CBOR read as a Map): undefined when
 * the claim names another mechanism only; a Refusal when `status_list` is there but malformed.
 */
export function statusListReferenceOf(status: unknown): StatusListReference | Refusal | undefined {
  const get = (value: unknown, key: string): unknown => (value instanceof Map ? value.get(key) : isPlainObject(value) ? value[key] : undefined);
  const list = get(status, 'status_list');
  if (list === undefined) return undefined;
  const idx = get(list, 'idx');
  const uri = statusUri(get(list, 'uri'));
  const index = typeof idx === 'bigint' ? Number(idx) : idx;
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || uri === undefined)
    return refuse('status.status_list must have an integer idx and an https uri');
  return { idx: index, uri };
}

/** The claims of a verified status list JWT's payload (draft-ietf-oauth-status-list §5.1). */
export function jwtStatusListClaims(payload: Record<string, unknown>): StatusListClaims | Refusal {
  if (payload.exp !== undefined && typeof payload.exp !== 'number') return refuse('The status list exp is not a number');
  const list = isPlainObject(payload.status_list) ? payload.status_list : undefined;
  const lst = typeof list?.lst === 'string' ? base64UrlToBytes(list.lst) : undefined;
  if (!lst) return refuse('The status list must have lst in base64url');
  return {
    sub: payload.sub,
    bits: list?.bits,
    lst,
    ...(typeof payload.exp === 'number' ? { exp: payload.exp } : {}),
    ...(typeof payload.ttl === 'number' ? { ttl: payload.ttl } : {}),
  };
}

interface Entry {
  bits: number;
  statuses: Uint8Array;
  until: number;
}

/** The shared reader of Token Status Lists, over the guarded HTTP client and the Inflater. */
export function createStatusListLookup(deps: { http?: HttpClient; inflater?: Inflater; clock: Clock }): StatusListLookup {
  const { http, inflater, clock } = deps;
  const lists = new Map<string, Entry>();
  const loads = new Map<string, Promise<Entry | Refusal>>();

  async function load(uri: string, accept: string, decode: StatusListDecoder, at: Date): Promise<Entry | Refusal> {
    if (!http || !inflater) return refuse('Status lists cannot be read by this server (no outbound HTTP or no zlib)');
    let answer: Awaited<ReturnType<HttpClient['fetch']>>;
    try {
      answer = await http.fetch({ method: 'GET', url: uri, headers: { accept }, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: STATUS_LIST_MAX_BYTES });
    } catch {
      // The port never throws; an adapter that does still only fails this check.
      return refuse('The status list could not be fetched: request failed');
    }
    if ('error' in answer) return refuse(`The status list could not be fetched: ${answer.error}`);
    if (answer.status !== 200) return refuse(`The status list could not be fetched: HTTP ${answer.status}`);
    const claims = await decode(answer.body, answer.headers['content-type']);
    if ('ok' in claims) return claims;
    // draft-ietf-oauth-status-list §5.1 and §5.2: sub is the URI the token was fetched from.
    if (claims.sub !== uri) return refuse('The status list names another URI (sub)');
    const seconds = Math.floor(at.getTime() / 1000);
    if (claims.exp !== undefined && claims.exp <= seconds) return refuse('The status list has expired');
    const { bits } = claims;
    if (bits !== 1 && bits !== 2 && bits !== 4 && bits !== 8) return refuse('The status list must have bits 1, 2, 4 or 8');
    if (!claims.lst) return refuse('The status list has no lst');
    const statuses = inflater.inflate(claims.lst, STATUS_LIST_MAX_INFLATED);
    if (!statuses) return refuse('The status list’s lst is not a zlib stream (or too large)');
    const ttl = clampSeconds(claims.ttl !== undefined && claims.ttl >= 0 ? claims.ttl : STATUS_LIST_TTL.defaultSeconds, STATUS_LIST_TTL);
    const expires = claims.exp !== undefined ? claims.exp * 1000 : Number.POSITIVE_INFINITY;
    return { bits, statuses, until: Math.min(clock.now().getTime() + ttl * 1000, expires) };
  }

  return {
    forget(prefix) {
      for (const key of [...lists.keys()]) if (key.startsWith(prefix)) lists.delete(key);
    },
    async lookup(reference, { accept, cacheKey, decode, at }) {
      const key = `${cacheKey} ${reference.uri}`;
      let entry = lists.get(key);
      if (!entry || clock.now().getTime() >= entry.until) {
        lists.delete(key);
        let loading = loads.get(key);
        if (!loading) {
          loading = load(reference.uri, accept, decode, at).finally(() => loads.delete(key));
          loads.set(key, loading);
        }
        const loaded = await loading;
        // A list that cannot be read is not cached: the next check asks again.
        if ('ok' in loaded) return loaded;
        entry = loaded;
        lists.set(key, entry);
        if (lists.size > MAX_STATUS_LISTS) lists.delete(lists.keys().next().value as string);
      }
      // draft-ietf-oauth-status-list §4.1: entry idx takes `bits` bits from the least significant end of byte idx*bits/8.
      const position = reference.idx * entry.bits;
      const byte = entry.statuses[Math.floor(position / 8)];
      if (byte === undefined) return refuse('The status list has no entry at idx');
      return { ok: true, value: (byte >> (position % 8)) & ((1 << entry.bits) - 1) };
    },
  };
}
