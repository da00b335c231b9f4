// The tenant's trust in wallet providers at request time (docs/dpop-and-attestation.md "Trusted wallet
// providers"): which provider, if any, signed a wallet attestation or a key attestation, and whether
// that provider has revoked it in a Token Status List (draft-ietf-oauth-status-list). Caches live
// here, beside the use case, as the other caches of the core do: the tenant's providers briefly,
// trusted lists and status lists for what their publishers allow within bounds.

import { type JwtCheck, type JwtProofVerifier, PROOF_JWT_ALGORITHMS } from '../oauth/jwt-proofs.ts';
import type { Store } from '../ports.ts';
import { isPlainObject } from '../shared/body-problems.ts';
import { base64UrlToBytes } from '../shared/encoding.ts';
import type { Clock, HttpClient } from '../shared/ports.ts';
import {
  clampSeconds,
  createStatusListLookup,
  type Inflater,
  jwtStatusListClaims,
  type Refusal,
  refuse,
  statusListReferenceOf,
} from '../shared/token-status-lists.ts';
import { MAX_WALLET_PROVIDERS_PER_TENANT, type WalletProvider, type WalletProviderTrustedFor } from './model.ts';
import { readTrustedList } from './trusted-list.ts';

export type WalletProviderPurpose = 'walletAttestation' | 'keyAttestation';

export interface WalletProviderTrust {
  /** Whether the tenant trusts any provider for this purpose (cheap: cached per tenant). */
  any(tenantId: string, purpose: WalletProviderPurpose): Promise<boolean>;
  /**
   * Verifies a JWT signed by a wallet provider the tenant trusts for `purpose`: x5c chaining to a
   * provider's roots (or a trusted list's certificates), or a `kid` in a provider's JWKS. When the
   * JWT's payload names a status (`status.status_list` with `idx` and `uri`, Token Status List),
   * the list is fetched through the outbound guard, its signature checked against the same
   * provider's anchors, and a revoked/suspended entry refuses the JWT.
   */
  verify(
    tenantId: string,
    jwt: string,
    options: { purpose: WalletProviderPurpose; algorithms: readonly string[]; at: Date },
  ): Promise<JwtCheck<{ providerId: string }>>;
}

export type { Inflater } from '../shared/token-status-lists.ts';
export { STATUS_LIST_TTL } from '../shared/token-status-lists.ts';

/** The port, and what the admin service tells it: a tenant's providers changed in this process. */
export interface CachedWalletProviderTrust extends WalletProviderTrust {
  invalidate(tenantId: string): void;
}

export interface WalletProviderTrustDeps {
  store: Pick<Store, 'walletProviders'>;
  clock: Clock;
  verifier: JwtProofVerifier;
  /** Outbound HTTP under the SSRF guard; without it trusted lists and status lists cannot be read, and what needs them is refused. */
  http?: HttpClient;
  /** Without it a JWT that names a status list is refused (its status cannot be read). */
  inflater?: Inflater;
  /** How long a tenant's providers are reused before the store is read again, in ms (default 5000). */
  cacheMs?: number;
}

/** Trusted lists: reused for their Cache-Control max-age within these bounds (default one hour). */
export const TRUSTED_LIST_TTL = { defaultSeconds: 3600, minSeconds: 300, maxSeconds: 86_400 } as const;
/** How long past its freshness the last good trusted list stands in while fetches fail; after that, it trusts nothing. */
export const TRUSTED_LIST_GRACE_SECONDS = 6 * 3600;
/** After a failed fetch, the same URL is not asked again for this long (its last good copy or the failure stands). */
const RETRY_AFTER_MS = 60_000;
const FETCH_TIMEOUT_MS = 5000;
const TRUSTED_LIST_MAX_BYTES = 8 * 1024 * 1024;
const MAX_JWT_LENGTH = 32 * 1024;
const MAX_TRUSTED_LISTS = 200;

const PURPOSE_FIELD: Record<WalletProviderPurpose, WalletProviderTrustedFor> = {
  walletAttestation: 'walletAttestations',
  keyAttestation: 'keyAttestations',
};

