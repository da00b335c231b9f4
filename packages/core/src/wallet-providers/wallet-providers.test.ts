// Trusted wallet providers (docs/dpop-and-attestation.md "Trusted wallet providers"): the admin service, its rules,
// and the WalletProviderTrust port over fakes (the signatures and X.509 chains are the verifier's,
// proven with real ones in packages/fastify/src/wallet-providers.test.ts).
import { describe, expect, it } from 'vitest';
import { contextFor } from '../../test/harness.ts';
import { createMemoryStore, fakeClock, fakeIds, makeTestWalletProvider, trustedListXml } from '../../test/kit.ts';
import { badBodyField, refusal } from '../../test/refusal.ts';
import { createEventRecorder } from '../events/recorder.ts';
import type { CertificateInfo } from '../mdoc-pki/ports.ts';
import { DomainError } from '../shared/errors.ts';
import type { JwtCheck, JwtProofVerifier } from '../oauth/jwt-proofs.ts';
import type { HttpClient, OutboundFetch } from '../shared/ports.ts';
import type { Tenant } from '../tenancy/model.ts';
import { MAX_WALLET_PROVIDERS_PER_TENANT } from './model.ts';
import { createWalletProviderService } from './service.ts';
import { createWalletProviderTrust, type Inflater, maxAgeOf, STATUS_LIST_TTL, TRUSTED_LIST_GRACE_SECONDS, TRUSTED_LIST_TTL } from './trust.ts';
import { readTrustedList } from './trusted-list.ts';

const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
/** An unsigned-looking JWT whose signature part says whether the fake verifier accepts it. */
const jwt = (header: Record<string, unknown>, payload: Record<string, unknown> = {}, signature = 'good') => `${enc(header)}.${enc(payload)}.${signature}`;
const body = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');

/**
 * A verifier that checks no signature: an x5c JWT is good when its signature part is `good` and its
 * last x5c entry is one of the roots (the chain ends at a root); a key JWT when its signature part
 * names the key's x.
 */
function fakeVerifier(): JwtProofVerifier & { calls: number } {
  const parts = (token: string) => {
    const [h, p, s] = token.split('.');
    return { header: JSON.parse(Buffer.from(h ?? '', 'base64url').toString()), payload: JSON.parse(Buffer.from(p ?? '', 'base64url').toString()), s };
  };
  const v = {
    calls: 0,
    async verifySelfSigned(): Promise<never> {
      throw new Error('not used');
    },
    async verifyWithKey(token: string, jwk: unknown): Promise<JwtCheck> {
      v.calls += 1;
      const { header, payload, s } = parts(token);
      if ((jwk as { kid?: string }).kid !== undefined) return { ok: false, reason: 'kid passed on' };
      return s === `by-${(jwk as { x: string }).x}` ? { ok: true, header, payload } : { ok: false, reason: 'bad signature' };
    },
    async verifyWithX5c(token: string, roots: readonly string[]): Promise<JwtCheck> {
      v.calls += 1;
      const { header, payload, s } = parts(token);
      const last = (header.x5c as string[]).at(-1);
      if (s !== 'good') return { ok: false, reason: 'bad signature' };
      return roots.map(body).includes(last as string) ? { ok: true, header, payload } : { ok: false, reason: 'untrusted chain' };
    },
    thumbprint: () => undefined,
  };
  return v;
}

/** PEM bodies the fake x509 reader knows: a CA, a leaf, and an expired CA. */
const CA_A = '-----BEGIN CERTIFICATE-----\nQUFBQQ==\n-----END CERTIFICATE-----\n';
const CA_B = '-----BEGIN CERTIFICATE-----\nQkJCQg==\n-----END CERTIFICATE-----\n';
const LEAF = '-----BEGIN CERTIFICATE-----\nTExMTA==\n-----END CERTIFICATE-----\n';
const OLD = '-----BEGIN CERTIFICATE-----\nT0xET0xE\n-----END CERTIFICATE-----\n';
const GARBAGE = '-----BEGIN CERTIFICATE-----\nR0FSQg==\n-----END CERTIFICATE-----\n';

