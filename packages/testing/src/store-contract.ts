import type { AdminClient, AnalyticEvent, CredentialConfiguration, CustomDomain, DataKeyRecord, DidKey, DidRecord, Store, StoredKey } from '@vellum/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeMdocPkiContract } from './store-contract-mdoc.ts';
import { describeWebhookContract } from './store-contract-webhooks.ts';
import { describeIssuedCredentialContract } from './store-contract-issuance.ts';
import { describeOfferContract } from './store-contract-offers.ts';
import { describeAuthenticationContract } from './store-contract-authentication.ts';
import { describeRateLimitContract } from './store-contract-rate-limits.ts';
import { describeWalletClientContract } from './store-contract-wallet-clients.ts';
import { describeWalletProviderContract } from './store-contract-wallet-providers.ts';
import { describeTrustedIssuerContract } from './store-contract-trusted-issuers.ts';
import { describeVerifierApplicationContract } from './store-contract-verifier-applications.ts';
import { describePresentationSessionContract } from './store-contract-presentation-sessions.ts';
import { describeAuthorizationContract } from './store-contract-authorizations.ts';
import { describeStatusListContract } from './store-contract-status-lists.ts';
import { describeRetentionContract } from './store-contract-retention.ts';
import { describeDeferredIssuanceContract } from './store-contract-deferred.ts';
import { describeRefreshTokenContract } from './store-contract-refresh-tokens.ts';
import {
  expectDomainError,
  expectOwnedBy,
  expectRolledBack,
  expectWriteRolledBack,
  insertTenant,
  insertTenants,
  makeTenant,
  unique,
  uuid,
} from './store-contract-support.ts';

export function makeClient(tenantId: string, over: Partial<AdminClient> = {}): AdminClient {
  return {
    clientId: unique('c'),
    tenantId,
    role: 'admin',
    name: 'default',
    secretHash: 'scrypt$x',
    secretVersion: 1,
    createdAt: new Date().toISOString(),
    ...over,
  };
}

export function makeDomain(tenantId: string, over: Partial<CustomDomain> = {}): CustomDomain {
  const now = new Date().toISOString();
  return { tenantId, domain: `${unique('d')}.example.com`, verificationToken: unique('v'), isVerified: false, createdAt: now, updatedAt: now, ...over };
}

export function makeDid(tenantId: string, over: Partial<DidRecord> = {}): DidRecord {
  const did = over.did ?? `did:web:${unique('h')}.example.com:issuers`;
  return {
    tenantId,
    did,
    method: 'web',
    keys: [
      { didDocumentKeyId: `${did}#z6Mk1`, kmsKeyId: uuid(), algorithm: 'Ed25519', publicJwk: { kty: 'OKP', crv: 'Ed25519', x: 'xx' } },
      { didDocumentKeyId: `${did}#zDn1`, kmsKeyId: uuid(), algorithm: 'P-256', publicJwk: { kty: 'EC', crv: 'P-256', x: 'xx', y: 'yy' } },
    ],
    createdAt: new Date().toISOString(),
    ...over,
  };
}

/** A credential configuration of `format` (an mDoc unless told), with fields of its format. */
export function makeConfiguration(tenantId: string, over: Partial<CredentialConfiguration> = {}): CredentialConfiguration {
  const now = new Date().toISOString();
  const base = { id: uuid(), tenantId, type: unique('org.example.'), expiresIn: { days: 365 }, createdAt: now, updatedAt: now };
  const format = over.format ?? 'mso_mdoc';
  const made: CredentialConfiguration =
    format === 'mso_mdoc'
      ? {
          ...base,
          format,
          name: 'Card',
          includeStatus: false,
          claimMappings: { 'org.example.1': { given_name: { mapFrom: 'claims.givenName', required: true }, born: { mapFrom: 'claims.born', type: 'date' } } },
          claimDisplay: { 'org.example.1': { given_name: [{ name: 'Given name', locale: 'en' }] } },
        }
      : format === 'ldp_vc'
        ? {
            ...base,
            format,
            issuer: { name: 'Issuer', id: 'did:key:z6Mk1' },
            proofType: 'Ed25519Signature2018',
            revocable: true,
            contexts: ['https://schema.example/v1'],
            claimMappings: { degree: { mapFrom: 'claims.degree', defaultValue: 'BSc' } },
          }
        : format === 'dc+sd-jwt'
          ? { ...base, format, claimMappings: { name: { mapFrom: 'claims.name' } } }
          : { ...base, format, revocable: false, claimMappings: { name: { mapFrom: 'claims.name' } } };
  return { ...made, ...over } as CredentialConfiguration;
}

export function makeEvent(tenantId: string, over: Partial<AnalyticEvent> = {}): AnalyticEvent {
  return {
    id: uuid(),
    type: 'CONFIG_CUSTOM_DOMAIN_CREATE_START',
    category: 'custom-domain',
    timestamp: new Date().toISOString(),
    tenantId,
    requestId: unique('r'),
    requestIp: '127.0.0.1',
    ...over,
  };
}

/** Pages through a list with `limit` until it is empty, returning every item in order. */
async function drain<T>(list: (page: { limit: number; after?: number }) => Promise<{ items: T[]; last?: number }>, limit: number): Promise<T[]> {
  const all: T[] = [];
  let after: number | undefined;
  for (let i = 0; i < 10_000; i++) {
    const slice = await list(after === undefined ? { limit } : { limit, after });
    if (slice.items.length === 0) return all;
    expect(slice.items.length).toBeLessThanOrEqual(limit);
    expect(slice.last).toBeTypeOf('number');
    all.push(...slice.items);
    after = slice.last;
  }
  throw new Error('pagination did not end');
}

/**
 * The Store contract (ports.ts): every Store adapter runs this suite. `open` returns a store that
 * may already hold data; the tests only rely on rows they create themselves.
 */
