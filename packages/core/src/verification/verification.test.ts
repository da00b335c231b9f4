// Verification (docs/verification.md): the trusted issuer service, its anchors, and the verify API's
// service over a fake FormatVerifier (the real verifiers are tested with credentials from other libraries).
import { describe, expect, it } from 'vitest';
import { contextFor } from '../../test/harness.ts';
import { createMemoryStore, fakeClock, fakeIds } from '../../test/kit.ts';
import { badBodyField, refusal } from '../../test/refusal.ts';
import { createEventRecorder } from '../events/recorder.ts';
import type { CertificateInfo } from '../mdoc-pki/ports.ts';
import type { Tenant } from '../tenancy/model.ts';
import type { FormatVerifier, VerifyOptions } from './model.ts';
import { createVerificationService } from './service.ts';
import { MAX_TRUSTED_ISSUERS_PER_TENANT } from './trusted-issuers/model.ts';
import { createTrustedIssuerService } from './trusted-issuers/service.ts';

const CA_A = '-----BEGIN CERTIFICATE-----\nQUFBQQ==\n-----END CERTIFICATE-----\n';
const CA_B = '-----BEGIN CERTIFICATE-----\nQkJCQg==\n-----END CERTIFICATE-----\n';
const LEAF = '-----BEGIN CERTIFICATE-----\nTExMTA==\n-----END CERTIFICATE-----\n';
const OLD = '-----BEGIN CERTIFICATE-----\nT0xET0xE\n-----END CERTIFICATE-----\n';

const fakeX509 = {
  parseCertificate(pem: string): CertificateInfo {
    return {
      notBefore: new Date('2026-01-01'),
      notAfter: pem === OLD ? new Date('2026-02-01') : new Date('2027-01-01'),
      isCa: pem !== LEAF,
    } as CertificateInfo;
  },
};

async function setup(verifiers: { sd?: FormatVerifier; mdoc?: FormatVerifier } = {}) {
  const store = createMemoryStore();
  const clock = fakeClock('2026-05-01T12:00:00.000Z');
  const ids = fakeIds();
  const events = createEventRecorder({ events: store.events, clock, ids });
  const trustedIssuers = createTrustedIssuerService({ store, clock, ids, events, x509: fakeX509, cacheMs: 60_000 });
  const calls: Array<{ credential: string; options: VerifyOptions }> = [];
  const recording =
    (format: 'dc+sd-jwt' | 'mso_mdoc'): FormatVerifier =>
    async (credential, options) => {
      calls.push({ credential, options });
      return credential === 'good'
        ? { verified: true, format, claims: { given_name: 'Erika' }, checks: [{ check: 'signature', ok: true }] }
        : {
            verified: false,
            format,
            claims: {},
            checks: [
              { check: 'signature', ok: false, reason: 'bad' },
              { check: 'issuer-trusted', ok: false, reason: 'untrusted' },
            ],
          };
    };
  const verification = createVerificationService({
    clock,
    events,
    trustedIssuers,
    verifiers: { 'dc+sd-jwt': verifiers.sd ?? recording('dc+sd-jwt'), ...(verifiers.mdoc ? { mso_mdoc: verifiers.mdoc } : {}) },
  });
  const tenant = (subdomain: string, loggingLevel: 1 | 2 | 3 = 3): Tenant => ({
    id: `tenant-${subdomain}`,
    subdomain,
    region: 'eu01',
    name: subdomain,
    loggingLevel,
    createdAt: clock.now().toISOString(),
  });
  const acme = tenant('acme');
  const other = tenant('other');
  const quiet = tenant('quiet', 2);
  for (const t of [acme, other, quiet]) await store.tenants.insert(t);
  return { store, clock, events, trustedIssuers, verification, calls, acme, other, quiet, ctx: contextFor(acme) };
}

