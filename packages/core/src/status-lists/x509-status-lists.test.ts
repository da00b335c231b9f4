import { describe, expect, it } from 'vitest';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';
import { fakeCertificatePem, fakeCsrBody } from '../../test/kit.ts';
import { importedRoot } from '../../test/mdoc-pki.ts';
import { refusal } from '../../test/refusal.ts';
import type { TokenListForm } from './model.ts';

// docs/status-lists.md "Status list tokens signed with X.509 (issue 29)": the Token Status Lists of
// credentials signed under a tenant's issuer CA are lists of that CA, signed with x5c by its
// current status list leaf; an expired or revoked leaf never signs, and caches never outlive exp.

const ISSUER = `https://acme.eu01.${PLATFORM}`;
const HOUR = 3_600_000;
const pemBody = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');

async function setup(managed = true) {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  const ctx = contextFor(tenant);
  const ca = managed ? await h.issuerCas.create(ctx, { country: 'US' }) : await h.issuerCas.create(ctx, { certificatePem: importedRoot() });
  await h.issuerCas.update(ctx, ca.id, { active: true });
  /** The list entry of one more credential signed under `caId`, and its list's id. */
  const allocate = async (form: TokenListForm = 'token-jwt', caId = ca.id) => {
    const entry = await h.statusLists.allocateReferenced(tenant, form, { kind: 'x509', caId }, ISSUER);
    return { ...entry, listId: entry.uri.slice(entry.uri.lastIndexOf('/') + 1) };
  };
  const serve = (form: TokenListForm, listId: string) => h.statusLists.referencedList(contextFor(tenant, null), form, listId);
  const leaves = async (use: 'credential' | 'status-list') => (await h.issuerSigners.list(ctx, {})).data.filter((l) => l.use === use);
  return { ...h, tenant, ctx, ca, allocate, serve, leaves };
}

