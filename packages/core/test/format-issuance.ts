// What the core's tests of the format handlers share besides the test credentials (./credentials.ts):
// a tenant with did:key DIDs to sign with, and the refusals of every handler that signs with a key of
// the tenant's DIDs (docs/decisions.md "DIDs", "Credential configurations").
import { expect, it } from 'vitest';
import type { CredentialConfiguration } from '../src/configurations/model.ts';
import type { FormatIssueRequest } from '../src/credential-formats/port.ts';
import { withTenant } from './harness.ts';

/** The harness with the tenant acme, its admin context, and makers of its did:key DIDs of either key type. */
export async function signingTenant() {
  const h = await withTenant();
  const { ctx } = h;
  const p256Did = async () => h.dids.create(ctx, { method: 'key', options: { keyType: 'P-256' } });
  const ed25519Did = async () => h.dids.create(ctx, { method: 'key', options: { keyType: 'Ed25519' } });
  return { ...h, p256Did, ed25519Did };
}

/** A handler's test set-up: the signing tenant, `issue` (./credentials.ts `issuing`) and what its signer has been asked to sign so far. */
type SigningSetup<C extends CredentialConfiguration> = Pick<
  Awaited<ReturnType<typeof signingTenant>>,
  'tenant' | 'ctx' | 'dids' | 'keys' | 'p256Did' | 'ed25519Did'
> & {
  issue: (over?: Partial<FormatIssueRequest<C>>) => Promise<unknown>;
  signed: readonly unknown[];
};

/**
 * The refusals of a handler that signs with the tenant's newest DID with a `keyType` key, or the one
 * `pin` names in its configuration: each signs nothing. `requiredClaim` is the configuration's
 * required claim, left without a value by an empty subject.
 */
export function itRefusesAsADidSigner<C extends CredentialConfiguration>(s: {
  keyType: 'P-256' | 'Ed25519';
  requiredClaim: string;
  setup: () => Promise<SigningSetup<C>>;
  configurationOf: (tenantId: string, over?: Partial<C>) => C;
  pin: (did: string) => Partial<C>;
}) {
  const didOf = (t: SigningSetup<C>, keyType: 'P-256' | 'Ed25519') => (keyType === 'P-256' ? t.p256Did() : t.ed25519Did());
  const otherKeyType = s.keyType === 'P-256' ? 'Ed25519' : 'P-256';
  // Fields every configuration has, whatever its format.
  const changed = (tenantId: string, over: Partial<CredentialConfiguration>) => s.configurationOf(tenantId, over as Partial<C>);

  it(`refuses with 400 when the tenant has no DID with a ${s.keyType} key, or the pinned DID is gone or has none, signing nothing`, async () => {
    const t = await s.setup();
    const { issue, tenant, dids, ctx } = t;
    await expect(issue()).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'issuer.id' }] });
    const other = await didOf(t, otherKeyType);
    await expect(issue()).rejects.toMatchObject({ code: 'BadRequest', message: expect.stringMatching(`no DID with a ${s.keyType} key`) });
    await expect(issue({ configuration: s.configurationOf(tenant.id, s.pin(other.did)) })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ value: other.did, param: 'issuer.id' }],
    });
    const gone = await didOf(t, s.keyType);
    await dids.delete(ctx, gone.did);
    await expect(issue({ configuration: s.configurationOf(tenant.id, s.pin(gone.did)) })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ value: gone.did }],
    });
    expect(t.signed).toHaveLength(0);
  });

  it('refuses a required claim without a value, a credential with no claims and one already expired (docs/decisions.md "Credential configurations"), signing nothing', async () => {
    const t = await s.setup();
    const { issue, tenant } = t;
    await didOf(t, s.keyType);
    await expect(issue({ subject: { claims: {} } })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: s.requiredClaim, msg: 'Required claim has no value' }],
    });
    const optional = changed(tenant.id, { claimMappings: { nickname: { mapFrom: 'claims.nickname' } } });
    await expect(issue({ configuration: optional })).rejects.toMatchObject({ code: 'BadRequest', message: expect.stringMatching(/no claims/) });
    await expect(issue({ configuration: changed(tenant.id, { expiresIn: { seconds: 0 } }) })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'expiresIn' }],
    });
    expect(t.signed).toHaveLength(0);
  });

  it('passes on the NotFound of a signing key destroyed behind the DID', async () => {
    const t = await s.setup();
    const did = await didOf(t, s.keyType);
    await t.keys.destroy(t.tenant.id, did.localMetadata.keys[0]?.kmsKeyId as string);
    await expect(t.issue()).rejects.toMatchObject({ code: 'NotFound' });
  });
}
