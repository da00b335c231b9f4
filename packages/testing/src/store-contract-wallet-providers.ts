// The Store contract for trusted wallet providers (ports.ts: WalletProviderRepository, in
// core/src/wallet-providers/model.ts), run inside describeStoreContract against every adapter.
import type { Store, WalletProvider } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectWriteRolledBack, iso, tenantMakers, uuid } from './store-contract-support.ts';

/** A wallet provider of `tenantId` trusted for both purposes, with one x509 root unless told otherwise. */
export function makeWalletProvider(tenantId: string, over: Partial<WalletProvider> = {}): WalletProvider {
  const now = iso();
  return {
    tenantId,
    id: uuid(),
    name: 'Test wallet provider',
    trustedFor: ['walletAttestations', 'keyAttestations'],
    x509: ['-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUb3Jn\n-----END CERTIFICATE-----\n'],
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

const KEY = { kty: 'EC' as const, crv: 'P-256' as const, x: 'x'.repeat(43), y: 'y'.repeat(43), kid: 'k1', alg: 'ES256' };

/** The wallet provider part of the Store contract; `store` is read when the tests run. */
export function describeWalletProviderContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const providers = () => store().walletProviders;

  describe('wallet providers', () => {
    it('stores each kind of anchor as given, finds it within the tenant only, and leaves the other kinds absent', async () => {
      const [a, b] = await tenants();
      const x509 = makeWalletProvider(a.id);
      const { x509: _none, ...bare } = makeWalletProvider(a.id, { name: 'Wallet “Ünïcode” ✓', trustedFor: ['keyAttestations'] });
      const jwks: WalletProvider = { ...bare, jwks: { keys: [KEY, { kty: 'OKP', crv: 'Ed25519', x: 'e'.repeat(43), kid: 'k2' }] } };
      const listed: WalletProvider = { ...makeWalletProvider(a.id), id: uuid(), trustedListUrl: 'https://tl.example.com/list.xml' };
      delete listed.x509;
      for (const p of [x509, jwks, listed]) expect(await providers().insert(p, 10)).toBe(true);
      expect(await providers().get(a.id, x509.id)).toEqual(x509);
      const gotJwks = await providers().get(a.id, jwks.id);
      expect(gotJwks).toEqual(jwks);
      expect(gotJwks).not.toHaveProperty('x509');
      expect(gotJwks).not.toHaveProperty('trustedListUrl');
      expect(await providers().get(a.id, listed.id)).toEqual(listed);
      expect(await providers().get(b.id, x509.id)).toBeUndefined();
      expect(await providers().get(a.id, uuid())).toBeUndefined();
    });

    it('refuses an id that exists with Conflict', async () => {
      const t = await tenant();
      const p = makeWalletProvider(t.id);
      await providers().insert(p, 10);
      await expectDomainError(providers().insert({ ...p, name: 'Other' }, 10), 'Conflict');
    });

    it('refuses an insert past the tenant’s limit (false, nothing written); racing inserts never pass it; other tenants are not counted', async () => {
      const [a, b] = await tenants();
      expect(await providers().insert(makeWalletProvider(a.id), 2)).toBe(true);
      const racing = await Promise.all(Array.from({ length: 5 }, () => providers().insert(makeWalletProvider(a.id), 2)));
      expect(racing.filter(Boolean)).toHaveLength(1);
      expect((await providers().list(a.id, { limit: 10 })).items).toHaveLength(2);
      expect(await providers().insert(makeWalletProvider(b.id), 2)).toBe(true);
    });

    it('lists in creation order across pages, only the tenant’s', async () => {
      const [a, b] = await tenants();
      const mine = [makeWalletProvider(a.id), makeWalletProvider(a.id), makeWalletProvider(a.id)];
      for (const p of mine) await providers().insert(p, 10);
      await providers().insert(makeWalletProvider(b.id), 10);
      const first = await providers().list(a.id, { limit: 2 });
      expect(first.items).toEqual([mine[0], mine[1]]);
      const rest = await providers().list(a.id, { limit: 2, after: first.last as number });
      expect(rest.items).toEqual([mine[2]]);
    });

    it('update replaces every field but tenant, id and creation time, the kind of anchor included; false when there is none', async () => {
      const [a, b] = await tenants();
      const p = makeWalletProvider(a.id);
      await providers().insert(p, 10);
      const { x509: _old, ...rest } = p;
      const replaced: WalletProvider = {
        ...rest,
        name: 'Renamed',
        trustedFor: ['walletAttestations'],
        jwks: { keys: [KEY] },
        createdAt: iso(60_000),
        updatedAt: iso(1000),
      };
      expect(await providers().update(replaced)).toBe(true);
      const got = await providers().get(a.id, p.id);
      expect(got).toEqual({ ...replaced, createdAt: p.createdAt });
      expect(got).not.toHaveProperty('x509');
      expect(await providers().update({ ...replaced, tenantId: b.id })).toBe(false);
      expect(await providers().update(makeWalletProvider(a.id))).toBe(false);
    });

    it('delete removes the tenant’s provider only; false when there is none', async () => {
      const [a, b] = await tenants();
      const p = makeWalletProvider(a.id);
      await providers().insert(p, 10);
      expect(await providers().delete(b.id, p.id)).toBe(false);
      expect(await providers().delete(a.id, p.id)).toBe(true);
      expect(await providers().delete(a.id, p.id)).toBe(false);
      expect(await providers().get(a.id, p.id)).toBeUndefined();
    });

    it('rolls back with the transaction', async () => {
      const t = await tenant();
      const p = makeWalletProvider(t.id);
      await expectWriteRolledBack(store(), 'boom', { write: (tx) => tx.walletProviders.insert(p, 10), read: (r) => r.walletProviders.get(t.id, p.id) });
    });
  });
}
