// Issue 15 acceptance, mDoc part: revocation seen by a verifier that shares no code with Vellum.
// The real server over TLS on loopback issues mDocs with a status entry to a wallet library we did
// not write (@openid4vc/openid4vci), @auth0/mdl verifies them, the issuer revokes one with the API
// (and suspends one in a legacy list), and the verifier's side fetches the status list token at the
// URI the MSO names and reads it with other people's code: @ldclabs/cose-ts (on cborg) checks the
// COSE_Sign1 against the document signer in its x5chain, node:crypto checks that the IACA issued
// that certificate, and pako inflates the bits. The revoked mDoc reads invalid, the others valid.
import { X509Certificate } from 'node:crypto';
import * as cborg from 'cborg';
import pako from 'pako';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCoseTs } from '../../../packages/formats/src/cwt/independent-cose.ts';
import { activeIaca, type IssuerServer, startIssuerServer } from './issuer-server.ts';
import { libraryWallet, preAuthorizedToken, requestCredential } from './library-wallet.ts';
import { presentAndVerify } from './mdoc-verify.ts';

const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const CARD = 'com.example.membership.1';

type StatusEntry = { idx: number; uri: string };

const cose = await loadCoseTs();

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

  /** The MSO's status entry, read with cborg (not the cbor-x Vellum writes with): `status` (draft 14) or `_status` (legacy). */
  function statusEntryOf(credential: string): { field: string; entry: StatusEntry } {
    // Tag 24 (embedded CBOR, RFC 8949 §3.4.5.1) is left as its bytes, then decoded where needed; Maps keep the keys' types.
    const tags: Array<(inner: unknown) => unknown> = [];
    tags[24] = (inner) => inner;
    tags[0] = (inner) => inner; // tdate (validityInfo)
    tags[1004] = (inner) => inner; // full-date
    const read = (bytes: Uint8Array) => cborg.decode(bytes, { tags, useMaps: true }) as unknown;
    const issuerSigned = read(new Uint8Array(Buffer.from(credential, 'base64url'))) as Map<string, unknown>;
    const issuerAuth = issuerSigned.get('issuerAuth') as [Uint8Array, unknown, Uint8Array, Uint8Array];
    const mso = read(read(issuerAuth[2]) as Uint8Array) as Map<string, unknown>;
    for (const field of ['status', '_status']) {
      const list = (mso.get(field) as Map<string, Map<string, unknown>> | undefined)?.get('status_list');
      if (list) return { field, entry: { idx: list.get('idx') as number, uri: list.get('uri') as string } };
    }
    throw new Error(`No status entry in the MSO: ${[...mso.keys()].join(', ')}`);
  }

  /** Fetches the token at `uri` and reads the status of `idx` as a verifier would. */
  async function statusAt(entry: StatusEntry): Promise<{ value: number; typ: string; ttl: unknown; contentType: string | null }> {
    const res = await tlsFetch(entry.uri);
    expect(res.status).toBe(200);
    const token = new Uint8Array(await res.arrayBuffer());
    const [protectedBytes, unprotected] = cose.decodeCBOR(token) as [Uint8Array, Map<number, unknown>];
    const x5chain = unprotected.get(33);
    const signer = new X509Certificate(Buffer.from(x5chain instanceof Uint8Array ? x5chain : ((x5chain as Uint8Array[])[0] as Uint8Array)));
    const iaca = new X509Certificate(iacaPem);
    expect(signer.checkIssued(iaca) && signer.verify(iaca.publicKey)).toBe(true);
    const jwk = signer.publicKey.export({ format: 'jwk' });
    const message = cose.Sign1Message.fromBytes(
      cose.ECDSAKey.fromPublic(Buffer.concat([Uint8Array.of(4), Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')])),
      token,
    );
    const claims = cose.decodeCBOR(message.payload) as Map<number, unknown>;
    const typ = (cose.decodeCBOR(protectedBytes) as Map<number, string>).get(16) as string;
    const legacy = typ === 'mattr-statuslist+cwt';
    expect(claims.get(2)).toBe(entry.uri);
    const list = claims.get(legacy ? -65538 : 65533) as Map<string, unknown>;
    const bits = list.get('bits') as number;
    const statuses = pako.inflate(list.get('lst') as Uint8Array) as Uint8Array;
    const at = entry.idx * bits;
    return {
      value: ((statuses[at >> 3] as number) >> (at & 7)) & ((1 << bits) - 1),
      typ,
      ttl: claims.get(legacy ? -65539 : 65534),
      contentType: res.headers.get('content-type'),
    };
  }

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
