import { describe, expect, it } from 'vitest';
import { contextFor, harness } from '../../test/harness.ts';
import { fakeClock, fakeIds } from '../../test/kit.ts';
import { decodeCursor, encodeCursor, parsePageQuery } from '../shared/pagination.ts';
import { createEventRecorder, maskSecrets } from './recorder.ts';

describe('cursor pagination (docs/decisions.md "Pagination", docs/limits.md)', () => {
  it('defaults to 100, caps at 1000 and refuses nonsense', () => {
    expect(parsePageQuery({})).toEqual({ limit: 100 });
    expect(parsePageQuery({ limit: 1000, cursor: encodeCursor(7) })).toEqual({ limit: 1000, after: 7 });
    for (const limit of [0, 1001, 1.5]) expect(() => parsePageQuery({ limit })).toThrow(expect.objectContaining({ code: 'BadRequest' }));
  });

  it.each(['', 'abc', '!!!!', encodeCursor(5).slice(1), 'djEuLTE', 'x'.repeat(41)])('refuses the malformed cursor %j with a query detail', (cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(
      expect.objectContaining({ code: 'BadRequest', details: [expect.objectContaining({ param: 'cursor', location: 'query' })] }),
    );
  });

  it('pages through events, the last (short) page without a cursor', async () => {
    const h = harness();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    const ctx = contextFor(tenant);
    for (let i = 0; i < 3; i++) await h.domains.get(ctx).catch(() => undefined);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await h.analytics.listEvents(ctx, {
        limit: 4,
        types: 'CONFIG_CUSTOM_DOMAIN_RETRIEVE_START,CONFIG_CUSTOM_DOMAIN_RETRIEVE_FAIL',
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.data.map((e) => e.id));
      // Six events in pages of four: a full page with a cursor, then two without one.
      expect(page.nextCursor === undefined).toBe(page.data.length < 4);
      if (page.nextCursor === undefined) break;
      cursor = page.nextCursor;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  it('validates event filters', async () => {
    const h = harness();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    await expect(h.analytics.listEvents(contextFor(tenant), { dateFrom: 'yesterday' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'dateFrom', location: 'query' }],
    });
  });
});

describe('event recorder (docs/decisions.md "Analytic events")', () => {
  async function tenantAt(level: 1 | 2 | 3) {
    const h = harness();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    await h.store.tenants.setLoggingLevel(tenant.id, level);
    const at = (await h.store.tenants.findById(tenant.id))!;
    return { ...h, ctx: contextFor(at) };
  }

  it('keeps no personal data at level 1, metadata at 2, masked payloads at 3', async () => {
    for (const level of [1, 2, 3] as const) {
      const h = await tenantAt(level);
      await h.domains.create(h.ctx, { domain: 'issuer.example.com', name: 'Acme' });
      await h.recorder.flush();
      const success = (await h.store.events.list(h.ctx.tenant.id, { types: ['CONFIG_CUSTOM_DOMAIN_CREATE_SUCCESS'] }, { limit: 1 })).items[0];
      if (level === 1) expect(success?.data).toBeUndefined();
      if (level === 2) expect(success?.data).toEqual({ domain: 'issuer.example.com', isVerified: false });
      if (level === 3) {
        expect(success?.data).toMatchObject({ domain: 'issuer.example.com', payload: { request: { domain: 'issuer.example.com', name: 'Acme' } } });
        // The verification token is a secret-looking field: stored masked.
        expect(JSON.stringify(success?.data)).not.toContain('vellum-domain-verification=');
      }
    }
  });

  it('masks secrets at any depth', () => {
    expect(maskSecrets({ a: { client_secret: 's', list: [{ access_token: 't', ok: 1 }] }, name: 'n' })).toEqual({
      a: { client_secret: '***', list: [{ access_token: '***', ok: 1 }] },
      name: 'n',
    });
  });

  it('writes in batches and keeps a batch that failed for the next flush', async () => {
    const written: number[] = [];
    let fail = true;
    const errors: unknown[] = [];
    const recorder = createEventRecorder({
      clock: fakeClock(),
      ids: fakeIds(),
      batchSize: 1000,
      onError: (e) => errors.push(e),
      events: {
        insertMany: async (batch) => {
          if (fail) throw new Error('database down');
          written.push(batch.length);
        },
      },
    });
    const h = harness();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    for (let i = 0; i < 5; i++) recorder.record(contextFor(tenant), 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', 'START');
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(recorder.pending()).toBe(5);
    fail = false;
    recorder.record(contextFor(tenant), 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', 'START');
    await recorder.flush();
    expect(written).toEqual([6]);
    expect(recorder.pending()).toBe(0);
  });

  it('stamps requestor, IP, request id and user agent on each event', async () => {
    const h = harness();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    const ctx = { ...contextFor(tenant, 'issuer'), userAgent: 'curl/8' };
    h.recorder.record(ctx, 'CONFIG_CUSTOM_DOMAIN_VERIFY', 'START');
    await h.recorder.flush();
    const [event] = (await h.store.events.list(tenant.id, {}, { limit: 1 })).items;
    expect(event).toMatchObject({
      type: 'CONFIG_CUSTOM_DOMAIN_VERIFY_START',
      category: 'custom-domain',
      tenantId: tenant.id,
      requestId: ctx.requestId,
      requestIp: '192.0.2.1',
      clientId: 'client-issuer',
      userAgent: 'curl/8',
      timestamp: '2026-05-01T12:00:00.000Z',
    });
  });
});
