// The example host on loopback, driven as a wallet would (OpenID4VCI 1.0, Pre-authorized Code
// flow): the host's own route hands out an offer, and the wallet follows the URLs Vellum publishes
// under the prefix: metadata → token → nonce → credential, with an ES256 key proof signed by jose.
// The mDoc is then presented with the holder's key and verified by @auth0/mdl (a verifier other
// people wrote) against the IACA that Vellum's public IACA list serves.
import { DeviceResponse, Verifier } from '@auth0/mdl';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOC_TYPE, type Host, NAMESPACE, PREFIX, startHost } from './main.ts';

const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** Fetches JSON of the shape `T` the caller reads, failing with the answer's text on any status but `status`. */
async function json<T>(url: string, init: RequestInit = {}, status = 200): Promise<T> {
  const res = await fetch(url, init);
  const text = await res.text();
  expect(res.status, `${init.method ?? 'GET'} ${url}: ${text}`).toBe(status);
  return JSON.parse(text) as T;
}

/** The fields of the issuer metadata a wallet uses here (OpenID4VCI 1.0 §12.2.4). */
interface IssuerMetadata {
  credential_issuer: string;
  token_endpoint: string;
  nonce_endpoint: string;
  credential_endpoint: string;
  mdoc_iacas_uri: string;
  credential_configurations_supported: Record<string, { format: string; doctype?: string }>;
}

// Just enough CBOR (RFC 8949) to wrap bytes for @auth0/mdl: heads of lengths below 256, text strings.
const head = (major: number, n: number) => Buffer.from(n < 24 ? [(major << 5) | n] : [(major << 5) | 24, n]);
const text = (s: string) => Buffer.concat([head(3, Buffer.byteLength(s)), Buffer.from(s, 'utf8')]);

/** { version: "1.0", documents: [{ docType, issuerSigned }], status: 0 } around the IssuerSigned bytes as issued. */
function issuerSignedDocument(docType: string, issuerSigned: Uint8Array): Buffer {
  const document = [head(5, 2), text('docType'), text(docType), text('issuerSigned'), issuerSigned];
  return Buffer.concat([head(5, 3), text('version'), text('1.0'), text('documents'), head(4, 1), ...document, text('status'), head(0, 0)]);
}

/** SessionTranscriptBytes, #6.24(bstr .cbor [null, null, handover]) (ISO/IEC 18013-5 §9.1.5.1): the holder signs over it, the verifier checks against it. */
function sessionTranscriptBytes(handover: string): Buffer {
  const transcript = Buffer.concat([head(4, 3), Buffer.from([0xf6, 0xf6]), text(handover)]);
  return Buffer.concat([head(6, 24), head(2, transcript.length), transcript]);
}

