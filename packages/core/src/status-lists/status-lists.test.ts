import { describe, expect, it } from 'vitest';
import { contextFor, withTenant } from '../../test/harness.ts';
import { fakeStatusListTokenSigner, readFakeStatusListToken } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import type { MdocConfiguration } from '../configurations/model.ts';
import type { DomainEvent } from '../shared/ports.ts';
import { createIssuingChains } from '../mdoc-pki/signers.ts';
import { packStatuses } from './bits.ts';
import { createStatusListService } from './service.ts';
import { shuffledIndex, shuffleKeyWords } from './shuffle.ts';

const key = (seed: number) => shuffleKeyWords(Uint8Array.from({ length: 16 }, (_, i) => (seed * 31 + i * 7) & 0xff));

describe('the index shuffle (IETF Token Status List §12.3: indexes that do not tell issuance order)', () => {
  it('is a permutation of [0, size): every index once', () => {
    for (const size of [1, 2, 3, 17, 1000, 4097]) {
      const seen = new Set(Array.from({ length: size }, (_, p) => shuffledIndex(p, size, key(size))));
      expect(seen.size, String(size)).toBe(size);
      expect(Math.max(...seen)).toBe(size - 1);
    }
  });

  it('scatters a 500,000-entry list: the first 20,000 positions give 20,000 distinct indexes all over it, in no order', () => {
    const words = key(1);
    const indexes = Array.from({ length: 20_000 }, (_, p) => shuffledIndex(p, 500_000, words));
    expect(new Set(indexes).size).toBe(20_000);
    expect(indexes.every((i) => i >= 0 && i < 500_000)).toBe(true);
    const ascending = indexes.slice(1).filter((v, i) => v > (indexes[i] as number)).length;
    expect(ascending / indexes.length).toBeGreaterThan(0.4);
    expect(ascending / indexes.length).toBeLessThan(0.6);
    expect(Math.min(...indexes)).toBeLessThan(1000);
    expect(Math.max(...indexes)).toBeGreaterThan(499_000);
    // Another key, another order.
    expect(Array.from({ length: 20 }, (_, p) => shuffledIndex(p, 500_000, key(2)))).not.toEqual(indexes.slice(0, 20));
  });

  it('refuses a position outside the list', () => {
    expect(() => shuffledIndex(10, 10, key(3))).toThrow(/outside/);
    expect(() => shuffledIndex(-1, 10, key(3))).toThrow(/outside/);
  });
});

describe('status bits (IETF Token Status List §4.1)', () => {
  it('packs entry i at byte i·bits/8 from its least significant bit', () => {
    expect([
      ...packStatuses(16, 1, [
        { idx: 0, status: 'invalid' },
        { idx: 9, status: 'invalid' },
      ]),
    ]).toEqual([0b0000_0001, 0b0000_0010]);
    expect([
      ...packStatuses(8, 2, [
        { idx: 1, status: 'invalid' },
        { idx: 3, status: 'suspended' },
        { idx: 4, status: 'invalid' },
      ]),
    ]).toEqual([0b1000_0100, 0b0000_0001]);
    expect(packStatuses(500_000, 1, []).length).toBe(62_500);
    expect(() => packStatuses(8, 1, [{ idx: 1, status: 'suspended' }])).toThrow(/cannot hold/);
  });
});

const DOCTYPE = 'org.iso.18013.5.1.mDL';
const ORIGIN = 'https://acme.eu01.vellum.test';

