import { describe, expect, it } from 'vitest';
import { holderKey, issuing, signingTenant } from '../../test/format-issuance.ts';
import { fakeCwtSigner } from '../../test/kit.ts';
import type { CwtConfiguration } from '../configurations/model.ts';
import { didKeyOf } from '../dids/did-key.ts';
import { createCwtFormat } from './cwt.ts';

const NOW = new Date('2026-05-01T12:00:00.750Z');
const WHOLE_NOW = new Date('2026-05-01T12:00:00.000Z');

function configurationOf(format: 'cwt' | 'cwt_vc', tenantId: string, over: Partial<CwtConfiguration> = {}): CwtConfiguration {
  return {
    id: 'cfg-cwt',
    tenantId,
    format,
    type: 'EmployeeBadge',
    expiresIn: { days: 30 },
    revocable: false,
    claimMappings: {
      given_name: { mapFrom: 'claims.givenName', required: true },
      employee_id: { mapFrom: 'claims.employee.id' },
      department: { defaultValue: 'Research' },
      nickname: { mapFrom: 'claims.nickname' },
    },
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    ...over,
  };
}

const subject = { claims: { givenName: 'Susan', employee: { id: 4711 } } };

async function setup(format: 'cwt' | 'cwt_vc' = 'cwt') {
  const t = await signingTenant();
  const signer = fakeCwtSigner(t.keys);
  const handler = createCwtFormat({ store: t.store, signer, format });
  const holder = holderKey();
  const issue = issuing(handler, { tenant: t.tenant, configuration: configurationOf(format, t.tenant.id), subject, holderKey: holder, now: NOW });
  return { ...t, signer, handler, holder, issue };
}

