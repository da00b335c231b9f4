// The Store contract for wallet (OAuth) clients (ports.ts: WalletClientRepository, in
// core/src/oauth-clients/model.ts), run inside describeStoreContract against every adapter.
import type { Store, WalletClient } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectWriteRolledBack, inserting, iso, tenantMakers, unique } from './store-contract-support.ts';

/** A public wallet client of `tenantId` with every optional setting left out unless given. */
export function makeWalletClient(tenantId: string, over: Partial<WalletClient> = {}): WalletClient {
  const now = iso();
  return {
    tenantId,
    clientId: unique('wallet-'),
    clientName: 'Test wallet',
    redirectUris: ['https://wallet.example.com/cb', 'com.example.wallet:/cb'],
    grantTypes: ['authorization_code'],
    tokenEndpointAuthMethod: 'none',
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

const ROOT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUb3Jn\n-----END CERTIFICATE-----\n';

/** The wallet client part of the Store contract; `store` is read when the tests run. */
export function describeWalletClientContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const walletClient = inserting(makeWalletClient, (w) => store().walletClients.insert(w));

  describe('wallet clients', () => {
    it('stores every field as given, finds it within the tenant only, and leaves absent fields absent', async () => {
      const [a, b] = await tenants();
      const plain = makeWalletClient(a.id);
      const full = makeWalletClient(a.id, {
        clientName: 'Wallet “Ünïcode” ✓',
        redirectUris: ['http://127.0.0.1:8080/cb?x=1&y=%20', 'https://wallet.example.com/cb'],
        grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:pre-authorized_code'],
        tokenEndpointAuthMethod: 'client_secret_basic',
        secretHash: 'scrypt$1024$8$1$salt$hash',
        dpop: { required: true },
        clientAttestation: { rootCertificates: [ROOT], dpopRequired: false },
        credentialResponseEncryption: { required: false },
      });
      await store().walletClients.insert(plain);
      await store().walletClients.insert(full);
      const gotPlain = await store().walletClients.get(a.id, plain.clientId);
      expect(gotPlain).toEqual(plain);
      for (const key of ['secretHash', 'dpop', 'clientAttestation', 'credentialResponseEncryption']) expect(gotPlain).not.toHaveProperty(key);
      expect(await store().walletClients.get(a.id, full.clientId)).toEqual(full);
      expect(await store().walletClients.get(b.id, full.clientId)).toBeUndefined();
      expect(await store().walletClients.get(a.id, unique('nobody'))).toBeUndefined();
    });

    it('refuses a client id the tenant already has with Conflict; another tenant may use it', async () => {
      const [a, b] = await tenants();
      const c = await walletClient(a.id);
      await expectDomainError(store().walletClients.insert(makeWalletClient(a.id, { clientId: c.clientId, clientName: 'Other' })), 'Conflict');
      await store().walletClients.insert(makeWalletClient(b.id, { clientId: c.clientId }));
      expect((await store().walletClients.get(a.id, c.clientId))?.clientName).toBe(c.clientName);
      expect(await store().walletClients.get(b.id, c.clientId)).toMatchObject({ tenantId: b.id, clientId: c.clientId });
    });

    it('of racing inserts of one client id, exactly one wins', async () => {
      const t = await tenant();
      const clientId = unique('race-');
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => store().walletClients.insert(makeWalletClient(t.id, { clientId, clientName: `n${i}` }))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'Conflict' });
    });

    it('lists in creation order across pages, only the tenant’s', async () => {
      const [a, b] = await tenants();
      const mine = [makeWalletClient(a.id), makeWalletClient(a.id), makeWalletClient(a.id)];
      // Ids in reverse alphabetical order: the order must be creation order, not id order.
      mine.forEach((c, i) => (c.clientId = `${'z'.repeat(3 - i)}-${c.clientId}`));
      for (const c of mine) await store().walletClients.insert(c);
      await store().walletClients.insert(makeWalletClient(b.id));
      const first = await store().walletClients.list(a.id, { limit: 2 });
      expect(first.items).toEqual([mine[0], mine[1]]);
      const rest = await store().walletClients.list(a.id, { limit: 2, after: first.last as number });
      expect(rest.items).toEqual([mine[2]]);
      expect((await store().walletClients.list(a.id, { limit: 2, after: rest.last as number })).items).toEqual([]);
    });

    it('update replaces every field but tenant, id and creation time, removing optional ones left out; false when there is none', async () => {
      const [a, b] = await tenants();
      const c = makeWalletClient(a.id, {
        tokenEndpointAuthMethod: 'client_secret_post',
        secretHash: 'h1',
        dpop: { required: true },
        clientAttestation: { rootCertificates: [ROOT] },
      });
      await store().walletClients.insert(c);
      const replaced: WalletClient = {
        tenantId: a.id,
        clientId: c.clientId,
        clientName: 'Renamed',
        redirectUris: ['https://other.example.com/cb'],
        grantTypes: ['urn:ietf:params:oauth:grant-type:pre-authorized_code'],
        tokenEndpointAuthMethod: 'none',
        credentialResponseEncryption: { required: true },
        createdAt: iso(60_000),
        updatedAt: iso(1000),
      };
      expect(await store().walletClients.update(replaced)).toBe(true);
      const got = await store().walletClients.get(a.id, c.clientId);
      expect(got).toEqual({ ...replaced, createdAt: c.createdAt });
      expect(got).not.toHaveProperty('secretHash');
      expect(got).not.toHaveProperty('dpop');
      expect(got).not.toHaveProperty('clientAttestation');
      expect(await store().walletClients.update({ ...replaced, tenantId: b.id })).toBe(false);
      expect(await store().walletClients.update(makeWalletClient(a.id))).toBe(false);
      expect(await store().walletClients.get(b.id, c.clientId)).toBeUndefined();
    });

    it('delete removes the tenant’s client only; false when there is none', async () => {
      const [a, b] = await tenants();
      const c = await walletClient(a.id);
      expect(await store().walletClients.delete(b.id, c.clientId)).toBe(false);
      expect(await store().walletClients.delete(a.id, c.clientId)).toBe(true);
      expect(await store().walletClients.delete(a.id, c.clientId)).toBe(false);
      expect(await store().walletClients.get(a.id, c.clientId)).toBeUndefined();
      // The id is free again.
      await store().walletClients.insert(makeWalletClient(a.id, { clientId: c.clientId }));
    });

    it('values read are copies: changing one changes nothing stored', async () => {
      const t = await tenant();
      const c = await walletClient(t.id);
      c.redirectUris.push('https://changed.example.com/cb');
      const got = (await store().walletClients.get(t.id, c.clientId)) as WalletClient;
      expect(got.redirectUris).toHaveLength(2);
      got.redirectUris.length = 0;
      expect((await store().walletClients.get(t.id, c.clientId))?.redirectUris).toHaveLength(2);
    });

    it('rolls back with the transaction', async () => {
      const t = await tenant();
      const c = makeWalletClient(t.id);
      await expectWriteRolledBack(store(), 'boom', { write: (tx) => tx.walletClients.insert(c), read: (r) => r.walletClients.get(t.id, c.clientId) });
    });
  });
}