async function setup(listSize?: number) {
  const h = await withTenant();
  const { tenant, ctx: admin } = h;
  await h.iacas.update(admin, (await h.iacas.create(admin, { country: 'US' })).id, { active: true });
  const tokens = fakeStatusListTokenSigner(h.keys);
  const ids = { uuid: () => crypto.randomUUID(), token: () => '', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) };
  const chains = createIssuingChains({ store: h.store, clock: h.clock, ids, keys: h.keys, x509: h.x509 });
  const published: DomainEvent[] = [];
  const statusLists = createStatusListService({
    store: h.store,
    clock: h.clock,
    ids,
    events: h.recorder,
    chains,
    tokens,
    tokenStatusLists: h.tokenStatusLists,
    revocationLists: h.revocationLists,
    domainEvents: { publish: async (_tx, event) => void published.push(event) },
    ...(listSize ? { listSize } : {}),
  });
  const configuration: MdocConfiguration = {
    id: crypto.randomUUID(),
    tenantId: tenant.id,
    format: 'mso_mdoc',
    type: DOCTYPE,
    expiresIn: { days: 365 },
    includeStatus: true,
    claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
    createdAt: '2026-05-01T12:00:00.000Z',
    updatedAt: '2026-05-01T12:00:00.000Z',
  };
  /** A new credential of `format`, recorded with its list entry as the credential endpoint records them; its id. */
  async function recordOn(entry: { listId: string; idx: number }, format: 'mso_mdoc' | 'cwt' = 'mso_mdoc', credentialConfigurationId = configuration.id) {
    const credentialId = crypto.randomUUID();
    await h.store.issuedCredentials.insert({
      id: credentialId,
      tenantId: tenant.id,
      format,
      credentialConfigurationId,
      userId: crypto.randomUUID(),
      issuedAt: '2026-05-01T12:00:00.000Z',
      validFrom: '2026-05-01T12:00:00.000Z',
      validUntil: '2027-05-01T12:00:00.000Z',
      status: 'valid',
      notificationId: crypto.randomUUID(),
    });
    await h.store.statusLists.insertEntry({
      tenantId: tenant.id,
      listId: entry.listId,
      idx: entry.idx,
      credentialId,
      status: 'valid',
      updatedAt: '2026-05-01T12:00:00.000Z',
    });
    return credentialId;
  }
  /** An entry recorded for a new credential id, as the credential endpoint records it. */
  async function issued(docType = DOCTYPE) {
    const entry = await statusLists.allocate(tenant, docType, ORIGIN);
    return { credentialId: await recordOn(entry), ...entry };
  }
  const wallet = { ...contextFor(tenant, null), origin: ORIGIN };
  const bitOf = (token: Uint8Array, idx: number) => {
    const read = readFakeStatusListToken(token);
    const bit = idx * read.bits;
    return ((read.statuses[bit >> 3] as number) >> (bit & 7)) & (2 ** read.bits - 1);
  };
  return { ...h, tenant, admin, wallet, statusLists, tokens, configuration, recordOn, issued, bitOf, published };
}