export function describeStoreContract(name: string, open: () => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    describe('tenants', () => {
      it('inserts and finds by id and subdomain', async () => {
        const t = await insertTenant(store);
        expect(await store.tenants.findById(t.id)).toEqual(t);
        expect(await store.tenants.findBySubdomain(t.subdomain)).toEqual(t);
        expect(await store.tenants.findById(uuid())).toBeUndefined();
        expect(await store.tenants.findBySubdomain(unique('none'))).toBeUndefined();
      });

      it('refuses a taken subdomain with Conflict', async () => {
        const t = await insertTenant(store);
        await expectDomainError(store.tenants.insert(makeTenant({ subdomain: t.subdomain })), 'Conflict');
      });

      it('lists in creation order across pages, each row once', async () => {
        const mine = [makeTenant(), makeTenant(), makeTenant()];
        for (const t of mine) await store.tenants.insert(t);
        const all = await drain((p) => store.tenants.list(p), 2);
        const ids = all.map((t) => t.id);
        expect(new Set(ids).size).toBe(ids.length);
        const positions = mine.map((t) => ids.indexOf(t.id));
        expect(positions.every((p) => p >= 0)).toBe(true);
        expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      });

      it('sets the logging level, and says false for an unknown tenant', async () => {
        const t = await insertTenant(store);
        expect(await store.tenants.setLoggingLevel(t.id, 3)).toBe(true);
        expect((await store.tenants.findById(t.id))?.loggingLevel).toBe(3);
        expect(await store.tenants.setLoggingLevel(uuid(), 2)).toBe(false);
      });

      it('replaces the issuer display in order, removes it with an empty list, and says false for an unknown tenant', async () => {
        const t = await insertTenant(store);
        const display = [
          { name: 'Acme Bank', locale: 'en-GB', logo: { uri: 'https://acme.example/logo.png', alt_text: 'The Acme logo' } },
          { name: 'Banque Acmé', locale: 'fr' },
          { name: 'Acme' },
        ];
        expect(await store.tenants.setIssuerDisplay(t.id, display)).toBe(true);
        expect(await store.tenants.findById(t.id)).toEqual({ ...t, issuerDisplay: display });
        expect((await store.tenants.findBySubdomain(t.subdomain))?.issuerDisplay).toEqual(display);
        // Another write to the tenant keeps it.
        await store.tenants.setLoggingLevel(t.id, 2);
        expect((await store.tenants.findById(t.id))?.issuerDisplay).toEqual(display);
        expect(await store.tenants.setIssuerDisplay(t.id, [{ name: 'Acme' }])).toBe(true);
        expect((await store.tenants.findById(t.id))?.issuerDisplay).toEqual([{ name: 'Acme' }]);
        expect(await store.tenants.setIssuerDisplay(t.id, [])).toBe(true);
        expect(await store.tenants.findById(t.id)).toEqual({ ...t, loggingLevel: 2 });
        expect(await store.tenants.setIssuerDisplay(uuid(), display)).toBe(false);
      });

      it('sets where the tenant’s new keys are made, keeps it through other writes, and says false for an unknown tenant', async () => {
        const t = await insertTenant(store);
        expect(await store.tenants.findById(t.id)).not.toHaveProperty('keyCustody');
        expect(await store.tenants.setKeyCustody(t.id, 'pkcs11')).toBe(true);
        expect(await store.tenants.findById(t.id)).toEqual({ ...t, keyCustody: 'pkcs11' });
        await store.tenants.setBatchSize(t.id, 4);
        expect((await store.tenants.findBySubdomain(t.subdomain))?.keyCustody).toBe('pkcs11');
        expect(await store.tenants.setKeyCustody(t.id, 'software')).toBe(true);
        expect((await store.tenants.findById(t.id))?.keyCustody).toBe('software');
        expect(await store.tenants.setKeyCustody(uuid(), 'pkcs11')).toBe(false);
        const inserted = makeTenant({ keyCustody: 'pkcs11' });
        await store.tenants.insert(inserted);
        expect(await store.tenants.findById(inserted.id)).toEqual(inserted);
      });

      it('sets the batch size, removes it with 1, keeps it through other writes, and says false for an unknown tenant', async () => {
        const t = await insertTenant(store);
        expect(await store.tenants.setBatchSize(t.id, 10)).toBe(true);
        expect(await store.tenants.findById(t.id)).toEqual({ ...t, batchSize: 10 });
        expect((await store.tenants.findBySubdomain(t.subdomain))?.batchSize).toBe(10);
        await store.tenants.setLoggingLevel(t.id, 2);
        expect((await store.tenants.findById(t.id))?.batchSize).toBe(10);
        await expect(
          store.transaction(async (tx) => {
            await tx.tenants.setBatchSize(t.id, 100);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect((await store.tenants.findById(t.id))?.batchSize).toBe(10);
        expect(await store.tenants.setBatchSize(t.id, 1)).toBe(true);
        expect(await store.tenants.findById(t.id)).toEqual({ ...t, loggingLevel: 2 });
        expect(await store.tenants.setBatchSize(uuid(), 5)).toBe(false);
        const inserted = makeTenant({ batchSize: 3 });
        await store.tenants.insert(inserted);
        expect(await store.tenants.findById(inserted.id)).toEqual(inserted);
      });

      it('a tenant inserted with an issuer display reads it back, and a rolled-back change leaves it', async () => {
        const t = makeTenant({ issuerDisplay: [{ name: 'Acme', locale: 'en' }] });
        await store.tenants.insert(t);
        expect(await store.tenants.findById(t.id)).toEqual(t);
        await expect(
          store.transaction(async (tx) => {
            await tx.tenants.setIssuerDisplay(t.id, [{ name: 'Other' }]);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect((await store.tenants.findById(t.id))?.issuerDisplay).toEqual([{ name: 'Acme', locale: 'en' }]);
      });
    });

    describe('clients', () => {
      it('inserts, finds by client id, refuses duplicates', async () => {
        const t = await insertTenant(store);
        const c = makeClient(t.id, { role: 'issuer' });
        await store.clients.insert(c);
        expect(await store.clients.findByClientId(c.clientId)).toEqual(c);
        expect(await store.clients.findByClientId(unique('none'))).toBeUndefined();
        await expectDomainError(store.clients.insert(makeClient(t.id, { clientId: c.clientId })), 'Conflict');
      });

      it('lists only the tenant’s own clients (tenant isolation)', async () => {
        const [a, b] = await insertTenants(store);
        const ca = [makeClient(a.id), makeClient(a.id), makeClient(a.id)];
        for (const c of ca) await store.clients.insert(c);
        await store.clients.insert(makeClient(b.id));
        const listed = await drain((p) => store.clients.list(a.id, p), 2);
        expect(listed.map((c) => c.clientId)).toEqual(ca.map((c) => c.clientId));
        expect((await store.clients.list(b.id, { limit: 100 })).items).toHaveLength(1);
      });

      it('rotates a secret: new hash, version up by one, rotatedAt set; only the tenant’s own unrevoked client', async () => {
        const [t, other] = await insertTenants(store);
        const c = makeClient(t.id, { role: 'issuer' });
        await store.clients.insert(c);
        const at = new Date().toISOString();
        const rotated = await store.clients.rotateSecret(t.id, c.clientId, 'scrypt$new', at);
        expect(rotated).toEqual({ ...c, secretHash: 'scrypt$new', secretVersion: 2, rotatedAt: at });
        expect(await store.clients.findByClientId(c.clientId)).toEqual(rotated);
        expect((await store.clients.rotateSecret(t.id, c.clientId, 'scrypt$3', at))?.secretVersion).toBe(3);
        expect(await store.clients.rotateSecret(other.id, c.clientId, 'scrypt$theirs', at)).toBeUndefined();
        expect(await store.clients.rotateSecret(t.id, unique('none'), 'scrypt$x', at)).toBeUndefined();
        expect(await store.clients.revoke(t.id, c.clientId, at)).toBe('revoked');
        expect(await store.clients.rotateSecret(t.id, c.clientId, 'scrypt$late', at)).toBeUndefined();
        expect(await store.clients.findByClientId(c.clientId)).toMatchObject({ secretHash: 'scrypt$3', secretVersion: 3, revokedAt: at });
      });

      it('revokes a client once, only within its tenant, and never the tenant’s last admin', async () => {
        const [t, other] = await insertTenants(store);
        const admin = makeClient(t.id),
          issuer = makeClient(t.id, { role: 'issuer' }),
          second = makeClient(t.id);
        for (const c of [admin, issuer, second]) await store.clients.insert(c);
        const at = new Date().toISOString();
        expect(await store.clients.revoke(other.id, issuer.clientId, at)).toBe('not-found');
        expect(await store.clients.revoke(t.id, unique('none'), at)).toBe('not-found');
        expect(await store.clients.findByClientId(issuer.clientId)).toEqual(issuer);
        expect(await store.clients.revoke(t.id, issuer.clientId, at)).toBe('revoked');
        expect(await store.clients.findByClientId(issuer.clientId)).toEqual({ ...issuer, revokedAt: at });
        expect(await store.clients.revoke(t.id, issuer.clientId, new Date(Date.now() + 1000).toISOString())).toBe('already-revoked');
        expect((await store.clients.findByClientId(issuer.clientId))?.revokedAt).toBe(at);
        expect(await store.clients.revoke(t.id, second.clientId, at)).toBe('revoked');
        expect(await store.clients.revoke(t.id, admin.clientId, at)).toBe('last-admin');
        expect((await store.clients.findByClientId(admin.clientId))?.revokedAt).toBeUndefined();
      });

      it('lets only one of two admins revoking each other at once succeed (no lock-out)', async () => {
        const t = await insertTenant(store);
        const a = makeClient(t.id),
          b = makeClient(t.id);
        await store.clients.insert(a);
        await store.clients.insert(b);
        const at = new Date().toISOString();
        const outcomes = await Promise.all([store.clients.revoke(t.id, a.clientId, at), store.clients.revoke(t.id, b.clientId, at)]);
        expect(outcomes.sort()).toEqual(['last-admin', 'revoked']);
        const left = (await store.clients.list(t.id, { limit: 10 })).items.filter((c) => c.revokedAt === undefined);
        expect(left).toHaveLength(1);
      });
    });

    describe('custom domains', () => {
      it('holds at most one per tenant', async () => {
        const t = await insertTenant(store);
        const d = makeDomain(t.id, { name: 'Acme', logoUrl: 'https://acme.example/logo.png' });
        await store.customDomains.insert(d);
        expect(await store.customDomains.get(t.id)).toEqual(d);
        await expectDomainError(store.customDomains.insert(makeDomain(t.id)), 'Conflict');
      });

      it('updates, deletes, and reports a missing domain as false', async () => {
        const t = await insertTenant(store);
        expect(await store.customDomains.update(makeDomain(t.id))).toBe(false);
        expect(await store.customDomains.delete(t.id)).toBe(false);
        expect(await store.customDomains.markVerified(t.id, new Date().toISOString())).toBe(false);
        const d = makeDomain(t.id);
        await store.customDomains.insert(d);
        const next = { ...d, domain: `${unique('n')}.example.org`, name: 'New', updatedAt: new Date().toISOString() };
        expect(await store.customDomains.update(next)).toBe(true);
        expect(await store.customDomains.get(t.id)).toEqual(next);
        expect(await store.customDomains.delete(t.id)).toBe(true);
        expect(await store.customDomains.get(t.id)).toBeUndefined();
      });

      it('finds a domain by name only once verified, and lets one tenant verify a name', async () => {
        const [a, b] = await insertTenants(store);
        const name = `${unique('shared')}.example.net`;
        await store.customDomains.insert(makeDomain(a.id, { domain: name }));
        await store.customDomains.insert(makeDomain(b.id, { domain: name }));
        expect(await store.customDomains.findVerified(name)).toBeUndefined();
        const at = '2026-02-03T04:05:06.000Z';
        expect(await store.customDomains.markVerified(a.id, at)).toBe(true);
        expect(await store.customDomains.findVerified(name)).toMatchObject({ tenantId: a.id, isVerified: true, verifiedAt: at });
        await expectDomainError(store.customDomains.markVerified(b.id, at), 'Conflict');
        expect((await store.customDomains.get(b.id))?.isVerified).toBe(false);
      });

      it('never shows tenant A’s domain to tenant B', async () => {
        const [a, b] = await insertTenants(store);
        await store.customDomains.insert(makeDomain(a.id));
        expect(await store.customDomains.get(b.id)).toBeUndefined();
        expect(await store.customDomains.delete(b.id)).toBe(false);
        expect(await store.customDomains.get(a.id)).toBeDefined();
      });
    });

    describe('events', () => {
      it('lists newest first, pages towards older ones, and keeps every field', async () => {
        const t = await insertTenant(store);
        const base = Date.parse('2026-03-01T00:00:00.000Z');
        const events = Array.from({ length: 5 }, (_, i) =>
          makeEvent(t.id, { timestamp: new Date(base + i * 1000).toISOString(), clientId: 'c1', userAgent: 'ua', data: { n: i, nested: { ok: true } } }),
        );
        await store.events.insertMany(events);
        const listed = await drain((p) => store.events.list(t.id, {}, p), 2);
        expect(listed).toEqual([...events].reverse());
      });

      it('filters: lists OR-ed within, AND-ed across, dates inclusive', async () => {
        const t = await insertTenant(store);
        const e1 = makeEvent(t.id, { type: 'A_START', category: 'x', timestamp: '2026-04-01T00:00:00.000Z' });
        const e2 = makeEvent(t.id, { type: 'A_SUCCESS', category: 'x', timestamp: '2026-04-02T00:00:00.000Z' });
        const e3 = makeEvent(t.id, { type: 'B_START', category: 'y', timestamp: '2026-04-03T00:00:00.000Z', requestId: e1.requestId });
        await store.events.insertMany([e1, e2, e3]);
        const ids = async (f: Parameters<Store['events']['list']>[1]) => (await store.events.list(t.id, f, { limit: 100 })).items.map((e) => e.id);
        expect(await ids({ types: ['A_START', 'B_START'] })).toEqual([e3.id, e1.id]);
        expect(await ids({ categories: ['x'], types: ['A_SUCCESS', 'B_START'] })).toEqual([e2.id]);
        expect(await ids({ requestIds: [e1.requestId] })).toEqual([e3.id, e1.id]);
        expect(await ids({ ids: [e2.id, e3.id] })).toEqual([e3.id, e2.id]);
        expect(await ids({ dateFrom: '2026-04-02T00:00:00.000Z', dateTo: '2026-04-03T00:00:00.000Z' })).toEqual([e3.id, e2.id]);
        expect(await ids({ dateTo: '2026-04-01T00:00:00.000Z' })).toEqual([e1.id]);
      });

      it('never lists another tenant’s events', async () => {
        const [a, b] = await insertTenants(store);
        const ea = makeEvent(a.id);
        await store.events.insertMany([ea, makeEvent(b.id)]);
        expect((await store.events.list(a.id, {}, { limit: 100 })).items.map((e) => e.id)).toEqual([ea.id]);
        expect((await store.events.list(a.id, { ids: [ea.id] }, { limit: 100 })).items).toHaveLength(1);
        expect((await store.events.list(b.id, { ids: [ea.id] }, { limit: 100 })).items).toHaveLength(0);
      });
    });

    describe('keys', () => {
      const key = (tenantId: string) => ({
        id: uuid(),
        tenantId,
        algorithm: 'P-256' as const,
        publicJwk: { kty: 'EC' as const, crv: 'P-256' as const, x: 'xx', y: 'yy' },
        sealed: 'v1.sealed',
        createdAt: new Date().toISOString(),
      });

      it('stores, finds and deletes a key within its tenant only', async () => {
        const [a, b] = await insertTenants(store);
        const k = key(a.id);
        await store.keys.insert(k);
        await expectOwnedBy(store.keys, [a, b], k.id, k);
        await expectDomainError(store.keys.insert(k), 'Conflict');
        expect(await store.keys.delete(a.id, k.id)).toBe(true);
        expect(await store.keys.get(a.id, k.id)).toBeUndefined();
        expect(await store.keys.delete(a.id, k.id)).toBe(false);
      });

      it('keeps where a key lives: a PKCS#11 key comes back as one, a software key without the field', async () => {
        const [a] = await insertTenants(store);
        const held = { ...key(a.id), sealed: '', custody: 'pkcs11' as const };
        await store.keys.insert(held);
        expect(await store.keys.get(a.id, held.id)).toEqual(held);
        const software = key(a.id);
        await store.keys.insert({ ...software, custody: 'software' });
        const read = await store.keys.get(a.id, software.id);
        expect(read).toEqual(software);
        expect(read).not.toHaveProperty('custody');
      });

      it('lists the software keys sealed in a format, of every tenant, oldest first, up to the limit', async () => {
        const [a, b] = await insertTenants(store);
        // A format no other test seals in, so the store's other keys never show here.
        const format = unique('f');
        const inserted = async (over: Partial<StoredKey>) => {
          const k: StoredKey = { ...key(a.id), ...over };
          await store.keys.insert(k);
          return k;
        };
        const first = await inserted({ sealed: `${format}.one` });
        const other = await inserted({ tenantId: b.id, sealed: `${format}.two` });
        const third = await inserted({ sealed: `${format}.three`, custody: 'software' });
        await inserted({ sealed: `${format}.held`, custody: 'pkcs11' });
        await inserted({ sealed: `${format}x.longer` });
        await inserted({ sealed: `v0.${format}.inside` });
        const { custody: _software, ...thirdRead } = third;
        expect(await store.keys.listSealedIn(format, 10)).toEqual([first, other, thirdRead]);
        expect(await store.keys.listSealedIn(format, 2)).toEqual([first, other]);
        // The format is matched as written: `_` and `%` are no wildcards.
        expect(await store.keys.listSealedIn(`${format.slice(0, -1)}_`, 10)).toEqual([]);
        expect(await store.keys.listSealedIn(`${format}%`, 10)).toEqual([]);
      });

      it('seals a key again only while its sealed form is still the one expected, within its tenant', async () => {
        const [a, b] = await insertTenants(store);
        const format = unique('f');
        const k = { ...key(a.id), sealed: `${format}.old` };
        await store.keys.insert(k);
        // Read first, so a store that caches keys would have to forget this read.
        expect((await store.keys.get(a.id, k.id))?.sealed).toBe(k.sealed);
        expect(await store.keys.reseal(b.id, k.id, k.sealed, 'v2.other-tenant')).toBe(false);
        expect(await store.keys.reseal(a.id, uuid(), k.sealed, 'v2.no-such-key')).toBe(false);
        expect(await store.keys.reseal(a.id, k.id, `${format}.stale`, 'v2.stale')).toBe(false);
        expect(await store.keys.get(a.id, k.id)).toEqual(k);
        expect(await store.keys.reseal(a.id, k.id, k.sealed, 'v2.new')).toBe(true);
        expect(await store.keys.get(a.id, k.id)).toEqual({ ...k, sealed: 'v2.new' });
        expect(await store.keys.reseal(a.id, k.id, k.sealed, 'v2.second')).toBe(false);
        expect(await store.keys.get(a.id, k.id)).toEqual({ ...k, sealed: 'v2.new' });
        expect(await store.keys.listSealedIn(format, 10)).toEqual([]);
      });
    });

    describe('dids', () => {
      it('stores a DID with its keys, and finds it within its tenant only', async () => {
        const [a, b] = await insertTenants(store);
        const d = makeDid(a.id);
        await store.dids.insert(d);
        await expectOwnedBy(store.dids, [a, b], d.did, d);
        expect((await store.dids.list(b.id, { limit: 100 })).items).toEqual([]);
      });

      it('refuses the same DID twice in a tenant with Conflict, and lets another tenant hold it', async () => {
        const [a, b] = await insertTenants(store);
        const d = makeDid(a.id);
        await store.dids.insert(d);
        await expectDomainError(store.dids.insert({ ...d, keys: [] }), 'Conflict');
        await store.dids.insert({ ...d, tenantId: b.id });
        expect((await store.dids.get(b.id, d.did))?.tenantId).toBe(b.id);
      });

      it('lists in creation order across pages, and deletes for good', async () => {
        const t = await insertTenant(store);
        const mine = [makeDid(t.id), makeDid(t.id, { did: `did:key:z6Mk${unique('k')}`, method: 'key' }), makeDid(t.id)];
        for (const d of mine) await store.dids.insert(d);
        expect(await drain((p) => store.dids.list(t.id, p), 2)).toEqual(mine);
        expect(await store.dids.delete(t.id, mine[1]!.did)).toBe(true);
        expect(await store.dids.get(t.id, mine[1]!.did)).toBeUndefined();
        expect(await store.dids.delete(t.id, mine[1]!.did)).toBe(false);
        expect((await store.dids.list(t.id, { limit: 100 })).items.map((d) => d.did)).toEqual([mine[0]!.did, mine[2]!.did]);
      });

      it('lists stamps in creation order, whose revision changes when a DID is created again', async () => {
        const [a, b] = await insertTenants(store);
        const mine = [makeDid(a.id), makeDid(a.id)];
        for (const d of mine) await store.dids.insert(d);
        await store.dids.insert(makeDid(b.id));
        const before = await store.dids.listStamps(a.id);
        expect(before.map((s) => s.did)).toEqual(mine.map((d) => d.did));
        expect(before.every((s) => typeof s.revision === 'string')).toBe(true);
        await store.dids.delete(a.id, mine[0]!.did);
        await store.dids.insert(mine[0]!);
        const after = await store.dids.listStamps(a.id);
        expect(after.map((s) => s.did)).toEqual([mine[1]!.did, mine[0]!.did]);
        expect(after[1]?.revision).not.toBe(before[0]?.revision);
        expect(after[0]?.revision).toBe(before[1]?.revision);
        expect(await store.dids.listStamps(makeTenant().id)).toEqual([]);
      });

      it('replaceKeys swaps the keys once (compare-and-set) and changes the DID’s stamp', async () => {
        const [a, b] = await insertTenants(store);
        const record = makeDid(a.id);
        await store.dids.insert(record);
        const [before] = await store.dids.listStamps(a.id);
        const rotated = [
          ...record.keys.map((k) => ({ ...k, retiredAt: '2026-05-01T12:00:00.000Z', verifiesUntil: '2026-05-02T12:00:00.000Z' })),
          { ...(record.keys[0] as DidKey), didDocumentKeyId: `${record.did}#z6Mk2`, kmsKeyId: uuid() },
        ];
        expect(await store.dids.replaceKeys(a.id, record.did, record.keys, rotated)).toBe(true);
        expect((await store.dids.get(a.id, record.did))?.keys).toEqual(rotated);
        const [after] = await store.dids.listStamps(a.id);
        expect(after?.revision).not.toBe(before?.revision);
        // A rotation that read the keys before lost: nothing changes.
        expect(await store.dids.replaceKeys(a.id, record.did, record.keys, record.keys)).toBe(false);
        expect((await store.dids.get(a.id, record.did))?.keys).toEqual(rotated);
        expect(await store.dids.listStamps(a.id)).toEqual([after]);
        // Another tenant, or a DID that is not there, changes nothing.
        expect(await store.dids.replaceKeys(b.id, record.did, rotated, record.keys)).toBe(false);
        expect(await store.dids.replaceKeys(a.id, `${record.did}:other`, rotated, record.keys)).toBe(false);
        // Two at once: one wins.
        const racing = await Promise.all([0, 1, 2].map(() => store.dids.replaceKeys(a.id, record.did, rotated, record.keys)));
        expect(racing.filter(Boolean)).toHaveLength(1);
        expect((await store.dids.get(a.id, record.did))?.keys).toEqual(record.keys);
      });
    });

    describe('credential configurations', () => {
      it('stores every format’s fields, and finds a configuration within its tenant only', async () => {
        const [t, other] = await insertTenants(store);
        for (const format of ['mso_mdoc', 'ldp_vc', 'cwt', 'cwt_vc', 'dc+sd-jwt'] as const) {
          const c = makeConfiguration(t.id, { format, display: [{ name: 'Shown', locale: 'en', logo: { uri: 'https://x.example/l.png' } }] });
          await store.credentialConfigurations.insert(c);
          expect(await store.credentialConfigurations.get(t.id, c.id)).toEqual(c);
          expect(await store.credentialConfigurations.get(other.id, c.id)).toBeUndefined();
        }
        expect(await store.credentialConfigurations.get(t.id, uuid())).toBeUndefined();
      });

      it('refuses a type twice in one format of a tenant with Conflict; other formats and tenants may use it', async () => {
        const [t, other] = await insertTenants(store);
        const first = makeConfiguration(t.id, { format: 'cwt' });
        await store.credentialConfigurations.insert(first);
        await expectDomainError(store.credentialConfigurations.insert(makeConfiguration(t.id, { format: 'cwt', type: first.type })), 'Conflict');
        await expectDomainError(store.credentialConfigurations.insert({ ...first, type: unique('fresh') }), 'Conflict');
        await store.credentialConfigurations.insert(makeConfiguration(t.id, { format: 'cwt_vc', type: first.type }));
        await store.credentialConfigurations.insert(makeConfiguration(other.id, { format: 'cwt', type: first.type }));
        expect((await store.credentialConfigurations.list(t.id, { format: 'cwt', type: first.type }, { limit: 10 })).items.map((c) => c.id)).toEqual([
          first.id,
        ]);
      });

      it('lists one format in creation order across pages, filters by type, and lists every format at once', async () => {
        const [t, other] = await insertTenants(store);
        const mdocs = [makeConfiguration(t.id), makeConfiguration(t.id), makeConfiguration(t.id)];
        const ldp = makeConfiguration(t.id, { format: 'ldp_vc' });
        await store.credentialConfigurations.insert(mdocs[0] as CredentialConfiguration);
        await store.credentialConfigurations.insert(ldp);
        await store.credentialConfigurations.insert(mdocs[1] as CredentialConfiguration);
        await store.credentialConfigurations.insert(mdocs[2] as CredentialConfiguration);
        await store.credentialConfigurations.insert(makeConfiguration(other.id));
        const all = await drain((p) => store.credentialConfigurations.list(t.id, { format: 'mso_mdoc' }, p), 2);
        expect(all).toEqual(mdocs);
        const byType = await store.credentialConfigurations.list(t.id, { format: 'mso_mdoc', type: mdocs[1]?.type as string }, { limit: 10 });
        expect(byType.items).toEqual([mdocs[1]]);
        expect((await store.credentialConfigurations.list(t.id, { format: 'ldp_vc', type: mdocs[1]?.type as string }, { limit: 10 })).items).toEqual([]);
        expect(await store.credentialConfigurations.listAll(t.id)).toEqual([mdocs[0], ldp, mdocs[1], mdocs[2]]);
        expect(await store.credentialConfigurations.listAll(uuid())).toEqual([]);
      });

      it('replaces a configuration in place, refusing another’s type and another tenant’s or format’s row', async () => {
        const [t, other] = await insertTenants(store);
        const a = makeConfiguration(t.id);
        const b = makeConfiguration(t.id);
        await store.credentialConfigurations.insert(a);
        await store.credentialConfigurations.insert(b);
        const changed = {
          ...a,
          type: unique('org.example.renamed.'),
          name: 'Renamed',
          includeStatus: true,
          updatedAt: new Date(Date.now() + 1000).toISOString(),
        };
        expect(await store.credentialConfigurations.update(changed)).toBe(true);
        expect(await store.credentialConfigurations.get(t.id, a.id)).toEqual(changed);
        await expectDomainError(store.credentialConfigurations.update({ ...b, type: changed.type }), 'Conflict');
        expect(await store.credentialConfigurations.get(t.id, b.id)).toEqual(b);
        expect(await store.credentialConfigurations.update({ ...b, tenantId: other.id })).toBe(false);
        expect(await store.credentialConfigurations.update(makeConfiguration(t.id, { id: b.id, format: 'cwt', type: b.type }))).toBe(false);
        expect(await store.credentialConfigurations.get(t.id, b.id)).toEqual(b);
        expect(await store.credentialConfigurations.update(makeConfiguration(t.id))).toBe(false);
        // Listing keeps creation order after an update.
        expect((await store.credentialConfigurations.listAll(t.id)).map((c) => c.id)).toEqual([a.id, b.id]);
      });

      it('lists stamps in creation order, whose revision changes with every write and only then', async () => {
        const t = await insertTenant(store);
        const a = makeConfiguration(t.id);
        const b = makeConfiguration(t.id, { format: 'cwt' });
        await store.credentialConfigurations.insert(a);
        await store.credentialConfigurations.insert(b);
        const before = await store.credentialConfigurations.listStamps(t.id);
        expect(before.map((s) => s.id)).toEqual([a.id, b.id]);
        expect(await store.credentialConfigurations.listStamps(t.id)).toEqual(before);
        // The same content written again is still a write.
        await store.credentialConfigurations.update(a);
        const after = await store.credentialConfigurations.listStamps(t.id);
        expect(after[0]?.revision).not.toBe(before[0]?.revision);
        expect(after[1]).toEqual(before[1]);
        await store.credentialConfigurations.delete(t.id, b.id);
        await store.credentialConfigurations.insert({ ...b, id: uuid() });
        const again = await store.credentialConfigurations.listStamps(t.id);
        expect(again).toHaveLength(2);
        expect(new Set([...after, ...again].map((s) => s.revision)).size).toBe(3);
        expect(await store.credentialConfigurations.listStamps(uuid())).toEqual([]);
      });

      it('deletes within its tenant only, freeing the type', async () => {
        const [t, other] = await insertTenants(store);
        const c = makeConfiguration(t.id, { format: 'dc+sd-jwt' });
        await store.credentialConfigurations.insert(c);
        expect(await store.credentialConfigurations.delete(other.id, c.id)).toBe(false);
        expect(await store.credentialConfigurations.delete(t.id, c.id)).toBe(true);
        expect(await store.credentialConfigurations.delete(t.id, c.id)).toBe(false);
        expect(await store.credentialConfigurations.get(t.id, c.id)).toBeUndefined();
        await store.credentialConfigurations.insert(makeConfiguration(t.id, { format: 'dc+sd-jwt', type: c.type }));
      });

      it('rolls back with the transaction', async () => {
        const t = await insertTenant(store);
        const c = makeConfiguration(t.id);
        await expectWriteRolledBack(store, 'boom', {
          write: (tx) => tx.credentialConfigurations.insert(c),
          read: (r) => r.credentialConfigurations.get(t.id, c.id),
        });
      });
    });

    describeMdocPkiContract(() => store);
    describeWebhookContract(() => store);
    describeIssuedCredentialContract(() => store);
    describeOfferContract(() => store);
    describeAuthenticationContract(() => store);
    describeRateLimitContract(() => store);
    describeWalletClientContract(() => store);
    describeWalletProviderContract(() => store);
    describeTrustedIssuerContract(() => store);
    describeVerifierApplicationContract(() => store);
    describePresentationSessionContract(() => store);
    describeAuthorizationContract(() => store);
    describeStatusListContract(() => store);
    describeRetentionContract(() => store);
    describeDeferredIssuanceContract(() => store);
    describeRefreshTokenContract(() => store);

    describe('platform keys', () => {
      it('keeps the first record under a name', async () => {
        const name = unique('key');
        const first = { name, sealed: 'one', createdAt: new Date().toISOString() };
        expect(await store.platformKeys.get(name)).toBeUndefined();
        expect(await store.platformKeys.insertIfAbsent(first)).toEqual(first);
        expect(await store.platformKeys.insertIfAbsent({ ...first, sealed: 'two' })).toEqual(first);
        expect(await store.platformKeys.get(name)).toEqual(first);
      });

      it('replaces a record once (compare-and-set on its sealed value)', async () => {
        const name = unique('key');
        const first = { name, sealed: 'one', createdAt: '2026-05-01T12:00:00.000Z' };
        await store.platformKeys.insertIfAbsent(first);
        const second = { name, sealed: 'two', createdAt: '2026-05-02T12:00:00.000Z' };
        expect(await store.platformKeys.replace('one', second)).toBe(true);
        expect(await store.platformKeys.get(name)).toEqual(second);
        expect(await store.platformKeys.replace('one', { ...second, sealed: 'three' })).toBe(false);
        expect(await store.platformKeys.get(name)).toEqual(second);
        expect(await store.platformKeys.replace('two', { ...second, name: unique('other') })).toBe(false);
        const racing = await Promise.all(['a', 'b', 'c'].map((sealed) => store.platformKeys.replace('two', { ...second, sealed })));
        expect(racing.filter(Boolean)).toHaveLength(1);
      });
    });

    describe('data keys', () => {
      const now = () => new Date().toISOString();
      /** A time `ms` from now: later than any the test's records were made at. */
      const later = (ms: number) => new Date(Date.now() + ms).toISOString();
      /** A data key of `tenantId`, wrapped by a key no other test uses, without a recovery form unless told. */
      const dataKey = (tenantId: string, over: Partial<DataKeyRecord> = {}): DataKeyRecord => ({
        tenantId,
        id: uuid(),
        wrapped: unique('wrapped'),
        wrappingKeyId: unique('master:'),
        createdAt: now(),
        updatedAt: now(),
        ...over,
      });
      const inserted = async (over: Partial<DataKeyRecord> = {}, tenantId: string = uuid()) => {
        const k = dataKey((await insertTenant(store, { id: tenantId })).id, over);
        expect(await store.dataKeys.insertIfAbsent(k)).toEqual(k);
        return k;
      };
      const byTenant = (x: DataKeyRecord, y: DataKeyRecord) => (x.tenantId < y.tenantId ? -1 : x.tenantId > y.tenantId ? 1 : 0);
      /** Every stale data key (checking that none was left out for the limit), of those in `mine`. */
      const staleOf = async (current: { wrappingKeyId: string; recoveryKeyId?: string }, mine: DataKeyRecord[]) => {
        const all = await store.dataKeys.listStale(current, 10_000);
        expect(all.length).toBeLessThan(10_000);
        const ids = new Set(mine.map((k) => k.tenantId));
        return all.filter((k) => ids.has(k.tenantId));
      };

      it('reads nothing for a tenant without one, and keeps the first record a tenant is given', async () => {
        const [a, b] = await insertTenants(store);
        expect(await store.dataKeys.get(a.id)).toBeUndefined();
        const first = dataKey(a.id, { recoveryWrapped: unique('recovery'), recoveryKeyId: unique('rsa:') });
        expect(await store.dataKeys.insertIfAbsent(first)).toEqual(first);
        expect(await store.dataKeys.insertIfAbsent(dataKey(a.id))).toEqual(first);
        expect(await store.dataKeys.get(a.id)).toEqual(first);
        expect(await store.dataKeys.get(b.id)).toBeUndefined();
        const plain = dataKey(b.id);
        expect(await store.dataKeys.insertIfAbsent(plain)).toEqual(plain);
        const read = await store.dataKeys.get(b.id);
        expect(read).toEqual(plain);
        expect(read).not.toHaveProperty('recoveryWrapped');
        expect(read).not.toHaveProperty('recoveryKeyId');
      });

      it('lists the stale ones by tenant id: not under the current wrapping key, or not encrypted to the current recovery key when there is one', async () => {
        const [wrapping, older, recovery, olderRecovery] = [unique('master:'), unique('master:'), unique('rsa:'), unique('rsa:')];
        const withRecovery = (recoveryKeyId: string) => ({ recoveryWrapped: unique('recovery'), recoveryKeyId });
        // Tenant ids in descending order: creation order is not the order asked for.
        const ids = Array.from({ length: 5 }, uuid).sort().reverse() as [string, string, string, string, string];
        const current = await inserted({ wrappingKeyId: wrapping, ...withRecovery(recovery) }, ids[0]);
        const noRecovery = await inserted({ wrappingKeyId: wrapping }, ids[1]);
        const oldRecovery = await inserted({ wrappingKeyId: wrapping, ...withRecovery(olderRecovery) }, ids[2]);
        const oldWrapping = await inserted({ wrappingKeyId: older, ...withRecovery(recovery) }, ids[3]);
        const oldBoth = await inserted({ wrappingKeyId: older }, ids[4]);
        const mine = [current, noRecovery, oldRecovery, oldWrapping, oldBoth];
        expect(await staleOf({ wrappingKeyId: wrapping }, mine)).toEqual([oldWrapping, oldBoth].sort(byTenant));
        expect(await staleOf({ wrappingKeyId: wrapping, recoveryKeyId: recovery }, mine)).toEqual(
          [noRecovery, oldRecovery, oldWrapping, oldBoth].sort(byTenant),
        );
        expect(await staleOf({ wrappingKeyId: older }, mine)).toEqual([current, noRecovery, oldRecovery].sort(byTenant));
      });

      it('lists no more stale ones than the limit, the first by tenant id', async () => {
        const older = unique('master:');
        for (const id of Array.from({ length: 3 }, uuid).sort().reverse()) await inserted({ wrappingKeyId: older }, id);
        const current = { wrappingKeyId: unique('master:') };
        const all = await store.dataKeys.listStale(current, 10_000);
        expect(all.length).toBeGreaterThanOrEqual(3);
        expect(await store.dataKeys.listStale(current, 2)).toEqual(all.slice(0, 2));
        expect(await store.dataKeys.listStale(current, 1)).toEqual(all.slice(0, 1));
      });

      it('replaces the wrapped forms only while they are as expected (compare-and-set), a missing recovery key matching none', async () => {
        const [a, b] = await insertTenants(store);
        const [older, wrapping, newest, recovery] = [unique('master:'), unique('master:'), unique('master:'), unique('rsa:')];
        const k = dataKey(a.id, { wrappingKeyId: older });
        await store.dataKeys.insertIfAbsent(k);
        const next = {
          wrapped: unique('wrapped'),
          wrappingKeyId: wrapping,
          recoveryWrapped: unique('recovery'),
          recoveryKeyId: recovery,
          updatedAt: later(60_000),
        };
        expect(await store.dataKeys.replaceWrapping(b.id, k.id, { wrappingKeyId: older }, next)).toBe(false);
        expect(await store.dataKeys.replaceWrapping(a.id, uuid(), { wrappingKeyId: older }, next)).toBe(false);
        expect(await store.dataKeys.replaceWrapping(a.id, k.id, { wrappingKeyId: wrapping }, next)).toBe(false);
        // It has no recovery form: expecting one does not match.
        expect(await store.dataKeys.replaceWrapping(a.id, k.id, { wrappingKeyId: older, recoveryKeyId: recovery }, next)).toBe(false);
        expect(await store.dataKeys.get(a.id)).toEqual(k);

        expect(await store.dataKeys.replaceWrapping(a.id, k.id, { wrappingKeyId: older }, next)).toBe(true);
        const rewrapped = { ...k, ...next };
        expect(await store.dataKeys.get(a.id)).toEqual(rewrapped);
        // A second server that read it before the first wrote: its expectation is stale.
        expect(await store.dataKeys.replaceWrapping(a.id, k.id, { wrappingKeyId: older }, { ...next, wrapped: unique('late') })).toBe(false);
        expect(await store.dataKeys.replaceWrapping(a.id, k.id, { wrappingKeyId: wrapping }, { ...next, wrapped: unique('late') })).toBe(false);
        expect(await store.dataKeys.replaceWrapping(a.id, k.id, { wrappingKeyId: wrapping, recoveryKeyId: unique('rsa:') }, next)).toBe(false);
        expect(await store.dataKeys.get(a.id)).toEqual(rewrapped);

        // Without a recovery form in `next`, the stored one goes.
        const last = { wrapped: unique('wrapped'), wrappingKeyId: newest, updatedAt: later(120_000) };
        expect(await store.dataKeys.replaceWrapping(a.id, k.id, { wrappingKeyId: wrapping, recoveryKeyId: recovery }, last)).toBe(true);
        const read = await store.dataKeys.get(a.id);
        expect(read).toEqual({ ...k, ...last });
        expect(read).not.toHaveProperty('recoveryWrapped');
        expect(read).not.toHaveProperty('recoveryKeyId');
      });

      it('lets one of two re-wrappings of the same data key at once write', async () => {
        const k = await inserted();
        const outcomes = await Promise.all(
          ['one', 'two'].map((wrapped) =>
            store.dataKeys.replaceWrapping(
              k.tenantId,
              k.id,
              { wrappingKeyId: k.wrappingKeyId },
              { wrapped, wrappingKeyId: unique('master:'), updatedAt: now() },
            ),
          ),
        );
        expect(outcomes.filter(Boolean)).toHaveLength(1);
        expect((await store.dataKeys.get(k.tenantId))?.wrapped).toBe(outcomes[0] ? 'one' : 'two');
      });

      it('counts the data keys of each wrapping key and recovery key pair', async () => {
        const [one, two, recovery] = [unique('master:'), unique('master:'), unique('rsa:')];
        const withRecovery = { recoveryWrapped: 'r', recoveryKeyId: recovery };
        await inserted({ wrappingKeyId: one, ...withRecovery });
        await inserted({ wrappingKeyId: one, ...withRecovery });
        await inserted({ wrappingKeyId: one });
        await inserted({ wrappingKeyId: two, ...withRecovery });
        const counts = (await store.dataKeys.countByWrapping()).filter((c) => c.wrappingKeyId === one || c.wrappingKeyId === two);
        expect(counts).toHaveLength(3);
        expect(counts).toEqual(
          expect.arrayContaining([
            { wrappingKeyId: one, recoveryKeyId: recovery, count: 2 },
            { wrappingKeyId: one, count: 1 },
            { wrappingKeyId: two, recoveryKeyId: recovery, count: 1 },
          ]),
        );
        expect(counts.find((c) => c.wrappingKeyId === one && c.count === 1)).not.toHaveProperty('recoveryKeyId');
      });

      it('rolls back with the transaction', async () => {
        const t = await insertTenant(store);
        await expectWriteRolledBack(store, 'boom', { write: (tx) => tx.dataKeys.insertIfAbsent(dataKey(t.id)), read: (r) => r.dataKeys.get(t.id) });
        const k = await inserted();
        await expectRolledBack(store, 'boom', (tx) =>
          tx.dataKeys.replaceWrapping(k.tenantId, k.id, { wrappingKeyId: k.wrappingKeyId }, { wrapped: 'rolled back', wrappingKeyId: 'x', updatedAt: now() }),
        );
        expect(await store.dataKeys.get(k.tenantId)).toEqual(k);
      });
    });

    describe('transactions', () => {
      it('commit every write together', async () => {
        const t = makeTenant();
        const c = makeClient(t.id);
        const result = await store.transaction(async (tx) => {
          await tx.tenants.insert(t);
          await tx.clients.insert(c);
          return 'done';
        });
        expect(result).toBe('done');
        expect(await store.clients.findByClientId(c.clientId)).toEqual(c);
      });

      it('roll back every write when the work throws', async () => {
        const t = makeTenant();
        const c = makeClient(t.id);
        await expectRolledBack(store, 'boom', async (tx) => {
          await tx.tenants.insert(t);
          await tx.clients.insert(c);
        });
        expect(await store.tenants.findById(t.id)).toBeUndefined();
        expect(await store.clients.findByClientId(c.clientId)).toBeUndefined();
      });

      it('roll back when a write inside conflicts', async () => {
        const t = await insertTenant(store);
        const other = makeTenant();
        await expectDomainError(
          store.transaction(async (tx) => {
            await tx.tenants.insert(other);
            await tx.tenants.insert(makeTenant({ subdomain: t.subdomain }));
          }),
          'Conflict',
        );
        expect(await store.tenants.findById(other.id)).toBeUndefined();
      });

      it('answers ping', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });
    });
  });
}