/** The decoded JSON object of a compact JWT's segment `i`, if it is one. */
function segment(jwt: string, i: number): Record<string, unknown> | undefined {
  const bytes = base64UrlToBytes(jwt.split('.')[i] ?? '');
  if (!bytes) return undefined;
  try {
    const value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Cache-Control max-age of an answer in seconds (no-store and no-cache count as 0), if it names one. */
export function maxAgeOf(cacheControl: string | undefined): number | undefined {
  if (cacheControl === undefined) return undefined;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
  for (const d of directives) {
    const m = /^max-age="?(\d{1,10})"?$/.exec(d);
    if (m) return Number(m[1]);
  }
  return undefined;
}

interface TrustedListEntry {
  certificates?: string[];
  /** Fresh until, then usable until `goodUntil` while refetches fail. */
  freshUntil: number;
  goodUntil: number;
  /** No fetch before this (a failure is recent). */
  retryAt: number;
  failure?: string;
}

/** Builds the WalletProviderTrust port over the Store, the JWT verifier and the guarded HTTP client. */
export function createWalletProviderTrust(deps: WalletProviderTrustDeps): CachedWalletProviderTrust {
  const { store, clock, verifier, http, inflater } = deps;
  const cacheMs = deps.cacheMs ?? 5000;
  const now = () => clock.now().getTime();

  // The tenant's providers: reused for cacheMs; a load started before an invalidation is not kept.
  const providers = new Map<string, { list: WalletProvider[]; until: number }>();
  const loading = new Map<string, Promise<WalletProvider[]>>();
  const generations = new Map<string, number>();

  async function providersOf(tenantId: string): Promise<WalletProvider[]> {
    const hit = providers.get(tenantId);
    if (hit && now() < hit.until) return hit.list;
    const inFlight = loading.get(tenantId);
    if (inFlight) return inFlight;
    const generation = generations.get(tenantId) ?? 0;
    const load = store.walletProviders
      // The per-tenant limit keeps them all in one page.
      .list(tenantId, { limit: MAX_WALLET_PROVIDERS_PER_TENANT + 1 })
      .then((slice) => {
        if ((generations.get(tenantId) ?? 0) === generation && cacheMs > 0) providers.set(tenantId, { list: slice.items, until: now() + cacheMs });
        return slice.items;
      })
      .finally(() => {
        if (loading.get(tenantId) === load) loading.delete(tenantId);
      });
    loading.set(tenantId, load);
    return load;
  }

  const trustedLists = new Map<string, TrustedListEntry>();
  const listLoads = new Map<string, Promise<TrustedListEntry>>();

  /** One GET through the guard: the answer's body and headers, or why there is none. */
  async function get(url: string, accept: string, maxBytes: number): Promise<{ body: Uint8Array; headers: Record<string, string> } | { error: string }> {
    if (!http) return { error: 'outbound HTTP is not configured' };
    try {
      const answer = await http.fetch({ method: 'GET', url, headers: { accept }, timeoutMs: FETCH_TIMEOUT_MS, maxBytes });
      if ('error' in answer) return answer;
      if (answer.status !== 200) return { error: `HTTP ${answer.status}` };
      return { body: answer.body, headers: answer.headers };
    } catch {
      // The port never throws; an adapter that does still only fails this check.
      return { error: 'request failed' };
    }
  }

  async function fetchTrustedList(url: string, previous: TrustedListEntry | undefined): Promise<TrustedListEntry> {
    const got = await get(url, 'application/vnd.etsi.tsl+xml, application/xml;q=0.9, text/xml;q=0.8', TRUSTED_LIST_MAX_BYTES);
    const read = 'error' in got ? { ok: false as const, reason: `The trusted list could not be fetched: ${got.error}` } : readTrustedList(got.body);
    const at = now();
    if (read.ok && 'headers' in got) {
      const ttl = clampSeconds(maxAgeOf(got.headers['cache-control']) ?? TRUSTED_LIST_TTL.defaultSeconds, TRUSTED_LIST_TTL) * 1000;
      return { certificates: read.certificates, freshUntil: at + ttl, goodUntil: at + ttl + TRUSTED_LIST_GRACE_SECONDS * 1000, retryAt: at };
    }
    const reason = read.ok ? 'The trusted list could not be fetched' : read.reason;
    // The last good list stands in within its grace; past it, nothing is trusted (fail closed).
    if (previous?.certificates && at < previous.goodUntil) return { ...previous, retryAt: at + RETRY_AFTER_MS, failure: reason };
    return { freshUntil: 0, goodUntil: 0, retryAt: at + RETRY_AFTER_MS, failure: reason };
  }

  /** The certificates of the trusted list at `url`, or why there are none to trust. */
  async function trustedListCertificates(url: string): Promise<string[] | Refusal> {
    const at = now();
    let entry = trustedLists.get(url);
    const fresh = entry?.certificates !== undefined && at < (entry?.freshUntil ?? 0);
    const pausing = entry !== undefined && at < entry.retryAt;
    if (!fresh && !pausing) {
      let load = listLoads.get(url);
      if (!load) {
        const previous = entry;
        load = fetchTrustedList(url, previous).finally(() => listLoads.delete(url));
        listLoads.set(url, load);
      }
      entry = await load;
      trustedLists.delete(url);
      trustedLists.set(url, entry);
      if (trustedLists.size > MAX_TRUSTED_LISTS) trustedLists.delete(trustedLists.keys().next().value as string);
    }
    if (entry?.certificates && at < entry.goodUntil) return entry.certificates;
    return refuse(entry?.failure ?? 'The trusted list could not be read');
  }

  /** What a provider's x5c chains may end at: its roots, or its trusted list's certificates. */
  async function rootsOf(provider: WalletProvider): Promise<string[] | Refusal | undefined> {
    if (provider.x509) return provider.x509;
    if (provider.trustedListUrl !== undefined) return trustedListCertificates(provider.trustedListUrl);
    return undefined;
  }

  /** Checks `jwt` against one provider's anchors: x5c for roots and trusted lists, `kid` for a JWKS; undefined when the provider has no anchor of the JWT's kind. */
  async function verifyBy(
    provider: WalletProvider,
    jwt: string,
    header: Record<string, unknown>,
    algorithms: readonly string[],
    at: Date,
  ): Promise<JwtCheck | undefined> {
    if (Array.isArray(header.x5c)) {
      const roots = await rootsOf(provider);
      if (roots === undefined) return undefined;
      if (!Array.isArray(roots)) return roots;
      return verifier.verifyWithX5c(jwt, roots, algorithms, at);
    }
    if (typeof header.kid === 'string' && provider.jwks) {
      const key = provider.jwks.keys.find((k) => k.kid === header.kid);
      if (!key) return undefined;
      if (key.alg !== undefined && header.alg !== key.alg) return refuse(`The key ${key.kid} signs with ${key.alg} only`);
      const { kid: _kid, alg: _alg, ...jwk } = key;
      return verifier.verifyWithKey(jwt, jwk, algorithms);
    }
    return undefined;
  }

  const statusLists = createStatusListLookup({ http, inflater, clock });

  /** Refuses the JWT when its status list entry is anything but VALID (0); undefined when it is valid. */
  async function checkStatus(tenantId: string, provider: WalletProvider, payload: Record<string, unknown>, at: Date): Promise<Refusal | undefined> {
    if (payload.status === undefined) return undefined;
    if (!isPlainObject(payload.status)) return refuse('status.status_list must have an integer idx and an https uri');
    // Other status mechanisms are not read; only a Token Status List reference is checked.
    const reference = statusListReferenceOf(payload.status);
    if (reference === undefined) return undefined;
    if ('ok' in reference) return reference;
    if (!http || !inflater) return refuse('The status of this attestation cannot be checked here');
    const found = await statusLists.lookup(reference, {
      accept: 'application/statuslist+jwt',
      cacheKey: `${tenantId} ${provider.id}`,
      at,
      decode: async (body) => {
        const token = new TextDecoder().decode(body).trim();
        const header = segment(token, 0);
        if (!header) return refuse('The status list is not a JWT');
        const verified = await verifyBy(provider, token, header, PROOF_JWT_ALGORITHMS, at);
        if (!verified) return refuse('The status list is not signed with the wallet provider’s anchors');
        if (!verified.ok) return refuse(`The status list is not signed by the wallet provider: ${verified.reason}`);
        // draft-ietf-oauth-status-list §5.1: typ statuslist+jwt.
        if (verified.header.typ !== 'statuslist+jwt') return refuse('The status list must have typ statuslist+jwt');
        return jwtStatusListClaims(verified.payload);
      },
    });
    // A status list that cannot be read refuses the JWT: a revocation must not hide behind an outage.
    if (!found.ok) return found;
    if (found.value === 0) return undefined;
    return refuse(
      found.value === 1
        ? 'The wallet provider has revoked this attestation'
        : found.value === 2
          ? 'The wallet provider has suspended this attestation'
          : 'The wallet provider does not vouch for this attestation now',
    );
  }

  return {
    async any(tenantId, purpose) {
      const field = PURPOSE_FIELD[purpose];
      return (await providersOf(tenantId)).some((p) => p.trustedFor.includes(field));
    },

    async verify(tenantId, jwt, options) {
      const field = PURPOSE_FIELD[options.purpose];
      if (typeof jwt !== 'string' || jwt.length > MAX_JWT_LENGTH) return refuse('Not a compact JWT');
      const header = segment(jwt, 0);
      if (!header) return refuse('Not a compact JWT');
      if (!Array.isArray(header.x5c) && typeof header.kid !== 'string') return refuse('The JWT names neither an x5c chain nor a kid');
      const candidates = (await providersOf(tenantId)).filter((p) => p.trustedFor.includes(field));
      const what = options.purpose === 'walletAttestation' ? 'wallet attestations' : 'key attestations';
      if (candidates.length === 0) return refuse(`The tenant trusts no wallet provider for ${what}`);
      const reasons = new Set<string>();
      for (const provider of candidates) {
        const checked = await verifyBy(provider, jwt, header, options.algorithms, options.at);
        if (!checked) continue;
        if (!checked.ok) {
          reasons.add(checked.reason);
          continue;
        }
        const refused = await checkStatus(tenantId, provider, checked.payload, options.at);
        if (refused) return refused;
        return { ok: true, header: checked.header, payload: checked.payload, providerId: provider.id };
      }
      // One reason when every provider gave the same; otherwise a plain refusal.
      if (reasons.size === 1) return refuse([...reasons][0] as string);
      return refuse(`The JWT is signed by no wallet provider the tenant trusts for ${what}`);
    },

    invalidate(tenantId) {
      generations.set(tenantId, (generations.get(tenantId) ?? 0) + 1);
      providers.delete(tenantId);
      loading.delete(tenantId);
      statusLists.forget(`${tenantId} `);
    },
  };
}
