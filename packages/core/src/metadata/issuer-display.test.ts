import { describe, expect, it } from 'vitest';
import { contextFor, withTenants } from '../../test/harness.ts';
import { MAX_ISSUER_DISPLAYS } from './issuer-display.ts';

const display = [
  { name: 'Acme Bank', locale: 'en-GB', logo: { uri: 'https://acme.example/logo.png', alt_text: 'The Acme logo' } },
  { name: 'Banque Acmé', locale: 'fr', logo: { uri: 'https://acme.example/logo-fr.png' } },
];

/** The tenant as the next request reads it (the request context carries the tenant it was resolved with). */
async function freshContext(h: Awaited<ReturnType<typeof withTenants>>, role: Parameters<typeof contextFor>[1] = 'admin') {
  const tenant = await h.store.tenants.findById(h.tenant.id);
  return contextFor(tenant as NonNullable<typeof tenant>, role);
}

describe('the issuer display (OpenID4VCI 1.0 §12.2.4 `display`, docs/decisions.md "Issuer display and unbound credentials (issue 29)")', () => {
  it('is empty until set; PUT replaces it, GET reads it back, and an empty list removes it', async () => {
    const h = await withTenants();
    expect(await h.issuerDisplay.get(h.ctx)).toEqual({ display: [] });
    expect(await h.issuerDisplay.update(h.ctx, { display })).toEqual({ display });
    expect(await h.issuerDisplay.get(await freshContext(h))).toEqual({ display });
    expect(await h.issuerDisplay.update(await freshContext(h), { display: [{ name: 'Acme' }] })).toEqual({ display: [{ name: 'Acme' }] });
    expect(await h.issuerDisplay.get(await freshContext(h))).toEqual({ display: [{ name: 'Acme' }] });
    expect(await h.issuerDisplay.update(await freshContext(h), { display: [] })).toEqual({ display: [] });
    expect((await h.store.tenants.findById(h.tenant.id))?.issuerDisplay).toBeUndefined();
    // The other tenant never sees it.
    expect((await h.store.tenants.findById(h.other.id))?.issuerDisplay).toBeUndefined();
  });

  it('is published as the issuer metadata’s display at once, and removed from it, through the metadata cache', async () => {
    const h = await withTenants();
    const before = await h.metadata.issuerMetadata(await freshContext(h, null));
    expect(before).not.toHaveProperty('display');
    expect(await h.metadata.issuerMetadata(await freshContext(h, null))).toBe(before);
    await h.issuerDisplay.update(h.ctx, { display });
    const after = await h.metadata.issuerMetadata(await freshContext(h, null));
    expect(after.display).toEqual(display);
    expect(Object.isFrozen(after.display)).toBe(true);
    // A change written straight to the store, as another server sharing the database writes it.
    await h.store.tenants.setIssuerDisplay(h.tenant.id, [{ name: 'Acme', locale: 'en' }]);
    expect((await h.metadata.issuerMetadata(await freshContext(h, null))).display).toEqual([{ name: 'Acme', locale: 'en' }]);
    await h.issuerDisplay.update(h.ctx, { display: [] });
    expect(await h.metadata.issuerMetadata(await freshContext(h, null))).not.toHaveProperty('display');
  });

  it('refuses, all at once: an http logo, a locale given twice, two entries without one, a bad tag, a blank name, an unknown field', async () => {
    const h = await withTenants();
    const bad = {
      display: [
        { name: 'Acme', locale: 'en', logo: { uri: 'http://acme.example/logo.png' } },
        { name: 'Acme', locale: 'EN' },
        { name: 'Acme' },
        { name: 'Acme' },
        { name: 'Acme', locale: 'not a tag' },
        { name: '   ', locale: 'de' },
        { name: 'Acme', locale: 'it', colour: 'red' },
      ],
    };
    const error = await h.issuerDisplay.update(h.ctx, bad).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
    const params = (error as { details: { param: string; msg: string }[] }).details.map((d) => `${d.param}: ${d.msg}`);
    expect(params).toEqual(
      expect.arrayContaining([
        'display.4.locale: A language tag such as en or fr-CA',
        'display.5.name: Text of 1 to 200 characters',
        'display.6.colour: Unknown field',
      ]),
    );
    // Value rules run once the shape holds: https logos and one entry per locale.
    const values = await h.issuerDisplay
      .update(h.ctx, { display: bad.display.slice(0, 4) })
      .catch((e: { details: { param: string; msg: string }[] }) => e.details.map((d) => `${d.param}: ${d.msg}`));
    expect(values).toEqual([
      'display.0.logo.uri: An https URL',
      'display.1.locale: Another entry has this locale',
      'display.3.locale: Only one entry may go without a locale',
    ]);
    expect((await h.store.tenants.findById(h.tenant.id))?.issuerDisplay).toBeUndefined();
  });

  it(`takes at most ${MAX_ISSUER_DISPLAYS} entries, a name of at most 200 characters, and needs the display list`, async () => {
    const h = await withTenants();
    const many = Array.from({ length: MAX_ISSUER_DISPLAYS + 1 }, (_, i) => ({ name: 'Acme', locale: `x-${i}`.replace('x-', 'en-') }));
    await expect(h.issuerDisplay.update(h.ctx, { display: many })).rejects.toMatchObject({ details: [{ param: 'display' }] });
    await expect(h.issuerDisplay.update(h.ctx, { display: [{ name: 'a'.repeat(201) }] })).rejects.toMatchObject({ details: [{ param: 'display.0.name' }] });
    await expect(h.issuerDisplay.update(h.ctx, {})).rejects.toMatchObject({
      details: [{ param: 'display', msg: 'A list of up to 50 { name, locale, logo } entries' }],
    });
    expect(await h.issuerDisplay.update(h.ctx, { display: many.slice(0, MAX_ISSUER_DISPLAYS) })).toMatchObject({ display: { length: MAX_ISSUER_DISPLAYS } });
  });

  it('reading needs configurations:read (managed-issuer may), replacing configurations:write (it may not); each records its events', async () => {
    const h = await withTenants(2);
    await expect(h.issuerDisplay.get(contextFor(h.tenant, 'verifier'))).rejects.toMatchObject({ code: 'Forbidden' });
    expect(await h.issuerDisplay.get(contextFor(h.tenant, 'managed-issuer'))).toEqual({ display: [] });
    await expect(h.issuerDisplay.update(contextFor(h.tenant, 'managed-issuer'), { display })).rejects.toMatchObject({ code: 'Forbidden' });
    await h.issuerDisplay.update(contextFor({ ...h.tenant, loggingLevel: 2 }, 'issuer'), { display });
    await h.recorder.flush();
    const types = async (prefix: string) =>
      (await h.store.events.list(h.tenant.id, { types: [`${prefix}_SUCCESS`, `${prefix}_FAIL`] }, { limit: 10 })).items.map((e) => [e.type, e.data]);
    expect(await types('CONFIG_ISSUER_DISPLAY_UPDATE')).toEqual(
      expect.arrayContaining([
        ['CONFIG_ISSUER_DISPLAY_UPDATE_SUCCESS', expect.objectContaining({ entries: 2 })],
        ['CONFIG_ISSUER_DISPLAY_UPDATE_FAIL', expect.objectContaining({ errorCode: 'Forbidden' })],
      ]),
    );
    expect((await types('CONFIG_ISSUER_DISPLAY_RETRIEVE')).map(([type]) => type)).toEqual(
      expect.arrayContaining(['CONFIG_ISSUER_DISPLAY_RETRIEVE_SUCCESS', 'CONFIG_ISSUER_DISPLAY_RETRIEVE_FAIL']),
    );
  });
});
