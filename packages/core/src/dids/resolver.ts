// Resolving the DIDs of issuers while verifying (docs/verification.md "did:web issuers"): did:key is
// decoded locally; did:web is read over HTTPS through the outbound guard (HttpClient.fetch), bounded
// in size and time, and kept a short while per process (docs/decisions.md "Verifying ldp_vc and
// did:web issuers (issue 31)"). Callers resolve a did:web only for a DID the tenant already trusts,
// so a credential cannot make the server fetch what it names.

import type { PublicJwk } from '../keys/model.ts';
import { bytesToBase64Url } from '../shared/encoding.ts';
import type { Clock, HttpClient } from '../shared/ports.ts';
import { jwkOfDidKey } from '../verification/sd-jwt-vc.ts';
import { MAX_DID_WEB_PATH_SEGMENTS, isDidWebSegment } from './did-web.ts';
import { base58btcDecode } from './multibase.ts';

/** A verification relationship of DID Core §5.3. */
export type VerificationRelationship = 'assertionMethod' | 'authentication';

export type DidKeyResolution = { ok: true; jwk: PublicJwk; verificationMethod: string } | { ok: false; reason: string };

/** Finds the public key a DID URL names, under a verification relationship. Never throws. */
export interface DidResolver {
  /**
   * The key of `verificationMethod` (a DID URL `did:…#fragment`, or a bare DID when the document has
   * exactly one method for the relationship), authorised for `relationship` by the DID document.
   */
  resolveKey(verificationMethod: string, relationship: VerificationRelationship): Promise<DidKeyResolution>;
}

/** did:web: bounds on fetching a document, and how long one is reused. */
export const DID_WEB_LIMITS = { timeoutMs: 5000, maxBytes: 64 * 1024, cacheSeconds: 300, maxCached: 500 } as const;

