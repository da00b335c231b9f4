import { describe, expect, it } from 'vitest';
import { holderKey } from '../../test/credentials.ts';
import { recordedEvents } from '../../test/events.ts';
import { contextFor, withTenant } from '../../test/harness.ts';
import type { MdocConfiguration } from '../configurations/model.ts';
import { signingDidOf } from '../credential-formats/signing-did.ts';

// Issue 32, point 4 (docs/key-custody.md "Rotation"): each signing role rotates on request; a new
// key signs from then on, and what the old one signed keeps verifying.

const NOW = '2026-05-01T12:00:00.000Z';
const ISSUER = 'https://acme.eu01.vellum.test';

const mdl = (tenantId: string): MdocConfiguration => ({
  id: 'cfg-1',
  tenantId,
  format: 'mso_mdoc',
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 30 },
  includeStatus: false,
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
  createdAt: NOW,
  updatedAt: NOW,
});

async function setup() {
  const h = await withTenant();
  const issueMdoc = () =>
    h.mdocIssuance.issue({ tenant: h.tenant, configuration: mdl(h.tenant.id), subject: { claims: { familyName: 'Turner' } }, holderKey: holderKey() });
  return { ...h, issueMdoc };
}

describe('rotating signing keys on request, role by role (issue 32, point 4)', () => {
  it('document-signers: each managed IACA gets a new signer that signs from now on; the old one is neither revoked nor deactivated', async () => {
    const h = await setup();
    const iaca = await h.iacas.create(h.ctx, { country: 'US' });
    await h.iacas.update(h.ctx, iaca.id, { active: true });
    const before = await h.issueMdoc();
    const rotated = await h.signingKeys.rotate(h.ctx, 'document-signers');
    expect(rotated).toEqual({
      role: 'document-signers',
      rotatedAt: NOW,
      active: [expect.any(String)],
      retired: [{ id: before.documentSignerId, until: expect.any(String) }],
    });
    expect(rotated.active[0]).not.toBe(before.documentSignerId);
    // Made in the same second as the old one, the new signer lasts as long: it signs, being made last.
    expect((await h.issueMdoc()).documentSignerId).toBe(rotated.active[0]);
    const old = await h.documentSigners.get(h.ctx, before.documentSignerId);
    expect(old).toMatchObject({ active: true });
    expect(old.revokedAt).toBeUndefined();
    // Again: the second rotation supersedes the first's signer.
    h.clock.advance(60_000);
    const again = await h.signingKeys.rotate(h.ctx, 'document-signers');
    expect(again.retired.map((r) => r.id)).toEqual(rotated.active);
    expect((await h.issueMdoc()).documentSignerId).toBe(again.active[0]);
  });

  it('issuer-certificates: each leaf in use under the managed issuer CA gets a successor; both stay published', async () => {
    const h = await setup();
    const ca = await h.issuerCas.create(h.ctx, { country: 'US' });
    await h.issuerCas.update(h.ctx, ca.id, { active: true });
    const first = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    const rotated = await h.signingKeys.rotate(h.ctx, 'issuer-certificates');
    expect(rotated).toMatchObject({ role: 'issuer-certificates', retired: [{ id: first.signerId }] });
    expect(rotated.active).toHaveLength(1);
    const next = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    expect(next.signerId).toBe(rotated.active[0]);
    expect((await h.issuerSigning.published(h.tenant, 'credential', ISSUER, h.clock.now())).map((s) => s.signerId).sort()).toEqual(
      [first.signerId, next.signerId].sort(),
    );
  });

  it('finds nothing to rotate where no managed CA has a signer in use, and says so with empty lists', async () => {
    const h = await setup();
    for (const role of ['document-signers', 'issuer-certificates'] as const) {
      expect(await h.signingKeys.rotate(h.ctx, role)).toEqual({ role, rotatedAt: NOW, active: [], retired: [] });
    }
  });

  it('access-token: asks the WalletTokens for a new key with the overlap, never shorter than a token’s life and a refresh', async () => {
    const h = await setup();
    const rotated = await h.signingKeys.rotate(h.ctx, 'access-token', { overlapSeconds: 3600 });
    expect(rotated).toEqual({ role: 'access-token', rotatedAt: NOW, active: ['fake-1'], retired: [{ id: 'fake-0', until: '2026-05-01T13:00:00.000Z' }] });
    await expect(h.signingKeys.rotate(h.ctx, 'access-token')).rejects.toMatchObject({ code: 'Conflict' });
    h.clock.advance(3600_000);
    // A day when none is asked for.
    expect((await h.signingKeys.rotate(h.ctx, 'access-token')).retired).toEqual([{ id: 'fake-1', until: '2026-05-02T13:00:00.000Z' }]);
    await expect(h.signingKeys.rotate(h.ctx, 'access-token', { overlapSeconds: 600 })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'overlapSeconds', msg: expect.stringContaining('At least 900 seconds') }],
    });
    await expect(h.signingKeys.rotate(h.ctx, 'access-token', { overlap: 5 })).rejects.toMatchObject({ code: 'BadRequest' });
    await expect(h.signingKeys.rotate(h.ctx, 'document-signers', { overlapSeconds: 3600 })).rejects.toMatchObject({ code: 'BadRequest' });
  });

  it('webhook: makes a new webhook signing key, which the JWKS lists first (the old one stays while a pending delivery signs with it)', async () => {
    const h = await setup();
    const before = await h.webhooks.jwks(h.ctx);
    const rotated = await h.signingKeys.rotate(h.ctx, 'webhook');
    expect(rotated.retired).toEqual([{ id: before.keys[0]?.kid }]);
    expect(rotated.active[0]).not.toBe(before.keys[0]?.kid);
    expect((await h.webhooks.jwks(h.ctx)).keys.map((k) => k.kid)).toEqual([rotated.active[0]]);
  });

  it('needs the permission that manages each role, and records an event for each rotation', async () => {
    const h = await setup();
    const auditor = contextFor(h.tenant, 'auditor');
    for (const role of ['access-token', 'webhook', 'document-signers', 'issuer-certificates'] as const) {
      await expect(h.signingKeys.rotate(auditor, role)).rejects.toMatchObject({ code: 'Forbidden' });
    }
    // A managed issuer may rotate what it issues with, but not make CAs.
    await expect(h.signingKeys.rotate(contextFor(h.tenant, 'managed-issuer'), 'document-signers')).resolves.toMatchObject({ role: 'document-signers' });
    await h.signingKeys.rotate(h.ctx, 'access-token');
    const events = await recordedEvents(h, h.tenant.id);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'SIGNING_KEY_ACCESS_TOKEN_ROTATE_SUCCESS',
        'SIGNING_KEY_DOCUMENT_SIGNERS_ROTATE_SUCCESS',
        'SIGNING_KEY_WEBHOOK_ROTATE_FAIL',
        'SIGNING_KEY_ISSUER_CERTIFICATES_ROTATE_FAIL',
      ]),
    );
    expect(events.find((e) => e.type === 'SIGNING_KEY_ACCESS_TOKEN_ROTATE_SUCCESS')).toMatchObject({ category: 'signing-keys', clientId: 'client-admin' });
  });

  it('dids: a did:web signs with new keys at once; the old ones stay in its document through the overlap, then go, and are destroyed at the next rotation', async () => {
    const h = await setup();
    const web = await h.dids.create(h.ctx, { method: 'web', options: { url: 'acme.eu01.vellum.test' } });
    const anonymous = contextFor(h.tenant, null);
    const first = await signingDidOf(h.store, h.tenant.id, web.did, 'Ed25519');
    const keysBefore = h.keys.count(h.tenant.id);
    const rotated = await h.signingKeys.rotate(h.ctx, 'dids', { did: web.did, overlapSeconds: 3600 });
    expect(rotated).toMatchObject({ role: 'dids', active: [expect.stringContaining(`${web.did}#`), expect.stringContaining(`${web.did}#`)] });
    expect(rotated.retired).toEqual(web.localMetadata.keys.map((k) => ({ id: k.didDocumentKeyId, until: '2026-05-01T13:00:00.000Z' })));
    // Credentials are signed with the new Ed25519 key from now on.
    const now = await signingDidOf(h.store, h.tenant.id, web.did, 'Ed25519');
    expect(now.key.didDocumentKeyId).not.toBe(first.key.didDocumentKeyId);
    expect(rotated.active).toContain(now.key.didDocumentKeyId);
    expect((await h.dids.webDocument(anonymous, [])).assertionMethod).toHaveLength(4);
    h.clock.advance(3600_000);
    expect((await h.dids.webDocument(anonymous, [])).assertionMethod).toEqual(rotated.active);
    // Still held until the next rotation, which destroys them.
    expect(h.keys.count(h.tenant.id)).toBe(keysBefore + 2);
    await h.signingKeys.rotate(h.ctx, 'dids', { did: web.did });
    expect(h.keys.count(h.tenant.id)).toBe(keysBefore + 2);
    expect((await h.store.dids.get(h.tenant.id, web.did))?.keys).toHaveLength(4);
    // Without an overlap the retired keys stay listed.
    h.clock.advance(10 * 365 * 86_400_000);
    expect((await h.dids.webDocument(anonymous, [])).assertionMethod).toHaveLength(4);
  });

  it('dids: refuses a did:key, an unknown DID and a body without a DID', async () => {
    const h = await setup();
    const key = await h.dids.create(h.ctx, { method: 'key' });
    await expect(h.signingKeys.rotate(h.ctx, 'dids', { did: key.did })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'did', msg: expect.stringContaining('A did:key cannot rotate') }],
    });
    await expect(h.signingKeys.rotate(h.ctx, 'dids', { did: 'did:web:nowhere.example' })).rejects.toMatchObject({ code: 'NotFound' });
    await expect(h.signingKeys.rotate(h.ctx, 'dids')).rejects.toMatchObject({ code: 'BadRequest' });
    expect((await h.store.dids.get(h.tenant.id, key.did))?.keys).toHaveLength(1);
  });
});
