import { describe, expect, it } from 'vitest';
import { recordedEvents } from '../../test/events.ts';
import { contextFor, withTenants } from '../../test/harness.ts';
import {
  API_KEY_CLAIM_SOURCE as API_KEY_SOURCE,
  API_KEY_CLAIM_SOURCE_VIEW,
  OAUTH_CLAIM_SOURCE as OAUTH_SOURCE,
  OAUTH_CLAIM_SOURCE_AUTHORIZATION_VIEW,
} from '../../test/kit.ts';
import { badBodyField, refusal } from '../../test/refusal.ts';

const setup = () => withTenants(3);

/** OAUTH_SOURCE with `authorization` fields changed. */
const oauthSource = (authorization: Record<string, unknown>) => ({ ...OAUTH_SOURCE, authorization: { ...OAUTH_SOURCE.authorization, ...authorization } });

describe('claim sources (docs/authentication.md /v1/claim-sources)', () => {
  it('creates, reads, lists in pages, replaces and deletes, never showing a secret', async () => {
    const { claimSources: sources, ctx } = await setup();
    const crm = await sources.create(ctx, API_KEY_SOURCE);
    expect(crm).toEqual({ ...API_KEY_CLAIM_SOURCE_VIEW, createdAt: '2026-05-01T12:00:00.000Z', updatedAt: '2026-05-01T12:00:00.000Z' });
    const hr = await sources.create(ctx, OAUTH_SOURCE);
    expect(hr).toMatchObject({ requestParameters: {}, authorization: OAUTH_CLAIM_SOURCE_AUTHORIZATION_VIEW });
    expect(JSON.stringify([crm, hr])).not.toMatch(/secret-1/);
    expect(await sources.get(ctx, hr.id)).toEqual(hr);

    const first = await sources.list(ctx, { limit: 1 });
    expect(first).toEqual({ data: [crm], nextCursor: expect.any(String) });
    const rest = await sources.list(ctx, { limit: 1, cursor: first.nextCursor });
    expect(rest.data).toEqual([hr]);
    expect(await sources.list(ctx, { cursor: rest.nextCursor })).toEqual({ data: [] });

    const replaced = await sources.update(ctx, crm.id, { ...API_KEY_SOURCE, name: 'CRM 2', requestMethod: 'POST', requestParameters: {} });
    expect(replaced).toEqual({ ...crm, name: 'CRM 2', requestMethod: 'POST', requestParameters: {} });
    await sources.delete(ctx, crm.id);
    expect(await refusal(sources.get(ctx, crm.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(sources.update(ctx, crm.id, API_KEY_SOURCE))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(sources.delete(ctx, crm.id))).toMatchObject({ code: 'NotFound' });
  });

  it('seals secrets per tenant and source; a PUT without the secret keeps it for the same type and needs it for a new type', async () => {
    const { claimSources: sources, ctx, store, secretBox, tenant } = await setup();
    const crm = await sources.create(ctx, API_KEY_SOURCE);
    const context = `claim-source:${tenant.id}:${crm.id}`;
    const sealed = async () => (await store.claimSources.get(tenant.id, crm.id))!.authorization;
    const first = await sealed();
    expect(first.type === 'api-key' && secretBox.open(first.sealedValue, context)).toBe('api-key-secret-1');
    expect(JSON.stringify(first)).not.toContain('api-key-secret-1');

    await sources.update(ctx, crm.id, { ...API_KEY_SOURCE, authorization: { type: 'api-key' } });
    expect(await sealed()).toEqual(first);
    await sources.update(ctx, crm.id, { ...API_KEY_SOURCE, authorization: { type: 'api-key', value: 'api-key-secret-2' } });
    const second = await sealed();
    expect(second.type === 'api-key' && secretBox.open(second.sealedValue, context)).toBe('api-key-secret-2');

    // A new type needs its own secret.
    const missing = await refusal(sources.update(ctx, crm.id, oauthSource({ clientSecret: undefined })));
    expect(missing).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ param: 'authorization.clientSecret' })] });
    await sources.update(ctx, crm.id, OAUTH_SOURCE);
    const third = await sealed();
    expect(third.type === 'oauth-client-credentials' && secretBox.open(third.sealedClientSecret, context)).toBe('oauth-secret-1');
    const { clientSecret: _s, ...withoutSecret } = OAUTH_SOURCE.authorization;
    await sources.update(ctx, crm.id, { ...OAUTH_SOURCE, authorization: { ...withoutSecret, tokenEndpointAuthMethod: 'client_secret_post' } });
    const fourth = await sealed();
    expect(fourth).toEqual({ ...third, tokenEndpointAuthMethod: 'client_secret_post' });
  });

  it.each([
    ['missing name', { ...API_KEY_SOURCE, name: undefined }, 'name'],
    ['blank name', { ...API_KEY_SOURCE, name: '   ' }, 'name'],
    ['http URL', { ...API_KEY_SOURCE, url: 'http://crm.example.com/claims' }, 'url'],
    ['IP literal URL', { ...API_KEY_SOURCE, url: 'https://10.0.0.1/claims' }, 'url'],
    ['URL with a query', { ...API_KEY_SOURCE, url: 'https://crm.example.com/claims?x=1' }, 'url'],
    ['URL with a fragment', { ...API_KEY_SOURCE, url: 'https://crm.example.com/claims#x' }, 'url'],
    ['unknown method', { ...API_KEY_SOURCE, requestMethod: 'PUT' }, 'requestMethod'],
    ['parameter without a value', { ...API_KEY_SOURCE, requestParameters: { email: {} } }, 'requestParameters.email'],
    ['parameter with a bad path', { ...API_KEY_SOURCE, requestParameters: { email: { mapFrom: 'email' } } }, 'requestParameters.email.mapFrom'],
    [
      'parameter with an object default',
      { ...API_KEY_SOURCE, requestParameters: { email: { defaultValue: { a: 1 } } } },
      'requestParameters.email.defaultValue',
    ],
    [
      'parameter with an unknown field',
      { ...API_KEY_SOURCE, requestParameters: { email: { mapFrom: 'claims.email', required: true } } },
      'requestParameters.email.required',
    ],
    ['parameter with a bad name', { ...API_KEY_SOURCE, requestParameters: { 'a b': { defaultValue: 1 } } }, 'requestParameters.a b'],
    [
      'too many parameters',
      { ...API_KEY_SOURCE, requestParameters: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}`, { defaultValue: i }])) },
      'requestParameters',
    ],
    ['missing authorization', { ...API_KEY_SOURCE, authorization: undefined }, 'authorization'],
    ['unknown authorization type', { ...API_KEY_SOURCE, authorization: { type: 'basic', value: 'x' } }, 'authorization'],
    ['API key without a value', { ...API_KEY_SOURCE, authorization: { type: 'api-key' } }, 'authorization.value'],
    ['OAuth without a token endpoint', oauthSource({ tokenEndpoint: undefined }), 'authorization.tokenEndpoint'],
    ['OAuth with an http token endpoint', oauthSource({ tokenEndpoint: 'http://auth.example.com/token' }), 'authorization.tokenEndpoint'],
    ['OAuth without a client secret', oauthSource({ clientSecret: undefined }), 'authorization.clientSecret'],
    ['OAuth with an unknown auth method', oauthSource({ tokenEndpointAuthMethod: 'none' }), 'authorization.tokenEndpointAuthMethod'],
    ['API key with OAuth fields', { ...API_KEY_SOURCE, authorization: { type: 'api-key', value: 'x', clientId: 'y' } }, 'authorization.clientId'],
    ['unknown field', { ...API_KEY_SOURCE, headers: {} }, 'headers'],
  ])('refuses a %s with a 400 naming the field', async (_name, body, param) => {
    const { claimSources: sources, ctx } = await setup();
    expect(await refusal(sources.create(ctx, body))).toMatchObject(badBodyField(param));
  });

  it('refuses to delete a claim source a credential configuration names (409), and deletes it once none does', async () => {
    const { claimSources: sources, configurations, ctx } = await setup();
    const crm = await sources.create(ctx, API_KEY_SOURCE);
    const configuration = await configurations.create(ctx, 'dc+sd-jwt', {
      type: 'https://example.com/Member',
      expiresIn: { days: 30 },
      claimMappings: { email: { mapFrom: 'claims.email' } },
      claimSourceId: crm.id,
    });
    const refused = await refusal(sources.delete(ctx, crm.id));
    expect(refused).toMatchObject({ code: 'Conflict' });
    expect(refused.message).toContain(configuration.id);
    expect(await sources.get(ctx, crm.id)).toEqual(crm);
    await configurations.delete(ctx, 'dc+sd-jwt', configuration.id);
    await sources.delete(ctx, crm.id);
    expect(await refusal(sources.get(ctx, crm.id))).toMatchObject({ code: 'NotFound' });
  });

  it('needs issuance-setup, keeps tenants apart, and records CLAIM_SOURCE_* events without secrets', async () => {
    const { claimSources: sources, ctx, tenant, other, recorder, store } = await setup();
    const crm = await sources.create(ctx, API_KEY_SOURCE);
    const hr = await sources.create(ctx, OAUTH_SOURCE);
    expect(await refusal(sources.list(contextFor(tenant, 'verifier'), {}))).toMatchObject({ code: 'Forbidden' });
    expect(await refusal(sources.create(contextFor(tenant, 'auditor'), API_KEY_SOURCE))).toMatchObject({ code: 'Forbidden' });
    const theirs = contextFor(other);
    expect(await refusal(sources.get(theirs, crm.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(sources.update(theirs, crm.id, API_KEY_SOURCE))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(sources.delete(theirs, crm.id))).toMatchObject({ code: 'NotFound' });
    expect((await sources.list(theirs, {})).data).toEqual([]);
    expect(await refusal(sources.get(ctx, 'nope'))).toMatchObject({ details: [{ param: 'id', location: 'params', value: 'nope' }] });

    await sources.list(ctx, {});
    await sources.get(ctx, hr.id);
    await sources.update(ctx, hr.id, oauthSource({ clientSecret: 'oauth-secret-2' }));
    await sources.delete(ctx, crm.id);
    const events = await recordedEvents({ recorder, store }, tenant.id, { categories: ['claim-source'] });
    const types = events.map((e) => e.type);
    for (const op of ['CREATE', 'LIST', 'RETRIEVE', 'UPDATE', 'DELETE']) expect(types).toContain(`CLAIM_SOURCE_${op}_SUCCESS`);
    expect(types).toContain('CLAIM_SOURCE_LIST_FAIL');
    const text = JSON.stringify(events);
    expect(text).toContain('https://hr.example.com/people');
    expect(text).not.toMatch(/secret-[12]/);
  });
});
