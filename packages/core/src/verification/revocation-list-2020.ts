// RevocationList2020 while verifying ldp_vc (W3C CCG Revocation List 2020; docs/verification.md
// "Verifying ldp_vc"): the list credential a `credentialStatus` names is fetched through the
// outbound guard, its Linked Data proof checked against the credential's own issuer, and the
// GZIP bitstring read most significant bit first. Self-contained: Token Status Lists are
// shared/token-status-lists.ts. A list that cannot be read or trusted fails the status check.

import { base64UrlToBytes } from '../shared/encoding.ts';
import type { Clock, HttpClient } from '../shared/ports.ts';
import type { Gunzip } from './ldp-vc-ports.ts';

/**
 * RevocationList2020 has no ttl: a list is reused for the response's `Cache-Control: max-age`,
 * held within these bounds (default five minutes when the response names none).
 */
export const REVOCATION_LIST_CACHE = { defaultSeconds: 300, minSeconds: 60, maxSeconds: 3600, maxLists: 1000 } as const;
const FETCH_TIMEOUT_MS = 5000;
const MAX_LIST_BYTES = 1024 * 1024;
/** The most an encodedList may inflate to: 32 million entries. */
const MAX_BITSTRING_BYTES = 4 * 1024 * 1024;
const MAX_URI_LENGTH = 2048;

type Json = Record<string, unknown>;
type Refusal = { ok: false; reason: string };
const refuse = (reason: string): Refusal => ({ ok: false, reason });
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A `credentialStatus` of type RevocationList2020Status, read. */
export interface RevocationListReference {
  index: number;
  url: string;
}

/** The reference of a credentialStatus; undefined when it is of another type; a Refusal when malformed. */
export function revocationListReferenceOf(status: unknown): RevocationListReference | Refusal | undefined {
  if (!isObject(status) || status.type !== 'RevocationList2020Status') return undefined;
  const raw = status.revocationListIndex;
  const index = typeof raw === 'string' && /^[0-9]{1,10}$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : Number.NaN;
  const url = status.revocationListCredential;
  if (!Number.isSafeInteger(index) || index < 0) return refuse('credentialStatus.revocationListIndex is not a whole number');
  if (typeof url !== 'string' || url.length > MAX_URI_LENGTH) return refuse('credentialStatus.revocationListCredential is not an https URL');
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '' || parsed.hash !== '')
      return refuse('credentialStatus.revocationListCredential is not an https URL');
  } catch {
    return refuse('credentialStatus.revocationListCredential is not an https URL');
  }
  return { index, url };
}

/** Checks a fetched list credential's proof (by the credential's issuer); the verifier supplies it. */
export type RevocationListProofCheck = (list: Json) => Promise<{ ok: true } | Refusal>;

export interface RevocationListLookup {
  /** True when the entry is set (revoked), or why it could not be read. */
  revoked(
    reference: RevocationListReference,
    options: { issuer: string; cacheKey: string; checkProof: RevocationListProofCheck },
  ): Promise<{ ok: true; revoked: boolean } | Refusal>;
}

/** The max-age of a Cache-Control header, clamped to REVOCATION_LIST_CACHE. */
export function revocationListCacheSeconds(cacheControl: string | undefined): number {
  const match = cacheControl ? /(?:^|,)\s*max-age\s*=\s*"?([0-9]{1,10})"?\s*(?:,|$)/i.exec(cacheControl) : null;
  const noStore = cacheControl ? /(?:^|,)\s*(no-store|no-cache)\s*(?:,|$)/i.test(cacheControl) : false;
  const seconds = noStore ? 0 : match ? Number(match[1]) : REVOCATION_LIST_CACHE.defaultSeconds;
  return Math.min(Math.max(seconds, REVOCATION_LIST_CACHE.minSeconds), REVOCATION_LIST_CACHE.maxSeconds);
}

interface Entry {
  bits: Uint8Array;
  until: number;
}

export function createRevocationListLookup(deps: { http?: HttpClient; gunzip?: Gunzip; clock: Clock }): RevocationListLookup {
  const { http, gunzip, clock } = deps;
  const lists = new Map<string, Entry>();
  const loads = new Map<string, Promise<Entry | Refusal>>();

  async function load(url: string, issuer: string, checkProof: RevocationListProofCheck): Promise<Entry | Refusal> {
    if (!http || !gunzip) return refuse('Revocation lists cannot be read by this server (no outbound HTTP or no gzip)');
    let answer: Awaited<ReturnType<HttpClient['fetch']>>;
    try {
      answer = await http.fetch({
        method: 'GET',
        url,
        headers: { accept: 'application/ld+json, application/json' },
        timeoutMs: FETCH_TIMEOUT_MS,
        maxBytes: MAX_LIST_BYTES,
      });
    } catch {
      return refuse('The revocation list could not be fetched: request failed');
    }
    if ('error' in answer) return refuse(`The revocation list could not be fetched: ${answer.error}`);
    if (answer.status !== 200) return refuse(`The revocation list could not be fetched: HTTP ${answer.status}`);
    let list: unknown;
    try {
      list = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(answer.body));
    } catch {
      return refuse('The revocation list is not JSON');
    }
    if (!isObject(list)) return refuse('The revocation list is not a JSON object');
    const types = Array.isArray(list.type) ? list.type : [list.type];
    if (!types.includes('RevocationList2020Credential')) return refuse('The revocation list is not a RevocationList2020Credential');
    if (list.id !== undefined && list.id !== url) return refuse('The revocation list names another URL (id)');
    const listIssuer = isObject(list.issuer) ? list.issuer.id : list.issuer;
    if (listIssuer !== issuer) return refuse('The revocation list has another issuer than the credential');
    const subject = list.credentialSubject;
    if (!isObject(subject) || subject.type !== 'RevocationList2020' || typeof subject.encodedList !== 'string')
      return refuse('The revocation list has no RevocationList2020 subject with an encodedList');
    const proof = await checkProof(list);
    if (!proof.ok) return refuse(`The revocation list is not signed by the credential’s issuer: ${proof.reason}`);
    const compressed = base64UrlToBytes(subject.encodedList.replace(/=+$/, ''));
    if (!compressed) return refuse('The revocation list encodedList is not base64url');
    const bits = gunzip.gunzip(compressed, MAX_BITSTRING_BYTES);
    if (!bits) return refuse('The revocation list encodedList is not a gzip stream (or too large)');
    const seconds = revocationListCacheSeconds(answer.headers['cache-control']);
    return { bits, until: clock.now().getTime() + seconds * 1000 };
  }

  return {
    async revoked(reference, { issuer, cacheKey, checkProof }) {
      const key = `${cacheKey} ${reference.url}`;
      let entry = lists.get(key);
      if (!entry || clock.now().getTime() >= entry.until) {
        lists.delete(key);
        let pending = loads.get(key);
        if (!pending) {
          pending = load(reference.url, issuer, checkProof).finally(() => loads.delete(key));
          loads.set(key, pending);
        }
        const loaded = await pending;
        if ('ok' in loaded) return loaded;
        if (lists.size >= REVOCATION_LIST_CACHE.maxLists) lists.delete(lists.keys().next().value as string);
        lists.set(key, loaded);
        entry = loaded;
      }
      const byte = Math.floor(reference.index / 8);
      if (byte >= entry.bits.length) return refuse('The credential’s index is beyond the end of the revocation list');
      // Revocation List 2020: entry i is bit i counted from the most significant bit of the first byte.
      return { ok: true, revoked: (((entry.bits[byte] as number) >> (7 - (reference.index % 8))) & 1) === 1 };
    },
  };
}
