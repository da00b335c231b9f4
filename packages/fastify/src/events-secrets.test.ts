// docs/decisions.md "Analytic events": at logging level 3 events hold the request and response payloads, but never an issued
// credential, and never secrets (codes, tokens, proofs); docs/limits.md "Analytic events".
import { PRE_AUTHORIZED_GRANT } from '@vellum/core';
import { proofJwt, walletKey } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { bearerCaller, useTestApp } from '../test/app.ts';

const mdl = {
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
};

describe.each(['standalone', 'prefixed'] as const)('what an auditor reads of a level-3 issuance (docs/decisions.md "Analytic events") (%s)', (mount) => {
  const t = useTestApp(mount);

  it('holds the request bodies’ ordinary fields, but not the credential, the proof JWT, the access token, the code or the transaction code', async () => {
    const subdomain = `level3${mount}`;
    const { host } = await t.createTenant(subdomain);
    const admin = await t.token(subdomain);
    const auditor = await t.token(subdomain, 'auditor');
    const call = bearerCaller(t, host, admin);
    const wallet = (path: string, contentType?: string, body?: string, authorization?: string) =>
      t.app.inject({
        method: 'POST',
        url: `${t.prefix}${path}`,
        headers: { host, ...(contentType ? { 'content-type': contentType } : {}), ...(authorization ? { authorization } : {}) },
        ...(body === undefined ? {} : { payload: body }),
      });

    expect((await call('PUT', '/v1/config/analytics', { loggingLevel: 3 })).statusCode).toBe(200);
    const iaca = (await call('POST', '/v2/credentials/mobile/iacas', { country: 'US' })).json() as { id: string };
    expect((await call('PUT', `/v2/credentials/mobile/iacas/${iaca.id}`, { active: true })).statusCode).toBe(200);
    const configuration = (await call('POST', '/v2/credentials/mobile/configurations', mdl)).json() as { id: string };

    const offer = await call('POST', '/v1/openid/offers/pre-authorized', {
      credentials: [configuration.id],
      claims: { familyName: 'Turner' },
      transactionCodeConfiguration: { inputMode: 'numeric', length: 6 },
    });
    expect(offer.statusCode, offer.body).toBe(200);
    const { uri, transactionCode } = offer.json() as { uri: string; transactionCode: string };
    const grants = (JSON.parse(new URL(uri).searchParams.get('credential_offer') as string) as { grants: Record<string, Record<string, string>> }).grants;
    const code = grants[PRE_AUTHORIZED_GRANT]?.['pre-authorized_code'] as string;

    const token = await wallet(
      '/v1/oauth/token',
      'application/x-www-form-urlencoded',
      new URLSearchParams({ grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': code, tx_code: transactionCode }).toString(),
    );
    expect(token.statusCode, token.body).toBe(200);
    const accessToken = (token.json() as { access_token: string }).access_token;

    const nonce = ((await wallet('/v1/openid/nonce')).json() as { c_nonce: string }).c_nonce;
    const proof = await proofJwt(walletKey(), { audience: `https://${host}${t.prefix}`, nonce });
    const issued = await wallet(
      '/v1/openid/credential',
      'application/json',
      JSON.stringify({ credential_configuration_id: configuration.id, proofs: { jwt: [proof] } }),
      `Bearer ${accessToken}`,
    );
    expect(issued.statusCode, issued.body).toBe(200);
    const credential = (issued.json() as { credentials: Array<{ credential: string }> }).credentials[0]?.credential as string;
    expect(credential.length).toBeGreaterThan(20);

    const events = await call('GET', '/v1/events?limit=1000', undefined, auditor);
    expect(events.statusCode, events.body).toBe(200);
    const text = events.body;
    // The payloads are there…
    const credentialEvent = (events.json() as { data: Array<{ type: string; data?: { payload?: { request?: Record<string, unknown> } } }> }).data.find(
      (e) => e.type === 'OPENID_CREDENTIAL_SUCCESS',
    );
    expect(credentialEvent?.data?.payload?.request).toMatchObject({ credential_configuration_id: configuration.id });
    expect(text).toContain('"grant_type":"urn:ietf:params:oauth:grant-type:pre-authorized_code"');
    // …and no secret and no credential anywhere in them.
    for (const [what, secret] of Object.entries({ credential, proof, accessToken, code, transactionCode, nonce })) {
      expect(text.includes(secret), `${what} is in the events`).toBe(false);
    }
    // Nor pieces of them: the credential's signature part, the proof's payload.
    expect(text).not.toContain(credential.slice(-40));
    expect(text).not.toContain(proof.split('.')[1] as string);
  });
});