describe('Token Status Lists signed under the issuer CA (issue 29 point 4)', () => {
  it('puts entries of credentials signed under a CA in one list of that CA, apart from the DID lists', async () => {
    const s = await setup();
    const did = (await s.dids.create(s.ctx, { method: 'key', options: { keyType: 'P-256' } })).did;
    const a = await s.allocate();
    const b = await s.allocate();
    const byDid = await s.statusLists.allocateReferenced(s.tenant, 'token-jwt', did, ISSUER);
    expect(b.listId).toBe(a.listId);
    expect(a.uri).toBe(`${ISSUER}/v2/credentials/sd-jwt/status-lists/${a.listId}`);
    expect(byDid.listId).not.toBe(a.listId);
    expect((await s.store.statusLists.list(s.tenant.id)).map((l) => l.kind).sort()).toEqual([`token-jwt:${did}`, `token-jwt:x509:${s.ca.id}`]);
    expect(a.idx).not.toBe(b.idx);
    // A RevocationList2020 credential is signed by a DID alone.
    await expect(s.statusLists.allocateReferenced(s.tenant, 'revocation-list', { kind: 'x509', caId: s.ca.id }, ISSUER)).rejects.toThrow();
  });

  it.each(['token-jwt', 'token-cwt'] as const)(
    '%s: signed with x5c by a status list leaf naming the issuer, no kid, iss the issuer, the list as it is',
    async (form) => {
      const s = await setup();
      const { listId, idx } = await s.allocate(form);
      const served = await s.serve(form, listId);
      const [leaf] = await s.leaves('status-list');
      expect(leaf).toMatchObject({ issuerCaId: s.ca.id, subjectAltNames: [ISSUER, `acme.eu01.${PLATFORM}`] });
      const input = s.tokenStatusLists.inputs.at(-1);
      expect(input).toMatchObject({
        form: form === 'token-jwt' ? 'jwt' : 'cwt',
        issuer: ISSUER,
        uri: `${ISSUER}${form === 'token-jwt' ? '/v2/credentials/sd-jwt' : '/v2/credentials/compact'}/status-lists/${listId}`,
      });
      expect(input).not.toHaveProperty('kid');
      expect(input?.x5c?.x5c).toEqual([pemBody(leaf?.certificatePem as string)]);
      expect(input?.x5c?.x5chain).toHaveLength(1);
      // The status list leaf signs it, never the credential leaf (made when the CA was activated): a key of its own.
      const credentialLeaves = await s.leaves('credential');
      expect(credentialLeaves).toHaveLength(1);
      expect(credentialLeaves[0]?.id).not.toBe(leaf?.id);
      expect(input?.keyId).toBeDefined();
      expect(s.tokenStatusLists.leafOf(input?.form as 'jwt', served.body)).toBe(pemBody(leaf?.certificatePem as string));
      // ttl an hour, exp a day (docs/status-lists.md), and HTTP caches keep it no longer than the ttl.
      expect(input?.ttlSeconds).toBe(3600);
      expect((input?.expiresAt as Date).getTime() - (input?.issuedAt as Date).getTime()).toBe(24 * HOUR);
      expect(served.maxAgeSeconds).toBe(3600);
      expect(served.mediaType).toBe(form === 'token-jwt' ? 'application/statuslist+jwt' : 'application/statuslist+cwt');
      // The entry reads valid (0), in a list of 500,000 one-bit entries.
      expect(input?.statuses).toHaveLength(500_000 / 8);
      expect((((input?.statuses as Uint8Array)[idx >> 3] as number) >> (idx & 7)) & 1).toBe(0);
    },
  );

  it('serves the kept token again, and signs anew when the list changes', async () => {
    const s = await setup();
    const { listId } = await s.allocate();
    const first = await s.serve('token-jwt', listId);
    const signed = s.tokenStatusLists.inputs.length;
    s.clock.advance(10 * 60_000);
    const again = await s.serve('token-jwt', listId);
    expect(again.body).toEqual(first.body);
    expect(s.tokenStatusLists.inputs.length).toBe(signed);
    // Ten minutes later, the kept token's exp is still far: the ttl bounds the cache.
    expect(again.maxAgeSeconds).toBe(3600);
  });

  it('never uses a revoked status list leaf: the kept token it signed is not served again, and a new leaf signs', async () => {
    const s = await setup();
    const { listId } = await s.allocate();
    await s.serve('token-jwt', listId);
    const [revoked] = await s.leaves('status-list');
    await s.issuerSigners.revoke(s.ctx, revoked?.id as string);
    const signed = s.tokenStatusLists.inputs.length;
    await s.serve('token-jwt', listId);
    expect(s.tokenStatusLists.inputs.length).toBe(signed + 1);
    const input = s.tokenStatusLists.inputs.at(-1);
    expect(input?.x5c?.x5c[0]).not.toBe(pemBody(revoked?.certificatePem as string));
    const current = (await s.leaves('status-list')).find((l) => l.revokedAt === undefined);
    expect(input?.x5c?.x5c[0]).toBe(pemBody(current?.certificatePem as string));
  });

  it('keeps a list verifiable across rotation: the leaf rotated in re-signs it, under the same CA', async () => {
    const s = await setup();
    const { listId } = await s.allocate();
    await s.serve('token-jwt', listId);
    const [old] = await s.leaves('status-list');
    // Near the leaf's end, the managed CA rotates it.
    s.clock.set(new Date(Date.parse(old?.certificateData?.notAfter as string) - 30 * 24 * HOUR));
    await s.serve('token-jwt', listId);
    const input = s.tokenStatusLists.inputs.at(-1);
    expect(input?.x5c?.x5c[0]).not.toBe(pemBody(old?.certificatePem as string));
    expect((await s.leaves('status-list')).every((l) => l.issuerCaId === s.ca.id)).toBe(true);
  });

  it('under an imported CA: exp never past the leaf’s end nor the ttl past exp, and an expired leaf never signs (503)', async () => {
    const s = await setup(false);
    const leaf = await s.issuerSigners.create(s.ctx, { issuerCaId: s.ca.id, use: 'status-list' });
    const now = s.clock.now().getTime();
    const ends = new Date(now + 30 * 60_000);
    const certificatePem = fakeCertificatePem({
      serialNumber: '03',
      subject: { commonName: 'Status List Signer', country: 'US' },
      issuer: s.ca.certificateFingerprint,
      notBefore: '2026-04-01T00:00:00.000Z',
      notAfter: ends.toISOString(),
      publicKey: fakeCsrBody(leaf.csrPem as string)?.publicKey as never,
      isCa: false,
      extendedKeyUsages: [],
      subjectAltNames: [ISSUER],
    });
    await s.issuerSigners.update(s.ctx, leaf.id, { active: true, certificatePem });
    const { listId } = await s.allocate();
    const served = await s.serve('token-jwt', listId);
    const input = s.tokenStatusLists.inputs.at(-1);
    expect(input?.expiresAt.getTime()).toBeLessThanOrEqual(ends.getTime());
    expect(input?.ttlSeconds).toBeLessThanOrEqual(((input?.expiresAt.getTime() as number) - (input?.issuedAt.getTime() as number)) / 1000);
    expect(served.maxAgeSeconds).toBeLessThanOrEqual(Math.floor((ends.getTime() - now) / 1000));
    expect(served.maxAgeSeconds).toBeGreaterThan(0);
    s.clock.set(new Date(ends.getTime() + 1000));
    const signed = s.tokenStatusLists.inputs.length;
    expect(await refusal(s.serve('token-jwt', listId))).toMatchObject({ code: 'ServiceUnavailable' });
    expect(s.tokenStatusLists.inputs.length).toBe(signed);
  });

  it('after another issuer CA is activated, a list of the first is still signed under the first', async () => {
    const s = await setup();
    const { listId } = await s.allocate();
    await s.serve('token-jwt', listId);
    const second = await s.issuerCas.create(s.ctx, { country: 'US', commonName: 'Second Issuer CA' });
    await s.issuerCas.update(s.ctx, second.id, { active: true });
    const other = await s.allocate('token-jwt', second.id);
    expect(other.listId).not.toBe(listId);
    // A day on, the kept token nears its exp and is signed anew.
    s.clock.advance(24 * HOUR);
    await s.serve('token-jwt', listId);
    const first = (await s.leaves('status-list')).find((l) => l.issuerCaId === s.ca.id);
    expect(s.tokenStatusLists.inputs.at(-1)?.x5c?.x5c[0]).toBe(pemBody(first?.certificatePem as string));
    await s.serve('token-jwt', other.listId);
    const ofSecond = (await s.leaves('status-list')).find((l) => l.issuerCaId === second.id);
    expect(s.tokenStatusLists.inputs.at(-1)?.x5c?.x5c[0]).toBe(pemBody(ofSecond?.certificatePem as string));
  });
});