describe('mDoc status lists (docs/status-lists.md)', () => {
  it('revokes a credential: its bit is set in the next token, another credential’s stays valid, and revocation is final', async () => {
    const s = await setup();
    const [a, b] = [await s.issued(), await s.issued()];
    expect(a.listId).toBe(b.listId);
    expect(a.idx).not.toBe(b.idx);
    expect(a).toMatchObject({ field: 'status', uri: `${ORIGIN}/v2/credentials/mobile/status-lists/${a.listId}/token` });
    expect(await s.statusLists.getStatus(s.admin, a.credentialId)).toEqual({ status: 'valid' });

    const before = await s.statusLists.token(s.wallet, a.listId);
    expect(before.mediaType).toBe('application/statuslist+cwt');
    expect([s.bitOf(before.body, a.idx), s.bitOf(before.body, b.idx)]).toEqual([0, 0]);
    expect(readFakeStatusListToken(before.body)).toMatchObject({ format: 'draft-14', bits: 1, uri: a.uri, ttlSeconds: 3600 });

    expect(await s.statusLists.setStatus(s.admin, a.credentialId, { status: 'invalid' })).toEqual({ status: 'invalid' });
    const after = await s.statusLists.token(s.wallet, a.listId);
    expect([s.bitOf(after.body, a.idx), s.bitOf(after.body, b.idx)]).toEqual([1, 0]);
    expect((await s.store.issuedCredentials.get(s.tenant.id, a.credentialId))?.status).toBe('invalid');
    // Told to webhooks, in the transaction of the change.
    expect(s.published.map((e) => ({ type: e.type, payload: e.payload }))).toEqual([
      {
        type: 'CredentialStatusUpdated',
        payload: expect.objectContaining({ credentialId: a.credentialId, format: 'mso_mdoc', status: 'invalid', previousStatus: 'valid' }),
      },
    ]);

    await expect(s.statusLists.setStatus(s.admin, a.credentialId, { status: 'valid' })).rejects.toMatchObject({ code: 'Conflict' });
    // Draft 14 lists have no suspension.
    await expect(s.statusLists.setStatus(s.admin, b.credentialId, { status: 'suspended' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'status' }],
    });
  });

  it('signs a token once and serves it until the list changes', async () => {
    const s = await setup();
    const a = await s.issued();
    const first = await s.statusLists.token(s.wallet, a.listId);
    const again = await s.statusLists.token(s.wallet, a.listId);
    expect(again.body).toEqual(first.body);
    expect(s.tokens.inputs).toHaveLength(1);
    await s.statusLists.setStatus(s.admin, a.credentialId, { status: 'invalid' });
    await s.statusLists.token(s.wallet, a.listId);
    expect(s.tokens.inputs).toHaveLength(2);
    // And again once the kept token would expire within a verifier's ttl.
    s.clock.advance(23 * 3600 * 1000 + 1000);
    await s.statusLists.token(s.wallet, a.listId);
    expect(s.tokens.inputs).toHaveLength(3);
  });

  it('legacy lists (configured per docType) hold two bits: suspend, reinstate, then revoke', async () => {
    const s = await setup();
    const created = await s.statusLists.createConfiguration(s.admin, {
      docType: DOCTYPE,
      format: 'legacy',
      timeToLiveDuration: { minutes: 10 },
      expiryDuration: { hours: 12 },
    });
    expect(created).toMatchObject({ id: expect.any(String), docType: DOCTYPE, format: 'legacy' });
    const a = await s.issued();
    expect(a.field).toBe('_status');
    await s.statusLists.setStatus(s.admin, a.credentialId, { status: 'suspended' });
    let token = await s.statusLists.token(s.wallet, a.listId);
    expect(token.mediaType).toBe('application/mattr-statuslist+cwt');
    expect(readFakeStatusListToken(token.body)).toMatchObject({ format: 'legacy', bits: 2, ttlSeconds: 600 });
    expect(s.bitOf(token.body, a.idx)).toBe(2);
    await s.statusLists.setStatus(s.admin, a.credentialId, { status: 'valid' });
    expect(s.bitOf((await s.statusLists.token(s.wallet, a.listId)).body, a.idx)).toBe(0);
    await s.statusLists.setStatus(s.admin, a.credentialId, { status: 'invalid' });
    token = await s.statusLists.token(s.wallet, a.listId);
    expect(s.bitOf(token.body, a.idx)).toBe(1);
  });

  it('opens a new list when one is full, and the distribution names every list by format', async () => {
    const s = await setup(3);
    const entries = [await s.issued(), await s.issued(), await s.issued(), await s.issued()];
    const lists = [...new Set(entries.map((e) => e.listId))];
    expect(lists).toHaveLength(2);
    expect(new Set(entries.slice(0, 3).map((e) => e.idx))).toEqual(new Set([0, 1, 2]));
    expect(await s.statusLists.distribution(s.wallet, {})).toEqual(lists.map((id) => `${ORIGIN}/v2/credentials/mobile/status-lists/${id}/token`));
    await s.statusLists.createConfiguration(s.admin, { docType: 'org.example.card', format: 'legacy' });
    const legacy = await s.issued('org.example.card');
    expect(await s.statusLists.distribution(s.wallet, { format: 'legacy' })).toEqual([{ uri: legacy.uri }]);
    await expect(s.statusLists.distribution(s.wallet, { format: 'v2' })).rejects.toMatchObject({ code: 'BadRequest' });
  });

  it('answers 404 for another tenant’s list or credential, and for ids that are not UUIDs', async () => {
    const s = await setup();
    const a = await s.issued();
    const { tenant: other } = await s.tenants.createTenant({ subdomain: 'other', region: 'eu01' });
    await expect(s.statusLists.token({ ...contextFor(other, null), origin: ORIGIN }, a.listId)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(s.statusLists.token(s.wallet, 'nope')).rejects.toMatchObject({ code: 'NotFound' });
    await expect(s.statusLists.getStatus(contextFor(other), a.credentialId)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(s.statusLists.setStatus(s.admin, 'nope', { status: 'invalid' })).rejects.toMatchObject({ code: 'BadRequest' });
    await expect(s.statusLists.setStatus(s.admin, a.credentialId, { status: 'revoked' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'status' }],
    });
    await expect(s.statusLists.setStatus(s.admin, a.credentialId, { status: 'invalid', reason: 'x' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'reason' }],
    });
    // Another format's credential and list are as good as absent on the mDoc paths, and out of the mDoc distribution.
    const did = (await s.dids.create(s.admin, { method: 'key', options: { keyType: 'P-256' } })).did;
    const cwtEntry = await s.statusLists.allocateReferenced(s.tenant, 'token-cwt', did, ORIGIN);
    const cwtId = await s.recordOn(cwtEntry, 'cwt', crypto.randomUUID());
    await expect(s.statusLists.setStatus(s.admin, cwtId, { status: 'invalid' })).rejects.toMatchObject({ code: 'NotFound' });
    await expect(s.statusLists.token(s.wallet, cwtEntry.listId)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(s.statusLists.getRevocation(s.admin, 'web-semantic', cwtId)).rejects.toMatchObject({ code: 'NotFound' });
    expect(await s.statusLists.getRevocation(s.admin, 'compact', cwtId)).toEqual({ isRevoked: false });
    expect(await s.statusLists.distribution(s.wallet, {})).toEqual([a.uri]);
  });

  it('checks configurations whole, one per docType, and keeps them per tenant', async () => {
    const s = await setup();
    const bad = await refusal(
      s.statusLists.createConfiguration(s.admin, { docType: '', format: 'v3', timeToLiveDuration: { days: 2 }, expiryDuration: { weeks: 'one' } }),
    );
    expect(bad.details?.map((d) => d.param).sort()).toEqual(['docType', 'expiryDuration', 'expiryDuration.weeks', 'format']);
    const longTtl = await refusal(
      s.statusLists.createConfiguration(s.admin, { docType: DOCTYPE, timeToLiveDuration: { days: 2 }, expiryDuration: { days: 1 } }),
    );
    expect(longTtl.details?.map((d) => d.param)).toEqual(['timeToLiveDuration']);
    const made = await s.statusLists.createConfiguration(s.admin, { docType: DOCTYPE });
    expect(made).toMatchObject({ format: 'draft-14', timeToLiveDuration: { hours: 1 }, expiryDuration: { days: 1 } });
    await expect(s.statusLists.createConfiguration(s.admin, { docType: DOCTYPE })).rejects.toMatchObject({ code: 'Conflict' });
    expect((await s.statusLists.updateConfiguration(s.admin, made.id, { docType: DOCTYPE, format: 'legacy' })).format).toBe('legacy');
    expect((await s.statusLists.listConfigurations(s.admin)).data).toHaveLength(1);
    await s.statusLists.deleteConfiguration(s.admin, made.id);
    await expect(s.statusLists.getConfiguration(s.admin, made.id)).rejects.toMatchObject({ code: 'NotFound' });
  });
});
