import { describe, expect, it, vi } from 'vitest';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';
import { createMemoryStore, fakeClock } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from '../offers/uri.ts';
import { createAdminTokenLimiter, createParLimiter, createTxCodeLimiter } from './limiters.ts';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings, windowStartOf } from './model.ts';

const LIMITS: RateLimitSettings = { adminTokenPerClient: 10, adminTokenPerIp: 15, txCodePerIp: 4, parPerClientIp: 5, windowSeconds: 300 };

describe('rate-limit windows', () => {
  it('fixed windows start at whole multiples of their length since the epoch', () => {
    expect(windowStartOf(300_000, new Date('2026-05-01T12:04:59.999Z')).toISOString()).toBe('2026-05-01T12:00:00.000Z');
    expect(windowStartOf(300_000, new Date('2026-05-01T12:05:00.000Z')).toISOString()).toBe('2026-05-01T12:05:00.000Z');
  });

  it('limits of 0 turn a limiter off', () => {
    const deps = {
      repository: createMemoryStore().rateLimits,
      clock: fakeClock(),
      settings: { ...DEFAULT_RATE_LIMITS, adminTokenPerClient: 0, adminTokenPerIp: 0, txCodePerIp: 0, parPerClientIp: 0 },
    };
    expect(createAdminTokenLimiter(deps)).toBeUndefined();
    expect(createTxCodeLimiter(deps)).toBeUndefined();
    expect(createParLimiter(deps)).toBeUndefined();
  });
});

describe('admin POST /oauth/token limits (hardening issue 5: failed requests per client id and per IP, 429 with Retry-After)', () => {
  async function setup(settings: RateLimitSettings = LIMITS) {
    const h = harness({ rateLimits: settings });
    const acme = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    const audience = `https://acme.eu01.${PLATFORM}`;
    const request = (over: Record<string, unknown> = {}) => ({
      grant_type: 'client_credentials',
      client_id: acme.client.clientId,
      client_secret: acme.clientSecret,
      audience,
      ...over,
    });
    const caller = (ip: string) => ({ requestId: `r-${ip}`, ip });
    return { ...h, acme, request, caller };
  }

  it('refuses the 11th failed request for a client id with TooManyRequests, before the client is read or its secret hashed, and the right secret too until the window ends', async () => {
    const { auth, store, clock, request, caller } = await setup();
    for (let i = 0; i < 10; i++) {
      // From different addresses: the client id's own limit is what trips.
      expect(await refusal(auth.issueToken(request({ client_secret: 'wrong' }), caller(`198.51.100.${i}`)))).toMatchObject({ code: 'Unauthorized' });
    }
    const lookups = vi.spyOn(store.clients, 'findByClientId');
    const refused = await refusal(auth.issueToken(request({ client_secret: 'wrong' }), caller('203.0.113.9')));
    expect(refused).toMatchObject({ code: 'TooManyRequests', oauthError: 'invalid_request', retryAfterSeconds: 300 });
    expect(await refusal(auth.issueToken(request(), caller('203.0.113.9')))).toMatchObject({ code: 'TooManyRequests' });
    expect(lookups).not.toHaveBeenCalled();
    // The clock starts on a window boundary (12:00): the next window begins 300 s later.
    clock.advance(299_000);
    expect(await refusal(auth.issueToken(request(), caller('203.0.113.9')))).toMatchObject({ code: 'TooManyRequests', retryAfterSeconds: 1 });
    clock.advance(1_000);
    expect((await auth.issueToken(request(), caller('203.0.113.9'))).response.token_type).toBe('Bearer');
  });

  it('refuses a source IP after its failed requests across client ids, whatever client id it names next', async () => {
    const { auth, request, caller } = await setup();
    for (let i = 0; i < 15; i++) await refusal(auth.issueToken(request({ client_id: `guess-${i}` }), caller('203.0.113.7')));
    expect(await refusal(auth.issueToken(request(), caller('203.0.113.7')))).toMatchObject({ code: 'TooManyRequests' });
    // Another address, and a call without one (not HTTP), are not held back by that IP's count.
    expect((await auth.issueToken(request(), caller('203.0.113.8'))).response.token_type).toBe('Bearer');
    expect((await auth.issueToken(request())).response.token_type).toBe('Bearer');
  });

  it('does not count requests with the right credentials', async () => {
    const { auth, request, caller } = await setup();
    for (let i = 0; i < 30; i++) await auth.issueToken(request(), caller('203.0.113.5'));
    for (let i = 0; i < 10; i++)
      expect(await refusal(auth.issueToken(request({ client_secret: 'wrong' }), caller('203.0.113.5')))).toMatchObject({ code: 'Unauthorized' });
    expect(await refusal(auth.issueToken(request({ client_secret: 'wrong' }), caller('203.0.113.5')))).toMatchObject({ code: 'TooManyRequests' });
  });

  it('applies no limit when its setting is 0', async () => {
    const { auth, request, caller } = await setup({ ...LIMITS, adminTokenPerClient: 0, adminTokenPerIp: 0 });
    for (let i = 0; i < 25; i++) await refusal(auth.issueToken(request({ client_secret: 'wrong' }), caller('203.0.113.4')));
    expect((await auth.issueToken(request(), caller('203.0.113.4'))).response.token_type).toBe('Bearer');
  });
});

