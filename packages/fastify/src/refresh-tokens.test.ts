import { PRE_AUTHORIZED_GRANT } from '@vellum/core';
import { proofJwt, readFakeMdoc, walletKey, type WalletKey } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { bearerCaller, useTestApp } from '../test/app.ts';

const NS = 'org.iso.18013.5.1';
const mdlBody = {
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 365 },
  claimMappings: { [NS]: { family_name: { mapFrom: 'claims.familyName', required: true } } },
  refresh: { allowed: true, maxAge: { days: 7 } },
};

// docs/refresh-tokens.md over HTTP: the refresh_token grant at the token endpoint, and the admin
// routes that revoke refresh token families. STYLE 14: standalone and mounted under a prefix.
describe.each(['standalone', 'prefixed'] as const)('refresh tokens over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  let tenants = 0;

  async function issuer() {
    tenants += 1;
    const subdomain = `refresh${tenants}`;
    const { host } = await t.createTenant(subdomain);
    const call = bearerCaller(t, host, await t.token(subdomain));
    const auditor = bearerCaller(t, host, await t.token(subdomain, 'auditor'));
    const iaca = (await call('POST', '/v2/credentials/mobile/iacas', { country: 'US' })).json() as { id: string };
    expect((await call('PUT', `/v2/credentials/mobile/iacas/${iaca.id}`, { active: true })).statusCode).toBe(200);
    const created = await call('POST', '/v2/credentials/mobile/configurations', mdlBody);
    expect(created.statusCode, created.body).toBe(201);
    const configuration = created.json() as { id: string; refresh: unknown };
    expect(configuration.refresh).toEqual(mdlBody.refresh);
    const audience = `https://${host}${t.prefix}`;
    const post = (path: string, form: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: `${t.prefix}${path}`,
        headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
      });
    const offer = async () => {
      const made = (await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configuration.id], claims: { familyName: 'Turner' } })).json() as {
        userId: string;
        uri: string;
      };
      const json = JSON.parse(new URL(made.uri).searchParams.get('credential_offer') as string) as { grants: Record<string, Record<string, string>> };
      const res = await post('/v1/oauth/token', {
        grant_type: PRE_AUTHORIZED_GRANT,
        'pre-authorized_code': json.grants[PRE_AUTHORIZED_GRANT]?.['pre-authorized_code'] as string,
      });
      expect(res.statusCode, res.body).toBe(200);
      return { userId: made.userId, answer: res.json() as { access_token: string; refresh_token: string; token_type: string } };
    };
    const refresh = (token: string) => post('/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: token });
    const credential = async (accessToken: string, key: WalletKey) => {
      const nonce = ((await t.app.inject({ method: 'POST', url: `${t.prefix}/v1/openid/nonce`, headers: { host } })).json() as { c_nonce: string }).c_nonce;
      return t.app.inject({
        method: 'POST',
        url: `${t.prefix}/v1/openid/credential`,
        headers: { host, authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ credential_configuration_id: configuration.id, proofs: { jwt: [proofJwt(key, { audience, nonce })] } }),
      });
    };
    return { host, call, auditor, offer, refresh, credential, post };
  }

  it('refreshes: a new access token and refresh token, a fresh mDoc for a new key, and a replay refused with invalid_grant', async () => {
    const s = await issuer();
    const { answer } = await s.offer();
    expect(answer).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });
    const first = await s.credential(answer.access_token, walletKey());
    expect(first.statusCode, first.body).toBe(200);

    const res = await s.refresh(answer.refresh_token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const refreshed = res.json() as { access_token: string; refresh_token: string };
    expect(refreshed.refresh_token).not.toBe(answer.refresh_token);
    const key = walletKey();
    const fresh = await s.credential(refreshed.access_token, key);
    expect(fresh.statusCode, fresh.body).toBe(200);
    const mdoc = readFakeMdoc((fresh.json() as { credentials: Array<{ credential: string }> }).credentials[0]!.credential);
    expect(mdoc.deviceKey).toEqual(key.publicJwk);
    expect(mdoc.namespaces[NS]).toEqual({ family_name: { type: 'string', value: 'Turner' } });

    const replay = await s.refresh(answer.refresh_token);
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('revoked') });
    expect((await s.refresh(refreshed.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a refresh request without refresh_token with invalid_request, and an unknown one with invalid_grant', async () => {
    const s = await issuer();
    const missing = await s.post('/v1/oauth/token', { grant_type: 'refresh_token' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'invalid_request' });
    const unknown = await s.refresh('x'.repeat(4000));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('lists refresh_token in the authorization server metadata', async () => {
    const s = await issuer();
    const res = await t.app.inject({ method: 'GET', url: `${t.prefix}/.well-known/oauth-authorization-server`, headers: { host: s.host } });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { grant_types_supported: string[] }).grant_types_supported).toContain('refresh_token');
  });

  it('POST /v2/credentials/{credentialId}/refresh-tokens/revoke revokes the family that issued the credential', async () => {
    const s = await issuer();
    const { answer, userId } = await s.offer();
    expect((await s.credential(answer.access_token, walletKey())).statusCode).toBe(200);
    const [record] = ((await s.call('GET', `/v2/credentials?userId=${userId}`)).json() as { data: Array<{ id: string }> }).data;
    const path = `/v2/credentials/${record!.id}/refresh-tokens/revoke`;
    expect((await s.auditor('POST', path)).statusCode).toBe(403);
    const res = await s.call('POST', path);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ revokedFamilies: 1 });
    expect((await s.call('POST', path)).json()).toEqual({ revokedFamilies: 0 });
    expect((await s.refresh(answer.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await s.call('POST', `/v2/credentials/${crypto.randomUUID()}/refresh-tokens/revoke`)).statusCode).toBe(404);
    expect((await s.call('POST', '/v2/credentials/not-a-uuid/refresh-tokens/revoke')).statusCode).toBe(400);
  });

  it('POST /v1/users/{id}/refresh-tokens/revoke revokes every family of the user', async () => {
    const s = await issuer();
    const { answer, userId } = await s.offer();
    const path = `/v1/users/${userId}/refresh-tokens/revoke`;
    expect((await s.auditor('POST', path)).statusCode).toBe(403);
    const res = await s.call('POST', path);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ revokedFamilies: 1 });
    expect((await s.refresh(answer.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await s.call('POST', `/v1/users/${crypto.randomUUID()}/refresh-tokens/revoke`)).statusCode).toBe(404);
  });
});