describe('trusted issuers', () => {
  it('creates, lists by page, reads, replaces and deletes; the view holds exactly what was given', async () => {
    const { trustedIssuers: s, ctx } = await setup();
    const a = await s.create(ctx, { name: 'PID issuer', formats: ['dc+sd-jwt', 'mso_mdoc'], types: ['urn:eudi:pid:1'], certificates: [CA_A] });
    expect(a).toEqual({
      id: expect.any(String),
      name: 'PID issuer',
      formats: ['dc+sd-jwt', 'mso_mdoc'],
      types: ['urn:eudi:pid:1'],
      certificates: [CA_A],
      createdAt: '2026-05-01T12:00:00.000Z',
      updatedAt: '2026-05-01T12:00:00.000Z',
    });
    const b = await s.create(ctx, { name: 'DID issuer', formats: ['ldp_vc'], did: 'did:web:issuer.example.com' });
    expect(b).not.toHaveProperty('types');
    expect(b).not.toHaveProperty('certificates');
    const first = await s.list(ctx, { limit: 1 });
    expect(first.data).toEqual([a]);
    expect((await s.list(ctx, { cursor: first.nextCursor as string })).data).toEqual([b]);
    expect(await s.get(ctx, a.id)).toEqual(a);
    const replaced = await s.update(ctx, a.id, { name: 'Renamed', formats: ['mso_mdoc'], did: 'did:key:z6Mk' });
    expect(replaced).toEqual({ id: a.id, name: 'Renamed', formats: ['mso_mdoc'], did: 'did:key:z6Mk', createdAt: a.createdAt, updatedAt: expect.any(String) });
    await s.delete(ctx, a.id);
    expect(await refusal(s.get(ctx, a.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(s.delete(ctx, a.id))).toMatchObject({ code: 'NotFound' });
  });

  it('refuses, naming each field: no anchor, both anchors, a leaf or expired certificate, an unknown or repeated format, a bad DID', async () => {
    const { trustedIssuers: s, ctx } = await setup();
    expect(await refusal(s.create(ctx, { name: 'x', formats: ['mso_mdoc'] }))).toMatchObject(
      badBodyField('certificates', 'Required: one of certificates or did'),
    );
    expect(await refusal(s.create(ctx, { name: 'x', formats: ['mso_mdoc'], certificates: [CA_A], did: 'did:web:a.example' }))).toMatchObject(
      badBodyField('did', 'Give certificates or did, not both'),
    );
    const bad = await refusal(s.create(ctx, { name: 'x', formats: ['mso_mdoc', 'mso_mdoc'], certificates: [CA_A, LEAF, OLD] }));
    expect(bad).toMatchObject(badBodyField('formats.1', 'Listed twice'));
    expect(bad).toMatchObject(badBodyField('certificates.1', 'Not a CA certificate (BasicConstraints cA is not true)'));
    expect(bad).toMatchObject(badBodyField('certificates.2', 'The certificate has expired'));
    expect(await refusal(s.create(ctx, { name: 'x', formats: ['jwt_vc'], did: 'did:web:a.example' }))).toMatchObject(badBodyField('formats'));
    expect(await refusal(s.create(ctx, { name: 'x', formats: [], did: 'did:web:a.example' }))).toMatchObject(badBodyField('formats'));
    expect(await refusal(s.create(ctx, { name: 'x', formats: ['cwt'], did: 'web:a.example' }))).toMatchObject(
      badBodyField('did', 'A DID such as did:web:issuer.example.com'),
    );
    expect(await refusal(s.create(ctx, { name: 'x', formats: ['cwt'], did: 'did:web:a', extra: 1 }))).toMatchObject(badBodyField('extra', 'Unknown field'));
    expect(await refusal(s.get(ctx, 'not-a-uuid'))).toMatchObject({
      code: 'BadRequest',
      details: [expect.objectContaining({ param: 'id', location: 'params' })],
    });
  });

  it('lets admin and verifier manage them; issuer, auditor and no caller are refused; another tenant sees none of them', async () => {
    const { trustedIssuers: s, acme, other } = await setup();
    const made = await s.create(contextFor(acme, 'verifier'), { name: 'v', formats: ['dc+sd-jwt'], certificates: [CA_A] });
    expect((await s.list(contextFor(acme, 'admin'), {})).data).toHaveLength(1);
    for (const role of ['issuer', 'managed-issuer', 'auditor'] as const) {
      expect(await refusal(s.list(contextFor(acme, role), {}))).toMatchObject({ code: 'Forbidden' });
    }
    expect(await refusal(s.list(contextFor(acme, null), {}))).toMatchObject({ code: 'Unauthorized' });
    expect(await refusal(s.get(contextFor(other), made.id))).toMatchObject({ code: 'NotFound' });
    expect((await s.list(contextFor(other), {})).data).toEqual([]);
  });

  it(`holds at most ${MAX_TRUSTED_ISSUERS_PER_TENANT} per tenant (409 beyond)`, async () => {
    const { trustedIssuers: s, ctx } = await setup();
    for (let i = 0; i < MAX_TRUSTED_ISSUERS_PER_TENANT; i++) await s.create(ctx, { name: `i${i}`, formats: ['cwt'], did: `did:web:i${i}.example` });
    expect(await refusal(s.create(ctx, { name: 'one more', formats: ['cwt'], did: 'did:web:x.example' }))).toMatchObject({ code: 'Conflict' });
  });

  it('anchorsFor gives one anchor per certificate or DID, of the tenant only and of issuers listing the format; a change is seen at once', async () => {
    const { trustedIssuers: s, ctx, other, acme } = await setup();
    const both = await s.create(ctx, { name: 'both', formats: ['dc+sd-jwt', 'mso_mdoc'], types: ['org.iso.18013.5.1.mDL'], certificates: [CA_A, CA_B] });
    const did = await s.create(ctx, { name: 'did', formats: ['dc+sd-jwt'], did: 'did:web:sd.example' });
    await s.create(ctx, { name: 'ldp', formats: ['ldp_vc'], did: 'did:web:ldp.example' });
    await s.create(contextFor(other), { name: 'foreign', formats: ['mso_mdoc'], certificates: [CA_B] });
    expect(await s.anchorsFor(acme.id, 'mso_mdoc')).toEqual([
      { kind: 'x509', trustedIssuerId: both.id, certificatePem: CA_A, formats: ['dc+sd-jwt', 'mso_mdoc'], types: ['org.iso.18013.5.1.mDL'] },
      { kind: 'x509', trustedIssuerId: both.id, certificatePem: CA_B, formats: ['dc+sd-jwt', 'mso_mdoc'], types: ['org.iso.18013.5.1.mDL'] },
    ]);
    const sd = await s.anchorsFor(acme.id, 'dc+sd-jwt');
    expect(sd.map((a) => a.trustedIssuerId)).toEqual([both.id, both.id, did.id]);
    expect(sd[2]).toEqual({ kind: 'did', trustedIssuerId: did.id, did: 'did:web:sd.example', formats: ['dc+sd-jwt'] });
    await s.delete(ctx, both.id);
    expect(await s.anchorsFor(acme.id, 'mso_mdoc')).toEqual([]);
  });

  it('anchorsFor reuses the tenant’s issuers within cacheMs (a write behind the service’s back is not seen until then)', async () => {
    const { trustedIssuers: s, ctx, acme, store, clock } = await setup();
    await s.create(ctx, { name: 'a', formats: ['mso_mdoc'], certificates: [CA_A] });
    expect(await s.anchorsFor(acme.id, 'mso_mdoc')).toHaveLength(1);
    const at = clock.now().toISOString();
    await store.trustedIssuers.insert(
      { tenantId: acme.id, id: '00000000-0000-4000-8000-000000000001', name: 'b', formats: ['mso_mdoc'], certificates: [CA_B], createdAt: at, updatedAt: at },
      100,
    );
    expect(await s.anchorsFor(acme.id, 'mso_mdoc')).toHaveLength(1);
    clock.advance(60_001);
    expect(await s.anchorsFor(acme.id, 'mso_mdoc')).toHaveLength(2);
  });
});

describe('the verify API service', () => {
  it('passes the verifier only the tenant’s anchors for the format, with the nonce, audience and time; answers its result (failed too)', async () => {
    const { trustedIssuers: s, verification, calls, ctx, other } = await setup();
    const mine = await s.create(ctx, { name: 'sd', formats: ['dc+sd-jwt'], certificates: [CA_A] });
    await s.create(ctx, { name: 'mdoc only', formats: ['mso_mdoc'], certificates: [CA_B] });
    await s.create(contextFor(other), { name: 'foreign', formats: ['dc+sd-jwt'], certificates: [CA_B] });
    const ok = await verification.verify(ctx, 'dc+sd-jwt', { credential: 'good', nonce: 'n-1', audience: 'https://verifier.example' });
    expect(ok).toMatchObject({ verified: true, claims: { given_name: 'Erika' } });
    expect(calls[0]?.credential).toBe('good');
    expect(calls[0]?.options).toEqual({
      anchors: [{ kind: 'x509', trustedIssuerId: mine.id, certificatePem: CA_A, formats: ['dc+sd-jwt'] }],
      now: new Date('2026-05-01T12:00:00.000Z'),
      nonce: 'n-1',
      audience: 'https://verifier.example',
    });
    const failed = await verification.verify(ctx, 'dc+sd-jwt', { credential: 'tampered' });
    expect(failed).toMatchObject({
      verified: false,
      checks: [
        { check: 'signature', ok: false },
        { check: 'issuer-trusted', ok: false },
      ],
    });
    expect(calls[1]?.options).not.toHaveProperty('nonce');
  });

  it('decodes the session transcript for mso_mdoc and refuses it for SD-JWT VC; malformed bodies are 400s naming the field', async () => {
    const mdocCalls: VerifyOptions[] = [];
    const { verification, ctx } = await setup({
      mdoc: async (_c, options) => {
        mdocCalls.push(options);
        return { verified: false, format: 'mso_mdoc', claims: {}, checks: [] };
      },
    });
    await verification.verify(ctx, 'mso_mdoc', { credential: 'b21kb2M', sessionTranscript: Buffer.from([0x83, 0xf6, 0xf6, 0xf6]).toString('base64url') });
    expect(mdocCalls[0]?.sessionTranscript).toEqual(new Uint8Array([0x83, 0xf6, 0xf6, 0xf6]));
    expect(await refusal(verification.verify(ctx, 'dc+sd-jwt', { credential: 'a.b.c~', sessionTranscript: 'gw' }))).toMatchObject(
      badBodyField('sessionTranscript'),
    );
    expect(await refusal(verification.verify(ctx, 'dc+sd-jwt', {}))).toMatchObject(badBodyField('credential'));
    expect(await refusal(verification.verify(ctx, 'dc+sd-jwt', { credential: 'a b' }))).toMatchObject(badBodyField('credential'));
    expect(await refusal(verification.verify(ctx, 'dc+sd-jwt', { credential: 'x'.repeat(100_001) }))).toMatchObject(badBodyField('credential'));
    expect(await refusal(verification.verify(ctx, 'dc+sd-jwt', { credential: 'x', more: 1 }))).toMatchObject(badBodyField('more', 'Unknown field'));
  });

  it('refuses a format not verifiable yet (400) and one whose verifier the host did not compose (503), never calling a verifier', async () => {
    const { verification, ctx, calls } = await setup();
    expect(await refusal(verification.verify(ctx, 'ldp_vc', { credential: 'x' }))).toMatchObject({
      code: 'BadRequest',
      message: 'The ldp_vc format is not verifiable yet',
    });
    expect(await refusal(verification.verify(ctx, 'mso_mdoc', { credential: 'x' }))).toMatchObject({
      code: 'ServiceUnavailable',
      message: 'This server has no mso_mdoc verifier',
    });
    expect(calls).toHaveLength(0);
  });

  it('a verifier that throws gives a failed result, not a crash', async () => {
    const { verification, ctx } = await setup({
      sd: async () => {
        throw new Error('boom');
      },
    });
    expect(await verification.verify(ctx, 'dc+sd-jwt', { credential: 'x' })).toEqual({
      verified: false,
      format: 'dc+sd-jwt',
      claims: {},
      checks: [{ check: 'readable', ok: false, reason: 'The credential could not be read' }],
    });
  });

  it('admin and verifier may verify; issuer and auditor may not', async () => {
    const { verification, acme } = await setup();
    for (const role of ['admin', 'verifier'] as const)
      expect((await verification.verify(contextFor(acme, role), 'dc+sd-jwt', { credential: 'good' })).verified).toBe(true);
    for (const role of ['issuer', 'managed-issuer', 'auditor'] as const) {
      expect(await refusal(verification.verify(contextFor(acme, role), 'dc+sd-jwt', { credential: 'good' }))).toMatchObject({ code: 'Forbidden' });
    }
  });

  it('records CREDENTIAL_VERIFY with the format, the outcome, the failed checks and their reasons; at level 2 never the credential or claims', async () => {
    const { verification, events, store, quiet, ctx } = await setup();
    await verification.verify(contextFor(quiet), 'dc+sd-jwt', { credential: 'tampered' });
    await verification.verify(ctx, 'dc+sd-jwt', { credential: 'good' });
    await events.flush();
    const [level2] = (await store.events.list(quiet.id, { types: ['CREDENTIAL_VERIFY_SUCCESS'] }, { limit: 5 })).items;
    expect(level2?.category).toBe('verification');
    expect(level2?.data).toEqual({ format: 'dc+sd-jwt', verified: false, failedChecks: ['signature', 'issuer-trusted'], reasons: ['bad', 'untrusted'] });
    expect(JSON.stringify((await store.events.list(quiet.id, {}, { limit: 10 })).items)).not.toContain('tampered');
    const [level3] = (await store.events.list(ctx.tenant.id, { types: ['CREDENTIAL_VERIFY_SUCCESS'] }, { limit: 5 })).items;
    expect(level3?.data).toMatchObject({ format: 'dc+sd-jwt', verified: true, failedChecks: [] });
  });
});
