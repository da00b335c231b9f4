import { describe, expect, it } from 'vitest';
import { CWT_SUBJECT, cwtConfiguration, holderKey, issuing } from '../../test/credentials.ts';
import { itRefusesAsADidSigner, signingTenant } from '../../test/format-issuance.ts';
import { fakeCwtSigner } from '../../test/kit.ts';
import { didKeyOf } from '../dids/did-key.ts';
import { createCwtFormat } from './cwt.ts';

const NOW = new Date('2026-05-01T12:00:00.750Z');
const WHOLE_NOW = new Date('2026-05-01T12:00:00.000Z');
const CLAIMS = { given_name: 'Susan', family_name: 'Turner', employee_id: 4711, department: 'Research', badges: ['lab', { floor: 3 }] };

async function setup(format: 'cwt' | 'cwt_vc' = 'cwt') {
  const t = await signingTenant();
  const signer = fakeCwtSigner(t.keys);
  const handler = createCwtFormat({ store: t.store, signer, format });
  const holder = holderKey();
  const issue = issuing(handler, { tenant: t.tenant, configuration: cwtConfiguration(format, t.tenant.id), subject: CWT_SUBJECT, holderKey: holder, now: NOW });
  return { ...t, signer, signed: signer.inputs, handler, holder, issue };
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
    expect(signer.inputs[0]?.claims.claims).toEqual({ type: 'EmployeeBadge', ...CLAIMS });
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
        credentialSubject: CLAIMS,
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
    await issue({ configuration: cwtConfiguration('cwt', tenant.id, { issuer: { id: pinned.did } }) });
    expect(signer.inputs[0]).toMatchObject({ keyId: pinned.localMetadata.keys[0]?.kmsKeyId, claims: { iss: pinned.did } });
  });

  itRefusesAsADidSigner({
    keyType: 'P-256',
    requiredClaim: 'given_name',
    setup,
    configurationOf: (tenantId, over) => cwtConfiguration('cwt', tenantId, over),
    pin: (did) => ({ issuer: { id: did } }),
  });
});