describe('wrong transaction codes per tenant and IP across offers (hardening issue 5, issue 26 point 6; OpenID4VCI 1.0 §6 tx_code)', () => {
  async function setup(settings: RateLimitSettings = LIMITS) {
    const h = harness({ rateLimits: settings });
    /** A tenant with one mDL configuration: its offers and its token requests. */
    async function tenantWithOffers(subdomain: string) {
      const { tenant } = await h.tenants.createTenant({ subdomain, region: 'eu01' });
      const admin = contextFor(tenant);
      const config = await h.configurations.create(admin, 'mso_mdoc', {
        type: 'org.iso.18013.5.1.mDL',
        expiresIn: { days: 365 },
        claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
      });
      const offer = async () => {
        const created = await h.offers.createPreAuthorizedOffer(admin, {
          credentials: [config.id],
          claims: { familyName: 'Lovelace' },
          transactionCodeConfiguration: { inputMode: 'numeric', length: 6 },
          expiresIn: { minutes: 10 },
        });
        const code = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT][
          'pre-authorized_code'
        ] as string;
        const wrong = created.transactionCode === '000000' ? '111111' : '000000';
        return { ...created, code, wrong };
      };
      const from = (ip: string) => ({ ...contextFor(tenant, null), ip });
      const token = (ip: string, form: Record<string, unknown>) => h.tokenEndpoint.token(from(ip), { grant_type: PRE_AUTHORIZED_CODE_GRANT, ...form });
      return { offer, token };
    }
    const acme = await tenantWithOffers('acme');
    return { ...h, ...acme, tenantWithOffers };
  }

  it('after the limit of wrong codes from one IP, its next code is refused with TooManyRequests before it is tried (the offer keeps its attempts)', async () => {
    const { offer, token, clock } = await setup();
    for (let i = 0; i < 4; i++) {
      const o = await offer();
      expect(await refusal(token('203.0.113.1', { 'pre-authorized_code': o.code, tx_code: o.wrong }))).toMatchObject({ oauthError: 'invalid_grant' });
    }
    const target = await offer();
    const refused = await refusal(token('203.0.113.1', { 'pre-authorized_code': target.code, tx_code: target.wrong }));
    expect(refused).toMatchObject({ code: 'TooManyRequests', oauthError: 'invalid_request', retryAfterSeconds: 300 });
    // Even the right code: an address that guessed too often learns nothing more until the window ends.
    expect(await refusal(token('203.0.113.1', { 'pre-authorized_code': target.code, tx_code: target.transactionCode }))).toMatchObject({
      code: 'TooManyRequests',
    });
    // Other addresses are not held back, and a request without tx_code is not a guess.
    const other = await offer();
    expect(await refusal(token('203.0.113.2', { 'pre-authorized_code': other.code, tx_code: other.wrong }))).toMatchObject({
      message: 'The transaction code is wrong (2 attempts left)',
    });
    clock.advance(300_000);
    // The refused guesses were never tried: the offer still has all three attempts.
    expect(await refusal(token('203.0.113.1', { 'pre-authorized_code': target.code, tx_code: target.wrong }))).toMatchObject({
      message: 'The transaction code is wrong (2 attempts left)',
    });
    expect((await token('203.0.113.1', { 'pre-authorized_code': target.code, tx_code: target.transactionCode })).token_type).toBe('Bearer');
  });

  it("wrong codes at one tenant do not hold back another tenant's wallets behind the same address (a carrier NAT)", async () => {
    const { offer, token, tenantWithOffers } = await setup();
    const globex = await tenantWithOffers('globex');
    for (let i = 0; i < 4; i++) {
      const o = await offer();
      await refusal(token('198.51.100.20', { 'pre-authorized_code': o.code, tx_code: o.wrong }));
    }
    const blocked = await offer();
    expect(await refusal(token('198.51.100.20', { 'pre-authorized_code': blocked.code, tx_code: blocked.transactionCode }))).toMatchObject({
      code: 'TooManyRequests',
    });
    // The same address at the other tenant: a wrong code is only a wrong code, and the right one works.
    const theirs = await globex.offer();
    expect(await refusal(globex.token('198.51.100.20', { 'pre-authorized_code': theirs.code, tx_code: theirs.wrong }))).toMatchObject({
      message: 'The transaction code is wrong (2 attempts left)',
    });
    expect((await globex.token('198.51.100.20', { 'pre-authorized_code': theirs.code, tx_code: theirs.transactionCode })).token_type).toBe('Bearer');
  });

  it('a right transaction code costs no rate-limit call: the happy path stays as it was', async () => {
    const { offer, token, store } = await setup();
    const calls = [vi.spyOn(store.rateLimits, 'hit'), vi.spyOn(store.rateLimits, 'release'), vi.spyOn(store.rateLimits, 'deleteExpired')];
    const o = await offer();
    expect((await token('203.0.113.3', { 'pre-authorized_code': o.code, tx_code: o.transactionCode })).token_type).toBe('Bearer');
    for (const spy of calls) expect(spy).not.toHaveBeenCalled();
  });

  it('counts in the shared store: a second process lets at most one more guess through, then refuses too', async () => {
    const repository = createMemoryStore().rateLimits;
    const clock = fakeClock('2026-05-01T12:00:00.000Z');
    const [a, b] = [createTxCodeLimiter({ repository, clock, settings: LIMITS }), createTxCodeLimiter({ repository, clock, settings: LIMITS })];
    if (!a || !b) throw new Error('limits are on');
    for (let i = 0; i < 4; i++) await a.wrong('tenant-a', '203.0.113.6');
    expect(() => a.check('tenant-a', '203.0.113.6')).toThrow(expect.objectContaining({ code: 'TooManyRequests' }));
    // b has not seen the address reach the limit; its first wrong code there finds the shared count over it.
    expect(() => b.check('tenant-a', '203.0.113.6')).not.toThrow();
    await expect(b.wrong('tenant-a', '203.0.113.6')).rejects.toMatchObject({ code: 'TooManyRequests', retryAfterSeconds: 300 });
    expect(() => b.check('tenant-a', '203.0.113.6')).toThrow(expect.objectContaining({ code: 'TooManyRequests' }));
    // Another tenant's count from the same address is its own, in the store and in each process.
    expect(() => a.check('tenant-b', '203.0.113.6')).not.toThrow();
    await expect(b.wrong('tenant-b', '203.0.113.6')).resolves.toBeUndefined();
    clock.advance(300_000);
    expect(() => a.check('tenant-a', '203.0.113.6')).not.toThrow();
  });
});