describe('the embed-fastify example: a wallet gets an mDoc from Vellum mounted under a prefix (OpenID4VCI 1.0 §3.5)', () => {
  let host: Host;
  beforeAll(async () => {
    host = await startHost({ port: 0 });
  });
  afterAll(async () => host?.close());

  it('leaves the host’s own routes alone and answers 404 under the prefix for what Vellum does not serve', async () => {
    expect((await fetch(`${host.url}/v1/openid/nonce`, { method: 'POST' })).status).toBe(404);
    const unknown = await json<{ code: string }>(`${host.url}${PREFIX}/no-such-route`, {}, 404);
    expect(unknown).toMatchObject({ code: 'NotFound' });
  });

  it('issues an mDL bound to the wallet’s key that @auth0/mdl verifies under the published IACA', async () => {
    // The offer, from the host's own route, names the issuer under the prefix.
    const { offerUri } = await json<{ offerUri: string }>(`${host.url}/account/mdl-offer`, { method: 'POST' });
    const offer = JSON.parse(new URL(offerUri).searchParams.get('credential_offer') as string);
    expect(offer.credential_issuer).toBe(`${host.url}${PREFIX}`);
    const code = offer.grants[PRE_AUTHORIZED_GRANT]['pre-authorized_code'];

    // Issuer metadata at the issuer's well-known path (OpenID4VCI 1.0 §12.2.2, prefix form).
    const metadata = await json<IssuerMetadata>(`${offer.credential_issuer}/.well-known/openid-credential-issuer`);
    expect(metadata.credential_issuer).toBe(offer.credential_issuer);
    const [configurationId] = offer.credential_configuration_ids;
    expect(metadata.credential_configurations_supported[configurationId]).toMatchObject({ format: 'mso_mdoc', doctype: DOC_TYPE });

    // Token (OpenID4VCI 1.0 §6), then a c_nonce (§7).
    const token = await json<{ access_token: string; token_type: string }>(metadata.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': code }),
    });
    expect(token.token_type).toBe('Bearer');
    const { c_nonce: nonce } = await json<{ c_nonce: string }>(metadata.nonce_endpoint, { method: 'POST' });

    // The holder's key, and a key proof JWT over the nonce (§8.2.1.1, Appendix F.1).
    const holder = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = await exportJWK(holder.publicKey);
    const proof = await new SignJWT({ nonce })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: publicJwk })
      .setAudience(metadata.credential_issuer)
      .setIssuedAt()
      .sign(holder.privateKey);
    const issued = await json<{ credentials: Array<{ credential: string }> }>(metadata.credential_endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ credential_configuration_id: configurationId, proofs: { jwt: [proof] } }),
    });
    expect(issued.credentials).toHaveLength(1);
    const credential = issued.credentials[0]?.credential ?? '';

    // A presentation with the holder's key, built and verified by @auth0/mdl.
    const transcript = sessionTranscriptBytes('a verifier’s session with this wallet');
    const presented = await DeviceResponse.from(issuerSignedDocument(DOC_TYPE, Buffer.from(credential, 'base64url')))
      .usingPresentationDefinition({
        id: 'mdl',
        input_descriptors: [
          {
            id: DOC_TYPE,
            format: { mso_mdoc: { alg: ['ES256'] } },
            constraints: {
              limit_disclosure: 'required',
              fields: ['family_name', 'given_name', 'birth_date', 'issuing_country'].map((name) => ({
                path: [`$['${NAMESPACE}']['${name}']`],
                intent_to_retain: false,
              })),
            },
          },
        ],
      })
      .usingSessionTranscriptBytes(transcript)
      .authenticateWithSignature({ ...(await exportJWK(holder.privateKey)) }, 'ES256')
      .sign();

    // The verifier trusts the IACA the issuer publishes (metadata's mdoc_iacas_uri).
    const iacas = await json<{ data: Array<{ certificatePem: string }> }>(metadata.mdoc_iacas_uri);
    const checks: Array<{ status: string; id?: string; check: string }> = [];
    const verifier = new Verifier(iacas.data.map((iaca) => iaca.certificatePem));
    const verified = await verifier.verify(presented.encode(), {
      encodedSessionTranscript: transcript,
      onCheck: (check) => checks.push(check as (typeof checks)[number]),
    });
    expect(checks.filter((c) => c.status !== 'PASSED')).toEqual([]);
    for (const id of ['ISSUER_SIGNATURE_VALIDITY', 'DEVICE_SIGNATURE_VALIDITY', 'ATTRIBUTE_DIGEST_MATCH', 'ISSUER_CERTIFICATE_VALIDITY']) {
      expect(
        checks.some((c) => c.id === id && c.status === 'PASSED'),
        id,
      ).toBe(true);
    }
    const values = verified.documents[0]?.getIssuerNameSpace(NAMESPACE) ?? {};
    expect({ ...values, birth_date: String(values.birth_date) }).toEqual({
      family_name: 'Turner',
      given_name: 'Susan',
      birth_date: '1990-05-15',
      issuing_country: 'US',
    });
  });
});
