import { PRE_AUTHORIZED_GRANT } from '@vellum/core';
import { decryptJwe, encryptionKey, encryptJwe, proofJwt, readFakeMdoc, walletKey, type WalletKey } from '@vellum/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bearerCaller, type Method, useTestApp } from '../test/app.ts';

const MDL = 'org.iso.18013.5.1.mDL';
const mdlBody = {
  type: MDL,
  expiresIn: { days: 365 },
  claimMappings: {
    'org.iso.18013.5.1': {
      family_name: { mapFrom: 'claims.familyName', required: true },
      birth_date: { mapFrom: 'claims.birthDate', type: 'date' },
    },
  },
};

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('the credential and notification endpoints over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  let tenants = 0;

  /** A tenant with an active IACA and an mDL configuration, and an admin caller. */
  async function issuer() {
    tenants += 1;
    const subdomain = `issuer${tenants}`;
    const { host } = await t.createTenant(subdomain);
    const admin = await t.token(subdomain);
    const call = bearerCaller(t, host, admin);
    const iaca = (await call('POST', '/v2/credentials/mobile/iacas', { country: 'US' })).json() as { id: string };
    expect((await call('PUT', `/v2/credentials/mobile/iacas/${iaca.id}`, { active: true })).statusCode).toBe(200);
    const configuration = (await call('POST', '/v2/credentials/mobile/configurations', mdlBody)).json() as { id: string };
    const audience = `https://${host}${t.prefix}`;
    const wallet = (
      method: Method,
      path: string,
      options: { authorization?: string; body?: string; contentType?: string; headers?: Record<string, string> } = {},
    ) =>
      t.app.inject({
        method,
        url: `${t.prefix}${path}`,
        headers: {
          host,
          ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
          ...(options.contentType === undefined ? {} : { 'content-type': options.contentType }),
          ...options.headers,
        },
        ...(options.body === undefined ? {} : { payload: options.body }),
      });

    /** An offer redeemed at the token endpoint, as a wallet does it (with `form` added to the token request). */
    async function redeemed(claims: Record<string, unknown> = { familyName: 'Turner', birthDate: '1990-05-15' }, form: Record<string, string> = {}) {
      const offer = (await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configuration.id], claims })).json() as {
        id: string;
        userId: string;
        uri: string;
      };
      const json = JSON.parse(new URL(offer.uri).searchParams.get('credential_offer') as string) as { grants: Record<string, Record<string, string>> };
      const code = json.grants[PRE_AUTHORIZED_GRANT]?.['pre-authorized_code'] as string;
      const res = await wallet('POST', '/v1/oauth/token', {
        contentType: 'application/x-www-form-urlencoded',
        body: new URLSearchParams({ grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': code, ...form }).toString(),
      });
      expect(res.statusCode, res.body).toBe(200);
      const answer = res.json() as { access_token: string; authorization_details?: unknown };
      return { offerId: offer.id, userId: offer.userId, authorization: `Bearer ${answer.access_token}`, answer };
    }

    /** The tenant's request encryption key, from the metadata (credential_request_encryption.jwks). */
    async function requestKey(): Promise<Record<string, unknown>> {
      const metadata = (await wallet('GET', '/.well-known/openid-credential-issuer')).json() as {
        credential_request_encryption: { jwks: { keys: Array<Record<string, unknown>> } };
      };
      return metadata.credential_request_encryption.jwks.keys[0]!;
    }

    async function nonce(): Promise<string> {
      const res = await wallet('POST', '/v1/openid/nonce');
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { c_nonce: string }).c_nonce;
    }

    async function proof(key: WalletKey = walletKey(), over: Partial<Parameters<typeof proofJwt>[1]> = {}) {
      return proofJwt(key, { audience, nonce: await nonce(), ...over });
    }

    const credential = (authorization: string | undefined, body: unknown, contentType = 'application/json') =>
      wallet('POST', '/v1/openid/credential', {
        ...(authorization === undefined ? {} : { authorization }),
        contentType,
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    return { host, admin, call, wallet, configuration, audience, redeemed, requestKey, nonce, proof, credential };
  }

  it('issues the mDoc: offer → token → nonce → credential, then the record shows in both lists and takes a notification', async () => {
    const s = await issuer();
    const { authorization, userId, offerId } = await s.redeemed();
    const key = walletKey();
    const res = await s.credential(authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [await s.proof(key)] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.deprecation).toBeUndefined();
    const body = res.json() as { credentials: Array<{ credential: string }>; notification_id: string };
    const mdoc = readFakeMdoc(body.credentials[0]!.credential);
    expect(mdoc.deviceKey).toEqual(key.publicJwk);
    expect(mdoc.namespaces['org.iso.18013.5.1']).toEqual({
      family_name: { type: 'string', value: 'Turner' },
      birth_date: { type: 'date', value: '1990-05-15' },
    });

    const listed = await s.call('GET', `/v2/credentials?userId=${userId}`);
    expect(listed.statusCode, listed.body).toBe(200);
    const [record] = (listed.json() as { data: Array<Record<string, unknown>> }).data;
    expect(record).toEqual({
      id: expect.any(String),
      format: 'mso_mdoc',
      credentialConfigurationId: s.configuration.id,
      userId,
      offerId,
      issuedAt: expect.any(String),
      validFrom: expect.any(String),
      validUntil: expect.any(String),
      status: 'valid',
    });
    expect((await s.call('GET', `/v1/users/${userId}/credentials`)).json()).toMatchObject({ data: [{ id: record!.id }] });

    const notified = await s.wallet('POST', '/v1/openid/notification', {
      authorization,
      contentType: 'application/json',
      body: JSON.stringify({ notification_id: body.notification_id, event: 'credential_accepted' }),
    });
    expect(notified.statusCode, notified.body).toBe(204);
    expect(notified.body).toBe('');
    expect(((await s.call('GET', '/v2/credentials')).json() as { data: Array<{ notification?: { event: string } }> }).data[0]?.notification?.event).toBe(
      'credential_accepted',
    );
  });

  it('queues the webhook deliveries of the issuance (the outbox behind DomainEventSink), one per subscribed event', async () => {
    const s = await issuer();
    const hook = await s.call('POST', '/v1/webhooks', {
      events: ['OpenIdCredentialIssued', 'OpenIdCredentialIssuedSummary'],
      url: 'https://hooks.example.com/vellum',
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const { id } = hook.json() as { id: string };
    expect((await s.call('GET', `/v1/webhooks/${id}/deliveries`)).json()).toEqual({ data: [] });
    const { authorization } = await s.redeemed();
    expect((await s.credential(authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [await s.proof()] } })).statusCode).toBe(200);
    const deliveries = (await s.call('GET', `/v1/webhooks/${id}/deliveries`)).json() as { data: Array<{ eventType: string; eventId: string; status: string }> };
    expect(deliveries.data.map((d) => d.eventType).sort()).toEqual(['OpenIdCredentialIssued', 'OpenIdCredentialIssuedSummary']);
    expect(new Set(deliveries.data.map((d) => d.eventId)).size).toBe(1);
    // A refused request queues nothing.
    await s.credential(authorization, { credential_configuration_id: s.configuration.id });
    expect(((await s.call('GET', `/v1/webhooks/${id}/deliveries`)).json() as { data: unknown[] }).data).toHaveLength(2);
  });

  it('takes a proof whose key is a did:key kid (P-256 decompressed by the real verifier)', async () => {
    const s = await issuer();
    const { authorization } = await s.redeemed();
    const key = walletKey();
    const res = await s.credential(authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [await s.proof(key, { keyBy: 'did' })] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(readFakeMdoc((res.json() as { credentials: Array<{ credential: string }> }).credentials[0]!.credential).deviceKey).toEqual(key.publicJwk);
  });

  it('answers the legacy request with the legacy response and the Deprecation (RFC 9745) and Sunset (RFC 8594) headers', async () => {
    const s = await issuer();
    const { authorization } = await s.redeemed();
    const res = await s.credential(authorization, { format: 'mso_mdoc', doctype: MDL, proof: { proof_type: 'jwt', jwt: await s.proof() } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ credential: expect.any(String), format: 'mso_mdoc', notification_id: expect.any(String) });
    expect(res.headers.deprecation).toBe('@1777680000');
    expect(res.headers.sunset).toBe('Sat, 02 May 2026 00:00:00 GMT');
  });

  it('a missing or foreign access token: 401 invalid_token with the Bearer challenge (docs/errors.md)', async () => {
    const s = await issuer();
    const other = await issuer();
    const { authorization: foreign } = await other.redeemed();
    for (const authorization of [undefined, 'Bearer nope', foreign]) {
      const res = await s.credential(authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [await s.proof()] } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toEqual({ code: 'Unauthorized', message: expect.any(String), error: 'invalid_token', error_description: expect.any(String) });
    }
    const notify = await s.wallet('POST', '/v1/openid/notification', { contentType: 'application/json', body: '{}' });
    expect(notify.statusCode).toBe(401);
    expect(notify.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('refuses with the OAuth errors: bad JSON, two proofs, no proof, a reused nonce, another audience, a configuration not granted, an unknown notification id', async () => {
    const s = await issuer();
    const { authorization } = await s.redeemed();
    const id = s.configuration.id;
    const expectError = async (res: Awaited<ReturnType<typeof s.credential>>, status: number, error: string) => {
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json()).toMatchObject({ error, error_description: expect.any(String), code: expect.any(String), message: expect.any(String) });
    };
    await expectError(await s.credential(authorization, '{not json'), 400, 'invalid_credential_request');
    await expectError(
      await s.credential(authorization, { credential_configuration_id: id, proofs: { jwt: [await s.proof(), await s.proof()] } }),
      400,
      'invalid_proof',
    );
    await expectError(await s.credential(authorization, { credential_configuration_id: id }), 400, 'invalid_proof');
    await expectError(
      await s.credential(authorization, {
        credential_configuration_id: id,
        proofs: { jwt: [await s.proof(walletKey(), { audience: 'https://elsewhere.example' })] },
      }),
      400,
      'invalid_proof',
    );
    await expectError(
      await s.credential(authorization, { credential_configuration_id: crypto.randomUUID(), proofs: { jwt: [await s.proof()] } }),
      400,
      'unknown_credential_configuration',
    );
    const jwt = await s.proof();
    expect((await s.credential(authorization, { credential_configuration_id: id, proofs: { jwt: [jwt] } })).statusCode).toBe(200);
    await expectError(await s.credential(authorization, { credential_configuration_id: id, proofs: { jwt: [jwt] } }), 400, 'invalid_nonce');
    const unknown = await s.wallet('POST', '/v1/openid/notification', {
      authorization,
      contentType: 'application/json',
      body: JSON.stringify({ notification_id: 'nope', event: 'credential_accepted' }),
    });
    await expectError(unknown, 400, 'invalid_notification_id');
    const text = await s.credential(authorization, 'x', 'text/plain');
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ code: 'UnsupportedMediaType', error: expect.any(String) });
  });

  it('encrypts the response to the wallet’s key (application/jwt, ECDH-ES), decrypted here by an independent implementation', async () => {
    const s = await issuer();
    const { authorization } = await s.redeemed();
    const wallet = encryptionKey();
    const request = {
      credential_configuration_id: s.configuration.id,
      proofs: { jwt: [await s.proof()] },
      credential_response_encryption: { jwk: { ...wallet.publicJwk, kid: 'w1' }, enc: 'A256GCM' },
    };
    // OpenID4VCI 1.0 §8.2: a request asking for an encrypted response is encrypted itself.
    const plain = await s.credential(authorization, request);
    expect(plain.statusCode, plain.body).toBe(400);
    expect(plain.json()).toMatchObject({ error: 'invalid_encryption_parameters' });
    const res = await s.credential(authorization, encryptJwe(JSON.stringify(request), await s.requestKey(), 'A128GCM'), 'application/jwt');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/jwt/);
    const { header, plaintext } = decryptJwe(res.body, wallet.privateKey);
    expect(header).toMatchObject({ alg: 'ECDH-ES', enc: 'A256GCM', kid: 'w1' });
    expect(JSON.parse(plaintext)).toMatchObject({ credentials: [{ credential: expect.any(String) }], notification_id: expect.any(String) });
  });

  it('takes a request encrypted to the key the metadata publishes (credential_request_encryption.jwks)', async () => {
    const s = await issuer();
    const { authorization } = await s.redeemed();
    const metadata = (await s.wallet('GET', '/.well-known/openid-credential-issuer')).json() as {
      credential_request_encryption: { jwks: { keys: Array<Record<string, unknown>> } };
    };
    const [issuerKey] = metadata.credential_request_encryption.jwks.keys;
    expect(issuerKey).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES', kid: expect.any(String) });
    const wallet = encryptionKey();
    const request = {
      credential_configuration_id: s.configuration.id,
      proofs: { jwt: [await s.proof()] },
      credential_response_encryption: { jwk: wallet.publicJwk, enc: 'A128GCM' },
    };
    const res = await s.credential(authorization, encryptJwe(JSON.stringify(request), issuerKey!, 'A128GCM'), 'application/jwt');
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(decryptJwe(res.body, wallet.privateKey).plaintext)).toMatchObject({ credentials: [{ credential: expect.any(String) }] });
    // Encrypted to another tenant's key: refused.
    const other = await issuer();
    const otherKey = ((await other.wallet('GET', '/.well-known/openid-credential-issuer')).json() as typeof metadata).credential_request_encryption.jwks
      .keys[0]!;
    const wrong = await s.credential(authorization, encryptJwe(JSON.stringify(request), otherKey, 'A128GCM'), 'application/jwt');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: 'invalid_encryption_parameters' });
  });

  it('one offer, one token: a second credential request for the configuration is 400 credential_request_denied (one credential per configuration per token)', async () => {
    const s = await issuer();
    const { authorization, userId } = await s.redeemed();
    const request = async () => s.credential(authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [await s.proof()] } });
    expect((await request()).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) {
      const again = await request();
      expect(again.statusCode, again.body).toBe(400);
      expect(again.json()).toMatchObject({ code: 'BadRequest', error: 'credential_request_denied' });
    }
    expect(((await s.call('GET', `/v2/credentials?userId=${userId}`)).json() as { data: unknown[] }).data).toHaveLength(1);
  });

  it('honours authorization_details at the token endpoint: credential_identifiers in the answer, credential_identifier at the credential endpoint (OpenID4VCI 1.0 §6, §8.2)', async () => {
    const s = await issuer();
    const details = JSON.stringify([{ type: 'openid_credential', credential_configuration_id: s.configuration.id }]);
    const { authorization, answer } = await s.redeemed(undefined, { authorization_details: details });
    expect(answer.authorization_details).toEqual([
      { type: 'openid_credential', credential_configuration_id: s.configuration.id, credential_identifiers: [s.configuration.id] },
    ]);
    const byConfiguration = await s.credential(authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [await s.proof()] } });
    expect(byConfiguration.statusCode).toBe(400);
    expect(byConfiguration.json()).toMatchObject({ error: 'invalid_credential_request' });
    const res = await s.credential(authorization, { credential_identifier: s.configuration.id, proofs: { jwt: [await s.proof()] } });
    expect(res.statusCode, res.body).toBe(200);
    // Details the offer does not grant: refused, not ignored.
    const offer = (
      await s.call('POST', '/v1/openid/offers/pre-authorized', { credentials: [s.configuration.id], claims: { familyName: 'Turner' } })
    ).json() as { uri: string };
    const code = (JSON.parse(new URL(offer.uri).searchParams.get('credential_offer') as string) as { grants: Record<string, Record<string, string>> }).grants[
      PRE_AUTHORIZED_GRANT
    ]?.['pre-authorized_code'] as string;
    const refused = await s.wallet('POST', '/v1/oauth/token', {
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({
        grant_type: PRE_AUTHORIZED_GRANT,
        'pre-authorized_code': code,
        authorization_details: JSON.stringify([{ type: 'openid_credential', credential_configuration_id: 'other' }]),
      }).toString(),
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_authorization_details' });
  });

  it('error_description keeps to the characters RFC 6749 §5.2 allows, whatever the message says', async () => {
    const s = await issuer();
    const allowed = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;
    // A user without the claim the configuration requires: the core's message about the user's claims.
    const { authorization } = await s.redeemed({ birthDate: '1990-05-15' });
    const missing = await s.credential(authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [await s.proof()] } });
    const noProof = await s.credential((await s.redeemed()).authorization, { credential_configuration_id: s.configuration.id });
    const badNotification = await s.wallet('POST', '/v1/openid/notification', {
      authorization,
      contentType: 'application/json',
      body: JSON.stringify({ notification_id: 'x', event: 'credential_accepted', event_description: 'caf\u00e9' }),
    });
    for (const res of [missing, noProof, badNotification]) {
      expect(res.statusCode, res.body).toBe(400);
      const { error_description } = res.json() as { error_description: string };
      expect(error_description, res.body).toMatch(allowed);
    }
    expect(missing.json()).toMatchObject({ error: 'credential_request_denied' });
  });

  it('lists issued credentials only with the credentials and users permissions (docs/decisions.md "Tenancy and admin authentication", docs/decisions.md "The credential endpoint")', async () => {
    const s = await issuer();
    const sub = `issuer${tenants}`;
    const auditor = await t.token(sub, 'auditor');
    expect((await s.call('GET', '/v2/credentials', undefined, auditor)).statusCode).toBe(403);
    expect((await s.call('GET', `/v1/users/${crypto.randomUUID()}/credentials`, undefined, auditor)).statusCode).toBe(403);
    expect((await s.wallet('GET', '/v2/credentials')).statusCode).toBe(401);
    expect((await s.call('GET', `/v1/users/${crypto.randomUUID()}/credentials`)).statusCode).toBe(404);
    const bad = await s.call('GET', '/v2/credentials?format=jwt_vc&unknown=1');
    expect(bad.statusCode).toBe(400);
  });

  // No input causes a 5xx (issue 5 acceptance): generated garbage in bodies, headers, tokens and proofs.
  it('never answers 5xx, whatever a caller sends to the credential and notification endpoints (property)', async () => {
    const s = await issuer();
    const { authorization } = await s.redeemed();
    const good = await s.proof();
    const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
    const jsonValue = fc.jsonValue({ maxDepth: 4 });
    const jwtLike = fc.oneof(
      fc.string(),
      fc.tuple(jsonValue, jsonValue, fc.string()).map(([h, p, sig]) => `${b64(h)}.${b64(p)}.${b64(sig)}`),
      fc
        .record(
          {
            alg: fc.constantFrom('ES256', 'EdDSA', 'none', 'HS256', 'RS256'),
            typ: fc.constantFrom('openid4vci-proof+jwt', 'JWT'),
            jwk: jsonValue,
            kid: fc.oneof(fc.string(), fc.constant('did:key:zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZpv')),
          },
          { requiredKeys: [] },
        )
        .chain((h) => fc.tuple(fc.constant(h), jsonValue).map(([hh, p]) => `${b64(hh)}.${b64(p)}.${b64('sig')}`)),
      fc.constant(good),
    );
    const requestBody = fc.oneof(
      jsonValue,
      fc
        .record(
          {
            credential_configuration_id: fc.oneof(fc.constant(s.configuration.id), fc.string(), jsonValue),
            format: fc.oneof(fc.constantFrom('mso_mdoc', 'ldp_vc', 'cwt'), jsonValue),
            doctype: fc.oneof(fc.constant(MDL), jsonValue),
            proofs: fc.oneof(fc.record({ jwt: fc.array(jwtLike, { maxLength: 3 }) }), jsonValue),
            proof: fc.oneof(fc.record({ proof_type: fc.constantFrom('jwt', 'cwt'), jwt: jwtLike }), jsonValue),
            credential_response_encryption: fc.oneof(
              fc.record(
                {
                  jwk: fc.oneof(jsonValue, fc.constant(encryptionKey().publicJwk)),
                  enc: fc.constantFrom('A128GCM', 'A256GCM', 'A192GCM'),
                  zip: fc.constant('DEF'),
                },
                { requiredKeys: [] },
              ),
              jsonValue,
            ),
            notification_id: jsonValue,
            event: fc.oneof(fc.constantFrom('credential_accepted', 'credential_failure'), jsonValue),
            event_description: jsonValue,
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    );
    const body = requestBody.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    const auth = fc.oneof(
      fc.constant(authorization),
      fc.constant(undefined),
      fc.string({ maxLength: 100 }).map((v) => `Bearer ${v}`),
      fc.string({ maxLength: 100 }),
      jwtLike.map((j) => `Bearer ${j}`),
    );
    const contentType = fc.oneof(
      fc.constantFrom('application/json', 'application/jwt', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'),
      fc.string({ maxLength: 40 }),
    );
    const path = fc.constantFrom('/v1/openid/credential', '/v1/openid/notification');

    await fc.assert(
      fc.asyncProperty(path, auth, contentType, body, async (p, a, ct, b) => {
        const printable = (v: string | undefined) => (v === undefined ? undefined : v.replace(/[^\x20-\x7e]/g, ''));
        const headers: Record<string, string> = {};
        const authHeader = printable(a);
        const typeHeader = printable(ct);
        if (authHeader) headers.authorization = authHeader;
        if (typeHeader) headers['content-type'] = typeHeader;
        const res = await t.app.inject({ method: 'POST', url: `${t.prefix}${p}`, headers: { host: s.host, ...headers }, payload: b });
        expect(res.statusCode, `${p} ${JSON.stringify(headers)} ${b.slice(0, 200)} → ${res.body}`).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
  });
});
