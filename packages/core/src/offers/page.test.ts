import { describe, expect, it } from 'vitest';
import { contextFor, harness } from '../../test/harness.ts';
import { refusal } from '../../test/refusal.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from './uri.ts';
import { credentialLabel, issuerDisplayName } from './page.ts';

const mdl = {
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 365 },
  display: [
    { name: 'Permis de conduire', locale: 'fr' },
    { name: 'Driving licence', locale: 'en-GB' },
  ],
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' } } },
};

async function setup() {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01', name: 'Acme Licensing' });
  const { tenant: other } = await h.tenants.createTenant({ subdomain: 'other', region: 'us01' });
  const ctx = contextFor(tenant);
  const mdoc = await h.configurations.create(ctx, 'mso_mdoc', mdl);
  const anonymous = contextFor(tenant, null);
  return { ...h, tenant, other, ctx, mdoc, anonymous };
}

/** The reference at the end of a by-reference offer URI (docs/decisions.md "Users, offers, the token and nonce endpoints"). */
const referenceIn = (uri: string) => (new URL(uri).searchParams.get('credential_offer_uri') as string).split('/').pop() as string;

describe('the offer page view (docs/offer-page.md)', () => {
  it('gives a by-reference pre-authorized offer’s URI, issuer name, credential labels and transaction code description, never the code', async () => {
    const { offers, ctx, mdoc, anonymous } = await setup();
    const created = await offers.createPreAuthorizedOffer(ctx, {
      credentials: [mdoc.id],
      byReference: true,
      transactionCodeConfiguration: { inputMode: 'numeric', length: 6, description: 'Sent to you by SMS' },
    });
    const view = await offers.offerPage(anonymous, referenceIn(created.uri));
    expect(view).toEqual({
      uri: created.uri,
      kind: 'pre-authorized',
      issuerName: 'Acme Licensing',
      credentials: ['Driving licence'],
      txCode: { length: 6, input_mode: 'numeric', description: 'Sent to you by SMS' },
      expiresAt: created.expiresAt,
    });
    expect(JSON.stringify(view)).not.toContain(`"${created.transactionCode}"`);
  });

  it('serves Authorization Code offers too (no transaction code), and names the issuer by its custom domain’s name when set', async () => {
    const { offers, ctx, mdoc, anonymous, domains } = await setup();
    await domains.create(ctx, { domain: 'licensing.example.org', name: 'Acme Licensing Authority' });
    const { uri } = await offers.createAuthorizationCodeOffer(ctx, { credentials: [mdoc.id], byReference: true });
    const view = await offers.offerPage(anonymous, referenceIn(uri));
    expect(view).toEqual({
      uri,
      kind: 'authorization-code',
      issuerName: 'Acme Licensing Authority',
      credentials: ['Driving licence'],
      expiresAt: expect.any(String),
    });
  });

  it('is 404 like the by-reference offer itself: by-value, used, expired, deleted, malformed, or another tenant’s', async () => {
    const { offers, ctx, mdoc, anonymous, other, clock, tokenEndpoint } = await setup();
    const byValue = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id] });
    const code = JSON.parse(new URL(byValue.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT][
      'pre-authorized_code'
    ] as string;
    expect(await refusal(offers.offerPage(anonymous, code))).toMatchObject({ code: 'NotFound' });

    const used = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], byReference: true });
    const usedRef = referenceIn(used.uri);
    expect(await refusal(offers.offerPage(contextFor(other, null), usedRef))).toMatchObject({ code: 'NotFound' });
    const fetched = await offers.offerByReference(anonymous, usedRef);
    await tokenEndpoint.token(anonymous, {
      grant_type: PRE_AUTHORIZED_CODE_GRANT,
      'pre-authorized_code': fetched.grants[PRE_AUTHORIZED_CODE_GRANT]?.['pre-authorized_code'],
    });
    expect(await refusal(offers.offerPage(anonymous, usedRef))).toMatchObject({ code: 'NotFound' });

    const deleted = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], byReference: true });
    await expect(offers.offerPage(anonymous, referenceIn(deleted.uri))).resolves.toMatchObject({ uri: deleted.uri });
    await offers.deletePreAuthorizedOffer(ctx, deleted.id);
    expect(await refusal(offers.offerPage(anonymous, referenceIn(deleted.uri)))).toMatchObject({ code: 'NotFound' });

    const expiring = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], byReference: true, expiresIn: { minutes: 1 } });
    clock.advance(60_000);
    expect(await refusal(offers.offerPage(anonymous, referenceIn(expiring.uri)))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(offers.offerPage(anonymous, '<script>'))).toMatchObject({ code: 'NotFound' });
  });

  it('labels credentials by English display name, then first display name, then name, then type', () => {
    expect(
      credentialLabel({
        type: 'T',
        name: 'N',
        display: [
          { name: 'Führerschein', locale: 'de' },
          { name: 'Licence', locale: 'en' },
        ],
      }),
    ).toBe('Licence');
    expect(credentialLabel({ type: 'T', name: 'N', display: [{ name: 'Without locale' }] })).toBe('Without locale');
    expect(credentialLabel({ type: 'T', name: 'N', display: [{ name: 'Führerschein', locale: 'de' }] })).toBe('Führerschein');
    expect(credentialLabel({ type: 'T', name: 'N', display: [{ name: 'Not English', locale: 'eng-x' }] })).toBe('Not English');
    expect(credentialLabel({ type: 'T', name: 'N' })).toBe('N');
    expect(credentialLabel({ type: 'T' })).toBe('T');
    expect(issuerDisplayName({ name: 'Tenant' }, { name: '  ' })).toBe('Tenant');
    expect(issuerDisplayName({ name: 'Tenant' }, undefined)).toBe('Tenant');
    expect(issuerDisplayName({ name: 'Tenant' }, { name: 'Brand' })).toBe('Brand');
  });
});
