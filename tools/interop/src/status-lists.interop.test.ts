import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeIaca, type IssuerServer, startIssuerServer } from './issuer-server.ts';
import { libraryWallet, preAuthorizedToken, requestCredential } from './library-wallet.ts';
import { presentAndVerify } from './mdoc-verify.ts';
import { mdocStatusAt, type StatusEntry, statusEntryOf } from './mdoc-status.ts';

const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const CARD = 'com.example.membership.1';

describe('mDoc status lists read by a verifier that shares no code with Vellum (issue 15)', () => {
  let issuer: IssuerServer;
  let origin: string;
  let tlsFetch: typeof fetch;
  let call: IssuerServer['call'];
  let iacaPem: string;
  const configurations: Record<string, string> = {};

  beforeAll(async () => {
    issuer = await startIssuerServer();
    ({ origin, tlsFetch, call } = issuer);
    iacaPem = await activeIaca(issuer);

    // The card's mDocs go into legacy (two-bit) lists; the mDL's into draft 14 ones, the default.
    const legacy = await call('POST', '/v2/credentials/mobile/status-lists/configurations', {
      docType: CARD,
      format: 'legacy',
      timeToLiveDuration: { minutes: 5 },
      expiryDuration: { hours: 1 },
    });
    expect(legacy.status, legacy.text).toBe(201);
    for (const docType of [MDL, CARD]) {
      const created = await call('POST', '/v2/credentials/mobile/configurations', {
        type: docType,
        expiresIn: { days: 365 },
        includeStatus: true,
        claimMappings: { [NS]: { family_name: { mapFrom: 'claims.familyName', required: true }, given_name: { mapFrom: 'claims.givenName' } } },
      });
      expect(created.status, created.text).toBe(201);
      configurations[docType] = created.json().id;
    }
  });

  afterAll(async () => {
    await issuer?.stop();
  });

  /** A Pre-authorized flow played by the wallet library; the mDoc, the device key and the record id. */
  async function issue(docType: string, familyName: string) {
    const { client, signer, privateKey } = libraryWallet(tlsFetch);
    const configurationId = configurations[docType] as string;
    const offer = await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configurationId], claims: { familyName, givenName: 'Ada' } });
    expect(offer.status, offer.text).toBe(200);
    const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(client, offer.json().uri);
    const response = await requestCredential(client, {
      issuerMetadata,
      credentialConfigurationId: configurationId,
      signer,
      accessToken: accessTokenResponse.access_token,
    });
    const credential = response.credentials?.[0]?.credential as string;

    // @auth0/mdl checks the issuer signature, the digests and the device signature.
    await presentAndVerify(credential, docType, privateKey, iacaPem);

    const records = (await call('GET', `/v2/credentials?format=mso_mdoc&credentialConfigurationId=${configurationId}`)).json().data as Array<{ id: string }>;
    return { credential, credentialId: records.at(-1)?.id as string };
  }

  const statusAt = (entry: StatusEntry) => mdocStatusAt(tlsFetch, entry, iacaPem);

  it('revokes an mDL: the next token at the URI its MSO names reads invalid for it and valid for another', async () => {
    const first = await issue(MDL, 'Okafor');
    const second = await issue(MDL, 'Turner');
    const [a, b] = [statusEntryOf(first.credential), statusEntryOf(second.credential)];
    expect(a.field).toBe('status');
    expect(a.entry.uri).toBe(b.entry.uri);
    expect(a.entry.idx).not.toBe(b.entry.idx);
    expect(a.entry.uri.startsWith(`${origin}/v2/credentials/mobile/status-lists/`)).toBe(true);
    expect((await call('GET', '/v2/credentials/mobile/status-lists/distribution', undefined, {})).json()).toContain(a.entry.uri);

    expect(await statusAt(a.entry)).toMatchObject({ value: 0, typ: 'application/statuslist+cwt', ttl: 3600, contentType: 'application/statuslist+cwt' });
    const revoked = await call('POST', `/v2/credentials/mobile/${first.credentialId}/status`, { status: 'invalid' });
    expect(revoked.status, revoked.text).toBe(200);
    expect((await statusAt(a.entry)).value).toBe(1);
    expect((await statusAt(b.entry)).value).toBe(0);
    expect((await call('GET', `/v2/credentials/mobile/${first.credentialId}/status`)).json()).toEqual({ status: 'invalid' });
  });

  it('suspends and reinstates an mDoc in a legacy (two-bit) list', async () => {
    const card = await issue(CARD, 'Okafor');
    const { field, entry } = statusEntryOf(card.credential);
    expect(field).toBe('_status');
    expect((await call('GET', '/v2/credentials/mobile/status-lists/distribution?format=legacy', undefined, {})).json()).toContainEqual({ uri: entry.uri });
    expect((await call('POST', `/v2/credentials/mobile/${card.credentialId}/status`, { status: 'suspended' })).status).toBe(200);
    expect(await statusAt(entry)).toMatchObject({ value: 2, typ: 'mattr-statuslist+cwt', ttl: 300 });
    expect((await call('POST', `/v2/credentials/mobile/${card.credentialId}/status`, { status: 'valid' })).status).toBe(200);
    expect((await statusAt(entry)).value).toBe(0);
  });
});
