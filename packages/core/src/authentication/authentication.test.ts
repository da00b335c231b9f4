import { describe, expect, it } from 'vitest';
import { recordedEvents } from '../../test/events.ts';
import { contextFor, withTenants } from '../../test/harness.ts';
import { AUTHENTICATION_PROVIDER as PROVIDER, AUTHENTICATION_PROVIDER_VIEW } from '../../test/kit.ts';
import { badBodyField, refusal } from '../../test/refusal.ts';
import { openInteractionHook, providerSettings } from './service.ts';

const setup = () => withTenants(3);

const ORIGIN = 'https://acme.eu01.vellum.test';

describe('the authentication provider (docs/authentication.md /v1/users/authentication-providers)', () => {
  it('creates one with defaults, shows it without the secret and with the redirect URL, and lists it as a page of one', async () => {
    const { authenticationProviders: providers, ctx } = await setup();
    const created = await providers.create(ctx, PROVIDER);
    expect(created).toEqual({
      ...AUTHENTICATION_PROVIDER_VIEW,
      redirectUrl: `${ORIGIN}/v1/oauth/authentication/callback`,
      createdAt: '2026-05-01T12:00:00.000Z',
      updatedAt: '2026-05-01T12:00:00.000Z',
    });
    expect(JSON.stringify(created)).not.toContain('provider-secret-1');
    expect(await providers.get(ctx, created.id)).toEqual(created);
    // Mounted under a prefix, the redirect URL carries it.
    expect((await providers.get(ctx, created.id, '/issuance/')).redirectUrl).toBe(`${ORIGIN}/issuance/v1/oauth/authentication/callback`);

    // A page that is not full is the last one: no nextCursor (docs/decisions.md "Pagination").
    expect(await providers.list(ctx, {})).toEqual({ data: [created] });
    const full = await providers.list(ctx, { limit: 1 });
    expect(full).toEqual({ data: [created], nextCursor: expect.any(String) });
    expect(await providers.list(ctx, { cursor: full.nextCursor })).toEqual({ data: [] });
    expect(await refusal(providers.list(ctx, { cursor: 'garbage!' }))).toMatchObject({ code: 'BadRequest' });
  });

  it('refuses a second provider for the tenant with 409, and allows one again after delete', async () => {
    const { authenticationProviders: providers, ctx } = await setup();
    const first = await providers.create(ctx, PROVIDER);
    expect(await refusal(providers.create(ctx, { ...PROVIDER, clientId: 'again' }))).toMatchObject({ code: 'Conflict' });
    await providers.delete(ctx, first.id);
    expect(await refusal(providers.get(ctx, first.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(providers.delete(ctx, first.id))).toMatchObject({ code: 'NotFound' });
    expect((await providers.list(ctx, {})).data).toEqual([]);
    await providers.create(ctx, PROVIDER);
  });

  it('seals the client secret for this tenant and provider, replaces it on PUT, and keeps it when PUT leaves it out', async () => {
    const { authenticationProviders: providers, ctx, store, secretBox, tenant } = await setup();
    const created = await providers.create(ctx, { ...PROVIDER, scope: 'email openid offline_access email', tokenEndpointAuthMethod: 'client_secret_post' });
    const stored = await store.authenticationProviders.get(tenant.id, created.id);
    expect(stored?.sealedClientSecret).not.toContain('provider-secret-1');
    expect(secretBox.open(stored!.sealedClientSecret, `authentication-provider:${tenant.id}:${created.id}`)).toBe('provider-secret-1');
    expect(secretBox.open(stored!.sealedClientSecret, `authentication-provider:${tenant.id}:other`)).toBeUndefined();
    const { redirectUrl: _redirect, ...fields } = created;
    expect(providerSettings(stored!, secretBox)).toEqual({ ...fields, tenantId: tenant.id, clientSecret: 'provider-secret-1' });
    expect(providerSettings({ ...stored!, sealedClientSecret: 'corrupt' }, secretBox)).toBeUndefined();
    expect(created.scope).toBe('openid email offline_access');

    const kept = await providers.update(ctx, created.id, {
      url: 'https://login.example.com/',
      clientId: 'vellum-2',
      staticRequestParameters: { prompt: 'login' },
      claimsToPersist: ['email', 'email'],
    });
    expect(kept).toMatchObject({
      url: 'https://login.example.com/',
      clientId: 'vellum-2',
      scope: 'openid profile email',
      tokenEndpointAuthMethod: 'client_secret_basic',
      staticRequestParameters: { prompt: 'login' },
      claimsToPersist: ['email'],
    });
    expect(providerSettings((await store.authenticationProviders.current(tenant.id))!, secretBox)?.clientSecret).toBe('provider-secret-1');

    await providers.update(ctx, created.id, { ...PROVIDER, clientSecret: 'provider-secret-2' });
    expect(providerSettings((await store.authenticationProviders.current(tenant.id))!, secretBox)?.clientSecret).toBe('provider-secret-2');
  });

  it('keeps a bare issuer origin without the slash the URL parser would add', async () => {
    const { authenticationProviders: providers, ctx } = await setup();
    expect((await providers.create(ctx, { ...PROVIDER, url: 'https://Login.Example.com' })).url).toBe('https://login.example.com');
  });

  it.each([
    ['http URL', { ...PROVIDER, url: 'http://login.example.com' }, 'url', 'Must use https'],
    ['IP literal', { ...PROVIDER, url: 'https://192.0.2.7/realms/x' }, 'url', 'Must not be an IP address'],
    ['query', { ...PROVIDER, url: 'https://login.example.com/?tenant=1' }, 'url', 'Must not contain query parameters'],
    ['fragment', { ...PROVIDER, url: 'https://login.example.com/#x' }, 'url', 'Must not contain a fragment'],
    ['missing client id', { url: PROVIDER.url, clientSecret: 'x' }, 'clientId', undefined],
    ['missing client secret', { url: PROVIDER.url, clientId: 'x' }, 'clientSecret', undefined],
    ['unknown auth method', { ...PROVIDER, tokenEndpointAuthMethod: 'private_key_jwt' }, 'tokenEndpointAuthMethod', undefined],
    ['bad scope', { ...PROVIDER, scope: 'openid "x"' }, 'scope', undefined],
    [
      'reserved static parameter',
      { ...PROVIDER, staticRequestParameters: { redirect_uri: 'https://evil.example.com' } },
      'staticRequestParameters.redirect_uri',
      'Set by Vellum itself; it cannot be given here',
    ],
    ['non-string static value', { ...PROVIDER, staticRequestParameters: { prompt: 1 } }, 'staticRequestParameters.prompt', undefined],
    [
      'too many static parameters',
      { ...PROVIDER, staticRequestParameters: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, 'v'])) },
      'staticRequestParameters',
      undefined,
    ],
    ['reserved forwarded parameter', { ...PROVIDER, forwardedRequestParameters: ['login_hint', 'state'] }, 'forwardedRequestParameters.1', undefined],
    [
      'too many forwarded parameters',
      { ...PROVIDER, forwardedRequestParameters: Array.from({ length: 21 }, (_, i) => `p${i}`) },
      'forwardedRequestParameters',
      undefined,
    ],
    ['too many claims to persist', { ...PROVIDER, claimsToPersist: Array.from({ length: 51 }, (_, i) => `c${i}`) }, 'claimsToPersist', undefined],
    ['empty claim name', { ...PROVIDER, claimsToPersist: [''] }, 'claimsToPersist.0', undefined],
    ['unknown field', { ...PROVIDER, issuer: 'x' }, 'issuer', 'Unknown field'],
  ])('refuses a %s with a 400 naming the field', async (_name, body, param, msg) => {
    const { authenticationProviders: providers, ctx } = await setup();
    expect(await refusal(providers.create(ctx, body))).toMatchObject(badBodyField(param, msg));
  });

  it('needs the issuance-setup permission, and keeps tenants apart', async () => {
    const { authenticationProviders: providers, ctx, tenant, other } = await setup();
    const created = await providers.create(ctx, PROVIDER);
    expect(await refusal(providers.list(contextFor(tenant, 'verifier'), {}))).toMatchObject({ code: 'Forbidden' });
    expect(await refusal(providers.create(contextFor(tenant, 'auditor'), PROVIDER))).toMatchObject({ code: 'Forbidden' });
    expect(await refusal(providers.get(contextFor(tenant, null), created.id))).toMatchObject({ code: 'Unauthorized' });
    for (const role of ['issuer', 'managed-issuer'] as const) expect((await providers.list(contextFor(tenant, role), {})).data).toHaveLength(1);
    const theirs = contextFor(other);
    expect(await refusal(providers.get(theirs, created.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(providers.update(theirs, created.id, PROVIDER))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(providers.delete(theirs, created.id))).toMatchObject({ code: 'NotFound' });
    expect((await providers.list(theirs, {})).data).toEqual([]);
    // The other tenant may have its own.
    await providers.create(theirs, PROVIDER);
    expect(await refusal(providers.get(ctx, 'not-a-uuid'))).toMatchObject({ details: [{ param: 'id', location: 'params' }] });
  });

  it('records USER_AUTHENTICATION_PROVIDER_* events without the secret, even at level 3', async () => {
    const { authenticationProviders: providers, ctx, recorder, store, tenant } = await setup();
    const created = await providers.create(ctx, PROVIDER);
    await providers.list(ctx, {});
    await providers.get(ctx, created.id);
    await providers.update(ctx, created.id, { ...PROVIDER, clientSecret: 'provider-secret-2' });
    await providers.delete(ctx, created.id);
    await refusal(providers.create(ctx, { ...PROVIDER, url: 'http://x' }));
    const events = await recordedEvents({ recorder, store }, tenant.id, { categories: ['user'] });
    const types = events.map((e) => e.type);
    for (const op of ['CREATE', 'LIST', 'RETRIEVE', 'UPDATE', 'DELETE']) expect(types).toContain(`USER_AUTHENTICATION_PROVIDER_${op}_SUCCESS`);
    expect(types).toContain('USER_AUTHENTICATION_PROVIDER_CREATE_FAIL');
    const text = JSON.stringify(events);
    expect(text).toContain('"clientId":"vellum"');
    expect(text).not.toContain('provider-secret');
  });
});

describe('the interaction hook (docs/authentication.md /v1/openid/configuration)', () => {
  it('answers {} with nothing configured, then makes a secret with the first hook and keeps it across PUTs', async () => {
    const { openIdSettings: settings, ctx, store, secretBox, tenant } = await setup();
    expect(await settings.get(ctx)).toEqual({});
    const first = await settings.update(ctx, { interactionHook: { url: 'https://issuer.example.com/kyc' } });
    expect(first).toEqual({
      interactionHook: {
        url: 'https://issuer.example.com/kyc',
        claims: [],
        sessionTimeoutInSec: 600,
        disabled: false,
        secret: expect.stringMatching(/^\S{43,}$/),
      },
    });
    const secret = first.interactionHook!.secret;
    expect(await settings.get(ctx)).toEqual(first);

    const stored = await store.openIdSettings.get(tenant.id);
    expect(stored?.interactionHook?.sealedSecret).not.toContain(secret);
    expect(openInteractionHook(stored, secretBox)).toMatchObject({ url: 'https://issuer.example.com/kyc', secret });

    const second = await settings.update(ctx, {
      interactionHook: { url: 'https://issuer.example.com/other', claims: ['email', 'givenName'], sessionTimeoutInSec: 60, disabled: true },
    });
    expect(second).toEqual({
      interactionHook: { url: 'https://issuer.example.com/other', claims: ['email', 'givenName'], sessionTimeoutInSec: 60, disabled: true, secret },
    });

    // Without a hook the hook goes, and with it its secret: the next one gets a new secret.
    expect(await settings.update(ctx, {})).toEqual({});
    expect(await settings.get(ctx)).toEqual({});
    expect(openInteractionHook(await store.openIdSettings.get(tenant.id), secretBox)).toBeUndefined();
    const third = await settings.update(ctx, { interactionHook: { url: 'https://issuer.example.com/kyc' } });
    expect(third.interactionHook?.secret).not.toBe(secret);
  });

  it('replaces a secret the master key can no longer open rather than keeping it broken', async () => {
    const { openIdSettings: settings, ctx, store, tenant } = await setup();
    await settings.update(ctx, { interactionHook: { url: 'https://issuer.example.com/kyc' } });
    const stored = (await store.openIdSettings.get(tenant.id))!;
    await store.openIdSettings.put({ ...stored, interactionHook: { ...stored.interactionHook!, sealedSecret: 'corrupt' } });
    expect(await refusal(settings.get(ctx))).toMatchObject({ code: 'ServiceUnavailable' });
    const fixed = await settings.update(ctx, { interactionHook: { url: 'https://issuer.example.com/kyc' } });
    expect(fixed.interactionHook?.secret).toEqual(expect.any(String));
    expect(await settings.get(ctx)).toEqual(fixed);
  });

  it.each([
    ['http URL', { interactionHook: { url: 'http://issuer.example.com/kyc' } }, 'interactionHook.url'],
    ['IP literal', { interactionHook: { url: 'https://[::1]/kyc' } }, 'interactionHook.url'],
    ['query', { interactionHook: { url: 'https://issuer.example.com/kyc?x=1' } }, 'interactionHook.url'],
    ['missing url', { interactionHook: {} }, 'interactionHook.url'],
    ['timeout too short', { interactionHook: { url: 'https://issuer.example.com/kyc', sessionTimeoutInSec: 59 } }, 'interactionHook.sessionTimeoutInSec'],
    ['timeout too long', { interactionHook: { url: 'https://issuer.example.com/kyc', sessionTimeoutInSec: 3601 } }, 'interactionHook.sessionTimeoutInSec'],
    ['fractional timeout', { interactionHook: { url: 'https://issuer.example.com/kyc', sessionTimeoutInSec: 90.5 } }, 'interactionHook.sessionTimeoutInSec'],
    ['claims not a list', { interactionHook: { url: 'https://issuer.example.com/kyc', claims: 'email' } }, 'interactionHook.claims'],
    ['disabled not a boolean', { interactionHook: { url: 'https://issuer.example.com/kyc', disabled: 'yes' } }, 'interactionHook.disabled'],
    ['secret given', { interactionHook: { url: 'https://issuer.example.com/kyc', secret: 'mine' } }, 'interactionHook.secret'],
    ['hook not an object', { interactionHook: 'https://issuer.example.com/kyc' }, 'interactionHook'],
    ['unknown field', { hooks: [] }, 'hooks'],
  ])('refuses a %s with a 400 naming the field', async (_name, body, param) => {
    const { openIdSettings: settings, ctx } = await setup();
    expect(await refusal(settings.update(ctx, body))).toMatchObject(badBodyField(param));
  });

  it('needs issuance-setup, keeps tenants apart, and never puts the secret in events', async () => {
    const { openIdSettings: settings, ctx, tenant, other, recorder, store } = await setup();
    const { interactionHook } = await settings.update(ctx, { interactionHook: { url: 'https://issuer.example.com/kyc' } });
    expect(await settings.get(contextFor(other))).toEqual({});
    expect(await refusal(settings.get(contextFor(tenant, 'verifier')))).toMatchObject({ code: 'Forbidden' });
    expect(await refusal(settings.update(contextFor(tenant, 'auditor'), {}))).toMatchObject({ code: 'Forbidden' });
    await settings.get(ctx);
    const events = await recordedEvents({ recorder, store }, tenant.id, { categories: ['openid'] });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['OPENID_CONFIGURATION_UPDATE_SUCCESS', 'OPENID_CONFIGURATION_RETRIEVE_SUCCESS', 'OPENID_CONFIGURATION_RETRIEVE_FAIL']),
    );
    const text = JSON.stringify(events);
    expect(text).toContain('https://issuer.example.com/kyc');
    expect(text).not.toContain(interactionHook!.secret);
  });
});