const refuse = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The https URL of a did:web's document (W3C CCG did:web "Read"), or undefined for a malformed one. */
export function didWebDocumentUrl(did: string): string | undefined {
  const match = /^did:web:([^:#?/]+)((?::[^:#?/]+)*)$/.exec(did);
  if (!match) return undefined;
  // A port is written percent-encoded (`%3A`); nothing else may be.
  const host = (match[1] as string).replace(/%3A/i, ':').toLowerCase();
  if (!/^[a-z0-9.-]+(:[0-9]{1,5})?$/.test(host)) return undefined;
  const path = (match[2] as string).split(':').filter((s) => s !== '');
  if (path.length > MAX_DID_WEB_PATH_SEGMENTS || !path.every(isDidWebSegment)) return undefined;
  const url = `https://${host}/${path.length === 0 ? '.well-known' : path.join('/')}/did.json`;
  try {
    return new URL(url).href;
  } catch {
    return undefined;
  }
}

/** The public JWK of a verification method object: publicKeyJwk, publicKeyMultibase (Ed25519) or publicKeyBase58 (Ed25519). */
export function jwkOfVerificationMethod(method: Json): PublicJwk | undefined {
  const jwk = method.publicKeyJwk;
  if (isObject(jwk)) {
    if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string') return { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
    if (jwk.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.x === 'string' && typeof jwk.y === 'string')
      return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
    return undefined;
  }
  if (typeof method.publicKeyMultibase === 'string') return jwkOfDidKey(`did:key:${method.publicKeyMultibase}`);
  if (typeof method.publicKeyBase58 === 'string') {
    const bytes = base58btcDecode(method.publicKeyBase58);
    return bytes?.length === 32 ? { kty: 'OKP', crv: 'Ed25519', x: bytesToBase64Url(bytes) } : undefined;
  }
  return undefined;
}

/** The key a DID document gives `verificationMethod` under `relationship` (DID Core §5.2–5.3). */
export function keyInDocument(document: Json, did: string, verificationMethod: string, relationship: VerificationRelationship): DidKeyResolution {
  if (document.id !== did) return refuse('The DID document has another id than the DID');
  const absolute = (id: unknown) => (typeof id === 'string' && id.startsWith('#') ? `${did}${id}` : id);
  const methods = new Map<string, Json>();
  for (const method of Array.isArray(document.verificationMethod) ? document.verificationMethod : []) {
    const id = isObject(method) ? absolute(method.id) : undefined;
    if (typeof id === 'string' && isObject(method)) methods.set(id, method);
  }
  const authorised: Json[] = [];
  for (const entry of Array.isArray(document[relationship]) ? (document[relationship] as unknown[]) : []) {
    const method = isObject(entry) ? entry : methods.get(absolute(entry) as string);
    if (method) authorised.push({ ...method, id: absolute(method.id) });
  }
  const wanted = verificationMethod.includes('#') ? authorised.filter((m) => m.id === verificationMethod) : authorised;
  if (wanted.length !== 1)
    return refuse(`The DID document authorises no single key ${verificationMethod.includes('#') ? 'with that id ' : ''}for ${relationship}`);
  const jwk = jwkOfVerificationMethod(wanted[0] as Json);
  return jwk ? { ok: true, jwk, verificationMethod: wanted[0]?.id as string } : refuse('The verification method is not an Ed25519 or P-256 key Vellum reads');
}

/** did:key locally; did:web through `http` (when given) with a small per-process cache. */
export function createDidResolver(deps: { http?: HttpClient; clock: Clock }): DidResolver {
  const documents = new Map<string, { document: Json; until: number }>();
  type Loaded = { ok: true; document: Json } | { ok: false; reason: string };
  const loads = new Map<string, Promise<Loaded>>();

  async function load(did: string, url: string): Promise<Loaded> {
    if (!deps.http) return refuse('This server cannot resolve did:web (no outbound HTTP)');
    let answer: Awaited<ReturnType<HttpClient['fetch']>>;
    try {
      answer = await deps.http.fetch({
        method: 'GET',
        url,
        headers: { accept: 'application/did+json, application/json' },
        timeoutMs: DID_WEB_LIMITS.timeoutMs,
        maxBytes: DID_WEB_LIMITS.maxBytes,
      });
    } catch {
      return refuse('The DID document could not be fetched: request failed');
    }
    if ('error' in answer) return refuse(`The DID document could not be fetched: ${answer.error}`);
    if (answer.status !== 200) return refuse(`The DID document could not be fetched: HTTP ${answer.status}`);
    let document: unknown;
    try {
      document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(answer.body));
    } catch {
      return refuse('The DID document is not JSON');
    }
    if (!isObject(document)) return refuse('The DID document is not a JSON object');
    if (document.id !== did) return refuse('The DID document has another id than the DID');
    if (documents.size >= DID_WEB_LIMITS.maxCached) documents.delete(documents.keys().next().value as string);
    documents.set(did, { document, until: deps.clock.now().getTime() + DID_WEB_LIMITS.cacheSeconds * 1000 });
    return { ok: true, document };
  }

  return {
    async resolveKey(verificationMethod, relationship) {
      if (typeof verificationMethod !== 'string' || verificationMethod.length > 2048) return refuse('Not a DID URL');
      const did = verificationMethod.split('#')[0] as string;
      if (did.startsWith('did:key:')) {
        const jwk = jwkOfDidKey(did);
        if (!jwk) return refuse('The did:key is not a P-256 or Ed25519 key');
        // A did:key's document has one method, `did#<multibase>`, for every relationship.
        const fragment = verificationMethod.slice(did.length);
        if (fragment !== '' && fragment !== `#${did.slice('did:key:'.length)}`) return refuse('The did:key has no such verification method');
        return { ok: true, jwk, verificationMethod: `${did}#${did.slice('did:key:'.length)}` };
      }
      if (!did.startsWith('did:web:')) return refuse('Only did:key and did:web can be resolved');
      const url = didWebDocumentUrl(did);
      if (!url) return refuse('Not a did:web Vellum reads');
      const cached = documents.get(did);
      let loaded: Loaded;
      if (cached && deps.clock.now().getTime() < cached.until) loaded = { ok: true, document: cached.document };
      else {
        let pending = loads.get(did);
        if (!pending) {
          pending = load(did, url).finally(() => loads.delete(did));
          loads.set(did, pending);
        }
        loaded = await pending;
      }
      if (!loaded.ok) return loaded;
      return keyInDocument(loaded.document, did, verificationMethod, relationship);
    },
  };
}