const fakeX509 = {
  parseCertificate(pem: string): CertificateInfo {
    if (pem === GARBAGE) throw new DomainError('BadRequest', 'certificatePem is no certificate');
    const info = { notBefore: new Date('2026-01-01'), notAfter: pem === OLD ? new Date('2026-02-01') : new Date('2027-01-01'), isCa: pem !== LEAF };
    return info as CertificateInfo;
  },
};

const P256 = { kty: 'EC', crv: 'P-256', x: 'a'.repeat(43), y: 'b'.repeat(43), kid: 'k1' };

interface Served {
  status?: number;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

/** An HttpClient that answers from `routes` (by URL) and counts the requests per URL. */
function fakeHttp(routes: Map<string, Served | 'error'>): HttpClient & { count(url: string): number } {
  const counts = new Map<string, number>();
  return {
    async send() {
      return { error: 'not used' };
    },
    async fetch(request: OutboundFetch) {
      counts.set(request.url, (counts.get(request.url) ?? 0) + 1);
      const r = routes.get(request.url);
      if (r === undefined || r === 'error') return { error: 'connection refused' };
      return { status: r.status ?? 200, headers: r.headers ?? {}, body: typeof r.body === 'string' ? new TextEncoder().encode(r.body) : r.body };
    },
    count: (url: string) => counts.get(url) ?? 0,
  };
}

/** "Compressed" here is one marker byte before the raw statuses: the real zlib is @vellum/node's, tested there and in the loopback test. */
const fakeInflater: Inflater = { inflate: (data) => (data[0] === 0x78 ? data.slice(1) : undefined) };
const lstOf = (statuses: number[]) => Buffer.from([0x78, ...statuses]).toString('base64url');

async function setup() {
  const store = createMemoryStore();
  const clock = fakeClock('2026-05-01T12:00:00.000Z');
  const ids = fakeIds();
  const events = createEventRecorder({ events: store.events, clock, ids });
  const routes = new Map<string, Served | 'error'>();
  const http = fakeHttp(routes);
  const verifier = fakeVerifier();
  const trust = createWalletProviderTrust({ store, clock, verifier, http, inflater: fakeInflater });
  const providers = createWalletProviderService({ store, clock, ids, events, x509: fakeX509, onChange: (id) => trust.invalidate(id) });
  const tenant = (subdomain: string): Tenant => ({
    id: `tenant-${subdomain}`,
    subdomain,
    region: 'eu01',
    name: subdomain,
    loggingLevel: 3,
    createdAt: clock.now().toISOString(),
  });
  const acme = tenant('acme');
  const other = tenant('other');
  for (const t of [acme, other]) await store.tenants.insert(t);
  return { store, clock, ids, routes, http, verifier, trust, providers, acme, other, ctx: contextFor(acme) };
}

const at = new Date('2026-05-01T12:00:00.000Z');
const asWallet = { purpose: 'walletAttestation' as const, algorithms: ['ES256'], at };
const asKey = { purpose: 'keyAttestation' as const, algorithms: ['ES256'], at };

describe('trusted wallet providers: the admin service (docs/dpop-and-attestation.md "Trusted wallet providers")', () => {
  it('creates a provider trusted for both purposes by default; reads, lists, replaces (another kind of anchor) and deletes it', async () => {
    const { providers, ctx } = await setup();
    const created = await providers.create(ctx, { name: 'Wallet Co', x509: [CA_A] });
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Wallet Co',
      trustedFor: ['walletAttestations', 'keyAttestations'],
      x509: [CA_A],
      createdAt: '2026-05-01T12:00:00.000Z',
      updatedAt: '2026-05-01T12:00:00.000Z',
    });
    expect(await providers.get(ctx, created.id)).toEqual(created);
    expect((await providers.list(ctx, {})).data).toEqual([created]);
    const replaced = await providers.update(ctx, created.id, { name: 'Wallet Co', trustedFor: ['keyAttestations'], jwks: { keys: [P256] } });
    const { x509: _x509, ...rest } = created;
    expect(replaced).toEqual({ ...rest, trustedFor: ['keyAttestations'], jwks: { keys: [P256] } });
    expect(replaced).not.toHaveProperty('x509');
    await providers.delete(ctx, created.id);
    expect(await refusal(providers.get(ctx, created.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(providers.delete(ctx, created.id))).toMatchObject({ code: 'NotFound' });
  });

  it('refuses bodies with every problem named: no anchor, two kinds, a leaf, an expired or unreadable certificate, a bad key, a repeated kid, plain http', async () => {
    const { providers, ctx } = await setup();
    expect(await refusal(providers.create(ctx, { name: 'n' }))).toMatchObject(badBodyField('x509', 'Required: one of x509, jwks or trustedListUrl'));
    expect(await refusal(providers.create(ctx, { name: 'n', x509: [CA_A], trustedListUrl: 'https://tl.example.com/l.xml' }))).toMatchObject(
      badBodyField('trustedListUrl', 'Give one of x509, trustedListUrl, not both'),
    );
    const certs = await refusal(providers.create(ctx, { name: 'n', x509: [CA_A, LEAF, OLD, GARBAGE] }));
    expect(certs.details).toEqual([
      expect.objectContaining({ param: 'x509.1', msg: 'Not a CA certificate (BasicConstraints cA is not true)' }),
      expect.objectContaining({ param: 'x509.2', msg: 'The certificate has expired' }),
      expect.objectContaining({ param: 'x509.3', msg: 'Not a readable X.509 certificate' }),
    ]);
    const keys = await refusal(
      providers.create(ctx, {
        name: 'n',
        trustedFor: ['walletAttestations', 'walletAttestations'],
        jwks: { keys: [P256, { ...P256, crv: 'P-384' }, { kty: 'OKP', crv: 'Ed25519', x: 'c'.repeat(43), kid: 'k1' }] },
      }),
    );
    expect(keys.details).toEqual([
      expect.objectContaining({ param: 'trustedFor.1', msg: 'Listed twice' }),
      expect.objectContaining({ param: 'jwks.keys.1', msg: 'An EC key must be P-256 with x and y' }),
      expect.objectContaining({ param: 'jwks.keys.2', msg: 'Another key has this kid' }),
    ]);
    // A private key member is no member of a public JWK.
    expect(await refusal(providers.create(ctx, { name: 'n', jwks: { keys: [{ ...P256, d: 'e'.repeat(43) }] } }))).toMatchObject(
      badBodyField('jwks.keys.0.d', 'Unknown field'),
    );
    expect(await refusal(providers.create(ctx, { name: 'n', trustedListUrl: 'http://tl.example.com/l.xml' }))).toMatchObject(
      badBodyField('trustedListUrl', 'Must use https'),
    );
    expect(await refusal(providers.create(ctx, { name: 'n', trustedFor: ['everything'], x509: [CA_A] }))).toMatchObject(badBodyField('trustedFor.0'));
    expect((await providers.list(ctx, {})).data).toEqual([]);
  });

  it(`holds at most ${MAX_WALLET_PROVIDERS_PER_TENANT} providers per tenant (409), counted per tenant`, async () => {
    const { providers, ctx, other } = await setup();
    for (let i = 0; i < MAX_WALLET_PROVIDERS_PER_TENANT; i++) await providers.create(ctx, { name: `p${i}`, x509: [CA_A] });
    expect(await refusal(providers.create(ctx, { name: 'one more', x509: [CA_A] }))).toMatchObject({ code: 'Conflict' });
    await providers.create(contextFor(other), { name: 'elsewhere', x509: [CA_A] });
  });

  it('answers 400 for an id that is no UUID, 404 for another tenant’s, and 403 for a role without issuance-setup', async () => {
    const { providers, ctx, other } = await setup();
    const p = await providers.create(ctx, { name: 'p', x509: [CA_A] });
    expect(await refusal(providers.get(ctx, 'not-a-uuid'))).toMatchObject({
      code: 'BadRequest',
      details: [expect.objectContaining({ param: 'id', location: 'params' })],
    });
    expect(await refusal(providers.get(contextFor(other), p.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(providers.update(contextFor(other), p.id, { name: 'p', x509: [CA_A] }))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(providers.list(contextFor(ctx.tenant, 'auditor'), {}))).toMatchObject({ code: 'Forbidden' });
    expect(await refusal(providers.create(contextFor(ctx.tenant, 'verifier'), { name: 'p', x509: [CA_A] }))).toMatchObject({ code: 'Forbidden' });
  });
});

describe('trusted wallet providers: the WalletProviderTrust port', () => {
  it('x509: a JWT whose x5c ends at a provider’s root is verified and names the provider; others are refused; purposes are kept apart', async () => {
    const { providers, trust, ctx, acme, other } = await setup();
    expect(await trust.any(acme.id, 'walletAttestation')).toBe(false);
    const a = await providers.create(ctx, { name: 'A', trustedFor: ['walletAttestations'], x509: [CA_A] });
    expect(await trust.any(acme.id, 'walletAttestation')).toBe(true);
    expect(await trust.any(acme.id, 'keyAttestation')).toBe(false);
    expect(await trust.any(other.id, 'walletAttestation')).toBe(false);

    const byA = jwt({ alg: 'ES256', x5c: ['c2lnbmVy', body(CA_A)] }, { sub: 'w' });
    expect(await trust.verify(acme.id, byA, asWallet)).toEqual({ ok: true, header: expect.any(Object), payload: { sub: 'w' }, providerId: a.id });
    expect(await trust.verify(acme.id, byA, asKey)).toEqual({ ok: false, reason: 'The tenant trusts no wallet provider for key attestations' });
    expect(await trust.verify(other.id, byA, asWallet)).toMatchObject({ ok: false });
    expect(await trust.verify(acme.id, jwt({ alg: 'ES256', x5c: [body(CA_B)] }), asWallet)).toEqual({ ok: false, reason: 'untrusted chain' });
    expect(await trust.verify(acme.id, jwt({ alg: 'ES256', x5c: [body(CA_A)] }, {}, 'forged'), asWallet)).toEqual({ ok: false, reason: 'bad signature' });
    expect(await trust.verify(acme.id, jwt({ alg: 'ES256' }), asWallet)).toEqual({ ok: false, reason: 'The JWT names neither an x5c chain nor a kid' });
    expect(await trust.verify(acme.id, 'not a jwt', asWallet)).toEqual({ ok: false, reason: 'Not a compact JWT' });
  });

  it('jwks: a JWT is checked with the key its kid names (without the kid member); an unknown kid or another key’s signature is refused', async () => {
    const { providers, trust, ctx, acme } = await setup();
    const p = await providers.create(ctx, { name: 'J', jwks: { keys: [{ ...P256, alg: 'ES256' }] } });
    expect(await trust.verify(acme.id, jwt({ alg: 'ES256', kid: 'k1' }, {}, `by-${P256.x}`), asKey)).toMatchObject({ ok: true, providerId: p.id });
    expect(await trust.verify(acme.id, jwt({ alg: 'ES256', kid: 'k2' }, {}, `by-${P256.x}`), asKey)).toEqual({
      ok: false,
      reason: 'The JWT is signed by no wallet provider the tenant trusts for key attestations',
    });
    expect(await trust.verify(acme.id, jwt({ alg: 'ES256', kid: 'k1' }, {}, 'by-someone'), asKey)).toEqual({ ok: false, reason: 'bad signature' });
    expect(await trust.verify(acme.id, jwt({ alg: 'EdDSA', kid: 'k1' }, {}, `by-${P256.x}`), asKey)).toEqual({
      ok: false,
      reason: 'The key k1 signs with ES256 only',
    });
  });

  it('a removed (or narrowed) provider is no longer trusted at once in this process; a change elsewhere within the cache time', async () => {
    const { providers, trust, ctx, acme, store, clock } = await setup();
    const p = await providers.create(ctx, { name: 'A', x509: [CA_A] });
    const token = jwt({ alg: 'ES256', x5c: [body(CA_A)] });
    expect(await trust.verify(acme.id, token, asWallet)).toMatchObject({ ok: true });
    await providers.delete(ctx, p.id);
    expect(await trust.any(acme.id, 'walletAttestation')).toBe(false);
    expect(await trust.verify(acme.id, token, asWallet)).toMatchObject({ ok: false });

    // Another server's change (straight to the store) is seen once the tenant's cache (5 s) has passed.
    const q = await providers.create(ctx, { name: 'B', x509: [CA_A] });
    expect(await trust.verify(acme.id, token, asWallet)).toMatchObject({ ok: true, providerId: q.id });
    await store.walletProviders.delete(acme.id, q.id);
    expect(await trust.verify(acme.id, token, asWallet)).toMatchObject({ ok: true });
    clock.advance(5001);
    expect(await trust.verify(acme.id, token, asWallet)).toMatchObject({ ok: false });
  });

  it('trusted list: its granted services’ certificates anchor x5c; cached for max-age within bounds, refetched on expiry; a failed fetch keeps the last list for the grace, then fails closed', async () => {
    const { providers, trust, ctx, acme, routes, http, clock } = await setup();
    const ca = makeTestWalletProvider('Listed');
    const withdrawn = makeTestWalletProvider('Withdrawn');
    const url = 'https://tl.example.com/wallet-providers.xml';
    routes.set(url, {
      body: trustedListXml([{ pem: ca.rootPem }, { pem: withdrawn.rootPem, status: 'withdrawn' }]),
      headers: { 'cache-control': 'public, max-age=60' },
    });
    const p = await providers.create(ctx, { name: 'L', trustedListUrl: url });
    const listed = jwt({ alg: 'ES256', x5c: [body(ca.rootPem)] });
    expect(await trust.verify(acme.id, listed, asWallet)).toMatchObject({ ok: true, providerId: p.id });
    expect(await trust.verify(acme.id, jwt({ alg: 'ES256', x5c: [body(withdrawn.rootPem)] }), asWallet)).toEqual({ ok: false, reason: 'untrusted chain' });
    expect(http.count(url)).toBe(1);

    // max-age=60 is raised to the lower bound.
    clock.advance(TRUSTED_LIST_TTL.minSeconds * 1000 - 1000);
    expect(await trust.verify(acme.id, listed, asWallet)).toMatchObject({ ok: true });
    expect(http.count(url)).toBe(1);
    clock.advance(2000);
    routes.set(url, 'error');
    expect(await trust.verify(acme.id, listed, asWallet)).toMatchObject({ ok: true });
    expect(http.count(url)).toBe(2);
    // Not asked again within a minute of the failure.
    expect(await trust.verify(acme.id, listed, asWallet)).toMatchObject({ ok: true });
    expect(http.count(url)).toBe(2);
    clock.advance(TRUSTED_LIST_GRACE_SECONDS * 1000);
    expect(await trust.verify(acme.id, listed, asWallet)).toEqual({ ok: false, reason: 'The trusted list could not be fetched: connection refused' });
    expect(http.count(url)).toBe(3);

    // A list back online is trusted again once asked (after the retry pause).
    routes.set(url, { body: trustedListXml([{ pem: ca.rootPem }]) });
    clock.advance(61_000);
    expect(await trust.verify(acme.id, listed, asWallet)).toMatchObject({ ok: true });
  });

  it('status list: a revoked or suspended entry refuses the JWT; a valid one passes; the list must be the same provider’s, and is cached for its ttl', async () => {
    const { providers, trust, ctx, acme, routes, http, clock } = await setup();
    const p = await providers.create(ctx, { name: 'A', x509: [CA_A] });
    await providers.create(ctx, { name: 'B', x509: [CA_B] });
    const uri = 'https://wp.example.com/status/1';
    const list = (statuses: number[], rootPem = CA_A, over: Record<string, unknown> = {}) =>
      jwt(
        { alg: 'ES256', typ: 'statuslist+jwt', x5c: [body(rootPem)] },
        { sub: uri, iat: 1, ttl: 600, status_list: { bits: 2, lst: lstOf(statuses) }, ...over },
      );
    // Entries 0..3 of two bits each in one byte: valid, revoked, suspended, valid.
    routes.set(uri, { body: list([0b00_10_01_00]) });
    const attestation = (idx: number) => jwt({ alg: 'ES256', x5c: [body(CA_A)] }, { status: { status_list: { idx, uri } } });
    expect(await trust.verify(acme.id, attestation(0), asWallet)).toMatchObject({ ok: true, providerId: p.id });
    expect(await trust.verify(acme.id, attestation(1), asWallet)).toEqual({ ok: false, reason: 'The wallet provider has revoked this attestation' });
    expect(await trust.verify(acme.id, attestation(2), asWallet)).toEqual({ ok: false, reason: 'The wallet provider has suspended this attestation' });
    expect(await trust.verify(acme.id, attestation(3), asWallet)).toMatchObject({ ok: true });
    expect(await trust.verify(acme.id, attestation(4), asWallet)).toEqual({ ok: false, reason: 'The status list has no entry at idx' });
    expect(http.count(uri)).toBe(1);

    // Revoked later: seen once the list's ttl (600 s, within bounds) has passed.
    routes.set(uri, { body: list([0b00_10_01_01]) });
    clock.advance(599_000);
    expect(await trust.verify(acme.id, attestation(0), asWallet)).toMatchObject({ ok: true });
    clock.advance(2000);
    expect(await trust.verify(acme.id, attestation(0), asWallet)).toMatchObject({ ok: false, reason: 'The wallet provider has revoked this attestation' });
    expect(http.count(uri)).toBe(2);
    expect(STATUS_LIST_TTL.maxSeconds).toBeGreaterThanOrEqual(600);

    // A list signed under another provider's root, for another URI, of another typ, or expired: the JWT is refused.
    const refusedWith = async (served: string, reason: string) => {
      routes.set(uri, { body: served });
      clock.advance(STATUS_LIST_TTL.maxSeconds * 1000 + 1);
      expect(await trust.verify(acme.id, attestation(3), { ...asWallet, at: clock.now() })).toEqual({ ok: false, reason });
    };
    await refusedWith(list([0], CA_B), 'The status list is not signed by the wallet provider: untrusted chain');
    await refusedWith(list([0], CA_A, { sub: 'https://elsewhere.example.com/1' }), 'The status list names another URI (sub)');
    await refusedWith(list([0], CA_A, { exp: Math.floor(clock.now().getTime() / 1000) }), 'The status list has expired');
    await refusedWith(
      jwt({ alg: 'ES256', x5c: [body(CA_A)] }, { sub: uri, status_list: { bits: 1, lst: lstOf([0]) } }),
      'The status list must have typ statuslist+jwt',
    );
    routes.set(uri, 'error');
    clock.advance(STATUS_LIST_TTL.maxSeconds * 1000 + 1);
    expect(await trust.verify(acme.id, attestation(3), asWallet)).toEqual({ ok: false, reason: 'The status list could not be fetched: connection refused' });
    expect(await trust.verify(acme.id, jwt({ alg: 'ES256', x5c: [body(CA_A)] }, { status: { status_list: { idx: -1, uri } } }), asWallet)).toEqual({
      ok: false,
      reason: 'status.status_list must have an integer idx and an https uri',
    });
  });

  it('without outbound HTTP or an inflater, a JWT that names a status list is refused, and one that names none still passes', async () => {
    const store = createMemoryStore();
    const clock = fakeClock('2026-05-01T12:00:00.000Z');
    const trust = createWalletProviderTrust({ store, clock, verifier: fakeVerifier() });
    const tenant: Tenant = { id: 't', subdomain: 't', region: 'eu01', name: 't', loggingLevel: 3, createdAt: clock.now().toISOString() };
    await store.tenants.insert(tenant);
    const now = clock.now().toISOString();
    await store.walletProviders.insert(
      {
        tenantId: 't',
        id: '0190a000-0000-7000-8000-000000000001',
        name: 'A',
        trustedFor: ['walletAttestations'],
        x509: [CA_A],
        createdAt: now,
        updatedAt: now,
      },
      20,
    );
    expect(await trust.verify('t', jwt({ alg: 'ES256', x5c: [body(CA_A)] }), asWallet)).toMatchObject({ ok: true });
    const named = jwt({ alg: 'ES256', x5c: [body(CA_A)] }, { status: { status_list: { idx: 0, uri: 'https://wp.example.com/s' } } });
    expect(await trust.verify('t', named, asWallet)).toEqual({ ok: false, reason: 'The status of this attestation cannot be checked here' });
  });
});

describe('reading ETSI TS 119 612 trusted lists', () => {
  const ca = makeTestWalletProvider('Reader');
  const read = (xml: string) => readTrustedList(new TextEncoder().encode(xml));

  it('takes the certificates of granted services’ current identities only, as PEM', () => {
    const xml = trustedListXml([{ pem: ca.rootPem }, { pem: ca.signerPem, status: 'withdrawn' }]);
    expect(read(xml)).toEqual({ ok: true, certificates: [expect.stringMatching(/^-----BEGIN CERTIFICATE-----\n/)] });
    const got = read(xml);
    expect(got.ok && body(got.certificates[0] as string)).toBe(body(ca.rootPem));
    // The list's own signature carries a certificate too: it anchors nothing.
    const signed = xml.replace(
      '</tsl:TrustServiceStatusList>',
      `<ds:Signature><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${body(ca.signerPem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></ds:Signature></tsl:TrustServiceStatusList>`,
    );
    expect(read(signed)).toEqual(read(xml));
  });

  it('refuses a DTD, another root, bad nesting, text outside the root and a certificate that is not base64', () => {
    const xml = trustedListXml([{ pem: ca.rootPem }]);
    expect(read(xml.replace('<!-- A test list -->', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/DTD/),
    });
    expect(read('<List><X509Certificate>AAAA</X509Certificate></List>')).toEqual({
      ok: false,
      reason: 'Not an ETSI TS 119 612 trusted list (root TrustServiceStatusList)',
    });
    expect(read(xml.replace('</tsl:DigitalId>', ''))).toEqual({ ok: false, reason: 'The trusted list is not well-formed XML' });
    expect(read(`${xml}<more/>`)).toMatchObject({ ok: false });
    expect(read(`${xml} trailing`)).toMatchObject({ ok: false });
    expect(read(xml.replace(/<tsl:X509Certificate>[^<]*</, '<tsl:X509Certificate>not*base64<'))).toEqual({
      ok: false,
      reason: 'The trusted list holds an X509Certificate that is not base64',
    });
    expect(readTrustedList(new Uint8Array([0xff, 0xfe]))).toEqual({ ok: false, reason: 'The trusted list is not UTF-8' });
  });

  it('reads Cache-Control max-age; no-store and no-cache are 0', () => {
    expect(maxAgeOf('public, max-age=600')).toBe(600);
    expect(maxAgeOf('no-cache, max-age=600')).toBe(0);
    expect(maxAgeOf('private')).toBeUndefined();
    expect(maxAgeOf(undefined)).toBeUndefined();
  });
});
