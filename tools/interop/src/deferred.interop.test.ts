// Issue 30, deferred issuance (docs/deferred-issuance.md): a wallet library we did not write
// (@openid4vc/openid4vci) runs the Pre-authorized Code flow for an mDL whose configuration requires
// review, against the real server over TLS on loopback. The credential endpoint answers 202 with a
// transaction_id; the library polls the deferred credential endpoint (still 202) until the test
// approves through the admin HTTP API; the library then collects the mDoc, which @auth0/mdl
// verifies against the IACA with the wallet's key as device key. Then the negatives: the spent
// transaction_id, a denied one, and an expired one.
import { Openid4vciRetrieveCredentialsError } from '@openid4vc/openid4vci';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeIaca, type IssuerServer, startIssuerServer } from './issuer-server.ts';
import { libraryWallet, preAuthorizedToken, requestCredential } from './library-wallet.ts';
import { ISSUED_AND_VALID, presentAndVerify } from './mdoc-verify.ts';

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const SHORT_LIVED = 'org.example.reviewed.pass.1';
const NS = 'org.iso.18013.5.1';

describe('deferred issuance with a wallet library we did not write (OpenID4VCI 1.0 §8.3, §9; issue 30)', () => {
  let issuer: IssuerServer;
  let call: IssuerServer['call'];
  let configurationId: string;
  let shortLivedId: string;
  let iacaPem: string;

  beforeAll(async () => {
    issuer = await startIssuerServer();
    ({ call } = issuer);
    iacaPem = await activeIaca(issuer);
    const mdl = await call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      expiresIn: { days: 365 },
      claimMappings: { [NS]: { family_name: { mapFrom: 'claims.familyName', required: true }, birth_date: { mapFrom: 'claims.birthDate', type: 'date' } } },
      deferred: { intervalSeconds: 1 },
    });
    expect(mdl.status, mdl.text).toBe(201);
    configurationId = mdl.json().id;
    // A transaction that lasts two seconds, to see one expire.
    const pass = await call('POST', '/v2/credentials/mobile/configurations', {
      type: SHORT_LIVED,
      expiresIn: { days: 30 },
      claimMappings: { 'org.example.reviewed': { holder: { mapFrom: 'claims.familyName', required: true } } },
      deferred: { intervalSeconds: 1, expiresIn: { seconds: 2 } },
    });
    expect(pass.status, pass.text).toBe(201);
    shortLivedId = pass.json().id;
  }, 60_000);

  afterAll(async () => {
    await issuer?.stop();
  });

  /** A wallet that redeemed an offer for `configuration` and asked for it: the library's 202 answer, and what it needs to poll. */
  async function held(configuration = configurationId) {
    const offer = await call('POST', '/v1/openid/offers/pre-authorized', {
      credentials: [configuration],
      claims: { familyName: 'Okafor', birthDate: '1991-07-14' },
    });
    expect(offer.status, offer.text).toBe(200);
    const device = libraryWallet(issuer.tlsFetch);
    const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(device.client, offer.json().uri);
    expect(issuerMetadata.credentialIssuer.deferred_credential_endpoint).toBe(`${issuer.origin}/v1/openid/deferred_credential`);
    const answer = (await requestCredential(device.client, {
      issuerMetadata,
      credentialConfigurationId: configuration,
      signer: device.signer,
      accessToken: accessTokenResponse.access_token,
    })) as { transaction_id?: string; interval?: number; credentials?: unknown; notification_id?: string };
    const transactionId = answer.transaction_id as string;
    const poll = () => device.client.retrieveDeferredCredentials({ issuerMetadata, accessToken: accessTokenResponse.access_token, transactionId });
    return { device, answer, transactionId, poll };
  }

  /**
   * The library's collection of approved credentials. @openid4vc/openid4vci 0.4.6 refuses a deferred
   * response that has both `credentials` and `notification_id` (its check is the inverse of its own
   * message, "notification_id MUST NOT be defined when credentials is not defined"), though OpenID4VCI
   * 1.0 §9.2 gives the notification_id with the credentials as §8.3 does (oid4vc-ts issue #245, fixed
   * upstream after 0.4.6). So the answer is taken from
   * the library's own response when that one check is its only complaint, and from nowhere else.
   */
  async function collect(poll: () => Promise<{ response: Response; deferredCredentialResponse: unknown }>) {
    try {
      const ok = await poll();
      return { status: ok.response.status, body: ok.deferredCredentialResponse as Record<string, unknown> };
    } catch (error) {
      if (!(error instanceof Openid4vciRetrieveCredentialsError)) throw error;
      const failed = error.response as unknown as {
        response: Response;
        deferredCredentialResponseResult?: { success: boolean; error?: { issues: Array<{ message: string }> } };
      };
      const issues = failed.deferredCredentialResponseResult?.error?.issues.map((i) => i.message);
      expect(issues).toEqual(["'notification_id' MUST NOT be defined when 'credentials' is not defined."]);
      return { status: failed.response.status, body: (await failed.response.clone().json()) as Record<string, unknown> };
    }
  }

  /** The id of the pending issuance the admin API lists last. */
  async function lastPending(): Promise<string> {
    const list = await call('GET', '/v2/credentials/deferred?status=pending&limit=1000');
    expect(list.status, list.text).toBe(200);
    const data = list.json().data as Array<{ id: string }>;
    return (data[data.length - 1] as { id: string }).id;
  }

  /** The OAuth error of a refused deferred request, as the library reports it. */
  async function refusedWith(attempt: Promise<unknown>): Promise<string | undefined> {
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Openid4vciRetrieveCredentialsError);
    const response = (error as Openid4vciRetrieveCredentialsError).response as { deferredCredentialErrorResponseResult?: { data?: { error?: string } } };
    return response.deferredCredentialErrorResponseResult?.data?.error;
  }

  it('202 with a transaction_id, pending while unreviewed, the mDoc once approved, and invalid_transaction_id after', async () => {
    const { device, answer, transactionId, poll } = await held();
    expect(answer).toEqual({ transaction_id: expect.any(String), interval: 1 });
    expect(answer).not.toHaveProperty('notification_id');

    const pending = await poll();
    expect(pending.response.status).toBe(202);
    expect(pending.deferredCredentialResponse).toEqual({ transaction_id: transactionId, interval: 1 });

    const approved = await call('POST', `/v2/credentials/deferred/${await lastPending()}/approve`);
    expect(approved.status, approved.text).toBe(200);

    const collected = await collect(poll);
    expect(collected.status).toBe(200);
    const { credentials, notification_id } = collected.body as { credentials: Array<{ credential: string }>; notification_id: string };
    expect(credentials).toHaveLength(1);
    expect(notification_id).toEqual(expect.any(String));
    const { document, deviceKey } = await presentAndVerify(credentials[0]?.credential as string, DOC_TYPE, device.privateKey, iacaPem, ISSUED_AND_VALID);
    expect(deviceKey).toMatchObject({ kty: 'EC', crv: 'P-256', x: device.publicJwk.x, y: device.publicJwk.y });
    expect(document?.getIssuerNameSpace(NS)).toMatchObject({ family_name: 'Okafor' });

    // The transaction_id is single use.
    expect(await refusedWith(poll())).toBe('invalid_transaction_id');
  });

  it('credential_request_denied once the admin denies it', async () => {
    const { poll } = await held();
    const denied = await call('POST', `/v2/credentials/deferred/${await lastPending()}/deny`, { reason: 'Documents did not match' });
    expect(denied.status, denied.text).toBe(200);
    expect(await refusedWith(poll())).toBe('credential_request_denied');
  });

  it('invalid_transaction_id once the transaction has expired, and the admin can no longer approve it', async () => {
    const { poll, answer } = await held(shortLivedId);
    expect(answer).toEqual({ transaction_id: expect.any(String), interval: 1 });
    const id = await lastPending();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await refusedWith(poll())).toBe('invalid_transaction_id');
    expect((await call('POST', `/v2/credentials/deferred/${id}/approve`)).status).toBe(409);
  });
});