describe('cwt issuance (RFC 8392 claims, docs/decisions.md "Credential configurations" signing DID)', () => {
  it('signs iss = the DID, sub = the holder’s did:key, iat = nbf = issuance, exp = + expiresIn, cnf = the holder key, with the DID key as kid', async () => {
    const { issue, signer, p256Did, holder, tenant } = await setup('cwt');
    const did = await p256Did();
    const issued = await issue();
    expect(signer.inputs).toHaveLength(1);
    const [input] = signer.inputs;
    expect(input).toMatchObject({ tenantId: tenant.id, keyId: did.localMetadata.keys[0]?.kmsKeyId, kid: did.localMetadata.keys[0]?.didDocumentKeyId });
    expect(input?.kid).toMatch(new RegExp(`^${did.did}#zDn`));
    expect(input?.claims).toMatchObject({ iss: did.did, sub: didKeyOf(holder), cnf: holder });
    // Whole seconds: the fraction of `now` is dropped, never rounded up (RFC 8392 §2 NumericDate).
    expect(input?.claims.iat).toEqual(WHOLE_NOW);
    expect(input?.claims.nbf).toEqual(WHOLE_NOW);
    expect(input?.claims.exp).toEqual(new Date('2026-05-31T12:00:00.000Z'));
    expect(issued).toEqual({ credential: expect.any(String), validFrom: '2026-05-01T12:00:00.000Z', validUntil: '2026-05-31T12:00:00.000Z' });
    // The credential is whatever the signer returned.
    expect(JSON.parse(Buffer.from(issued.credential as string, 'base64url').toString('utf8'))).toMatchObject({ fake: 'cwt', kid: input?.kid });
  });

  it('cwt: the mapped claims sit flat beside the configuration type (metadata claim path = the claim name)', async () => {
    const { issue, signer, p256Did, handler } = await setup('cwt');
    await p256Did();
    await issue();
    expect(signer.inputs[0]?.claims.claims).toEqual({ type: 'EmployeeBadge', given_name: 'Susan', employee_id: 4711, department: 'Research' });
    expect(handler.claimPathPrefix).toEqual([]);
  });

  it('cwt_vc: the claims sit in vc.credentialSubject of a VC Data Model 1.1 credential (metadata claim path vc → credentialSubject → claim)', async () => {
    const { issue, signer, p256Did, handler } = await setup('cwt_vc');
    await p256Did();
    await issue();
    expect(signer.inputs[0]?.claims.claims).toEqual({
      vc: {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        type: ['VerifiableCredential', 'EmployeeBadge'],
        credentialSubject: { given_name: 'Susan', employee_id: 4711, department: 'Research' },
      },
    });
    expect(handler.claimPathPrefix).toEqual(['vc', 'credentialSubject']);
  });

  it('signs with the P-256 key of the most recently created DID that has one, skipping newer DIDs without one', async () => {
    const { issue, signer, p256Did, ed25519Did, dids, ctx } = await setup();
    await p256Did();
    const newest = await p256Did();
    await ed25519Did();
    const web = await dids.create(ctx, { method: 'web', options: { url: 'acme.eu01.vellum.test' } });
    await ed25519Did();
    await issue();
    // The did:web is the newest DID with a P-256 key (it has one of each).
    const webP256 = web.localMetadata.keys.find((k) => k.didDocumentKeyId === signer.inputs[0]?.kid);
    expect(signer.inputs[0]?.claims.iss).toBe(web.did);
    expect(webP256).toBeDefined();
    await dids.delete(ctx, web.did);
    await issue();
    expect(signer.inputs[1]).toMatchObject({ kid: newest.localMetadata.keys[0]?.didDocumentKeyId, claims: { iss: newest.did } });
  });

  it('signs with the DID that issuer.id pins, even when a newer one exists', async () => {
    const { issue, signer, p256Did, tenant } = await setup();
    const pinned = await p256Did();
    await p256Did();
    await issue({ configuration: configurationOf('cwt', tenant.id, { issuer: { id: pinned.did } }) });
    expect(signer.inputs[0]).toMatchObject({ keyId: pinned.localMetadata.keys[0]?.kmsKeyId, claims: { iss: pinned.did } });
  });

  it('refuses with 400 when the tenant has no DID with a P-256 key, or the pinned DID is gone or has none', async () => {
    const { issue, signer, ed25519Did, p256Did, tenant, dids, ctx } = await setup();
    await expect(issue()).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'issuer.id' }] });
    const ed = await ed25519Did();
    await expect(issue()).rejects.toMatchObject({ code: 'BadRequest', message: expect.stringMatching(/no DID with a P-256 key/) });
    await expect(issue({ configuration: configurationOf('cwt', tenant.id, { issuer: { id: ed.did } }) })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ value: ed.did, param: 'issuer.id' }],
    });
    const gone = await p256Did();
    await dids.delete(ctx, gone.did);
    await expect(issue({ configuration: configurationOf('cwt', tenant.id, { issuer: { id: gone.did } }) })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ value: gone.did }],
    });
    expect(signer.inputs).toHaveLength(0);
  });

  it('refuses a required claim without a value, a credential with no claims and one already expired (docs/decisions.md "Credential configurations"), signing nothing', async () => {
    const { issue, signer, p256Did, tenant } = await setup();
    await p256Did();
    await expect(issue({ subject: { claims: {} } })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'given_name', msg: 'Required claim has no value' }],
    });
    const optional = configurationOf('cwt', tenant.id, { claimMappings: { nickname: { mapFrom: 'claims.nickname' } } });
    await expect(issue({ configuration: optional })).rejects.toMatchObject({ code: 'BadRequest', message: expect.stringMatching(/no claims/) });
    await expect(issue({ configuration: configurationOf('cwt', tenant.id, { expiresIn: { seconds: 0 } }) })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'expiresIn' }],
    });
    expect(signer.inputs).toHaveLength(0);
  });

  it('passes on the NotFound of a signing key destroyed behind the DID', async () => {
    const { issue, p256Did, keys, tenant } = await setup();
    const did = await p256Did();
    await keys.destroy(tenant.id, did.localMetadata.keys[0]?.kmsKeyId as string);
    await expect(issue()).rejects.toMatchObject({ code: 'NotFound' });
  });
});
