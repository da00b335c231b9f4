// Issue 31, mDoc verification with the real adapters (createMdocReader from @vellum/formats,
// createCertificateChainValidator from @vellum/crypto): mDocs issued by Vellum's engine and by a
// second issuer built with @auth0/mdl, presented with a device signature over an OpenID4VP
// session transcript, and the refusals a verifier must make.
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { DeviceResponse, Document, MDoc } from '@auth0/mdl';
import { createMdocVerifier, evaluateDcql, type PublicJwk } from '@vellum/core';
import { createCertificateChainValidator, createDocumentSignerCertificate, createIacaCertificate } from '@vellum/crypto';
import { createMdocReader, issueMdoc } from '@vellum/formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { cborEncode, deviceResponse, embeddedCbor, holder, oid4vpSessionTranscript, readerTranscript } from './mdoc-device.ts';
import { opensslAuthorityKeyId, opensslSubjectKeyId } from './openssl-key-ids.ts';

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const NOW = new Date();
const DAY = 86_400_000;
const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

// The core exports the verification model with the verify API; the anchor type is taken from the verifier here.
type IssuerAnchor = Parameters<ReturnType<typeof createMdocVerifier>>[1]['anchors'][number];

const verify = createMdocVerifier({ reader: createMdocReader(), chains: createCertificateChainValidator() });

function p256() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    privateKey,
    privateJwk: privateKey.export({ format: 'jwk' }),
    publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string } satisfies PublicJwk,
    sign: async (data: Uint8Array) => new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
  };
}

/** An IACA and a document signer under it, valid around now. */
async function pki(name: string) {
  const iacaKey = p256();
  const signerKey = p256();
  const common = { country: 'US', issuerAlternativeName: 'mailto:pki@example.org', crlDistributionPointUri: 'https://example.org/crl' };
  const iaca = await createIacaCertificate({
    key: iacaKey,
    commonName: `${name} IACA`,
    notBefore: new Date(NOW.getTime() - DAY),
    notAfter: new Date(NOW.getTime() + 3650 * DAY),
    ...common,
  });
  const signer = await createDocumentSignerCertificate({
    iaca: { certificateDer: iaca.der, key: iacaKey },
    subjectPublicJwk: signerKey.publicJwk,
    commonName: `${name} DS`,
    notBefore: new Date(NOW.getTime() - DAY),
    notAfter: new Date(NOW.getTime() + 365 * DAY),
    ...common,
  });
  return { iaca, signer, signerKey };
}

const anchor = (pem: string, types?: string[]): IssuerAnchor => ({
  kind: 'x509',
  trustedIssuerId: 'ti-1',
  certificatePem: pem,
  formats: ['mso_mdoc'],
  ...(types ? { types } : {}),
});
const transcriptBytes = cborEncode(readerTranscript);
const failedChecks = (result: { checks: { check: string; ok: boolean }[] }) => result.checks.filter((c) => !c.ok).map((c) => c.check);

describe('mDoc verification with the real adapters (issue 31)', () => {
  let vellum: Awaited<ReturnType<typeof pki>>;
  let device: ReturnType<typeof holder>;

  async function vellumMdoc(options: { validUntil?: Date; validFrom?: Date } = {}) {
    const validFrom = options.validFrom ?? new Date(NOW.getTime() - 60_000);
    return issueMdoc({
      docType: DOC_TYPE,
      namespaces: { [NS]: { family_name: 'Turner', birth_date: { type: 'date', value: '1990-05-15' }, age_over_18: true } },
      deviceKey: device.publicJwk,
      validity: { signed: validFrom, validFrom, validUntil: options.validUntil ?? new Date(NOW.getTime() + 30 * DAY) },
      signer: { sign: vellum.signerKey.sign, x5chain: [vellum.signer.der] },
    });
  }

  beforeAll(async () => {
    vellum = await pki('Vellum');
    device = holder();
  });

  it('verifies a DeviceResponse of a Vellum mDoc: issuer chain, digests, validity, device signature, claims', async () => {
    const issued = await vellumMdoc();
    const presented = deviceResponse({
      docType: DOC_TYPE,
      issuerSigned: issued.issuerSigned,
      sessionTranscript: readerTranscript,
      devicePrivateKey: device.privateKey,
    });
    const result = await verify(b64u(presented.deviceResponse), {
      anchors: [anchor(vellum.iaca.pem, [DOC_TYPE])],
      now: NOW,
      sessionTranscript: transcriptBytes,
    });
    expect(failedChecks(result)).toEqual([]);
    expect(result.verified).toBe(true);
    expect(result.issuer).toMatchObject({ kind: 'x509', trusted: true, trustedIssuerId: 'ti-1' });
    expect(result.credentialType).toBe(DOC_TYPE);
    expect(result.claims).toEqual({ [NS]: { family_name: 'Turner', birth_date: '1990-05-15', age_over_18: true } });
    expect(result.status).toBe('not-checked');
    expect(result.checks.map((c) => c.check)).toEqual([
      'decode',
      'issuer-signature',
      'trusted-issuer',
      'doc-type',
      'digest-algorithm',
      'value-digests',
      'validity',
      'signed',
      'device-auth',
    ]);
    // The same response given the transcript wrapped as SessionTranscriptBytes verifies too.
    const wrapped = await verify(b64u(presented.deviceResponse), {
      anchors: [anchor(vellum.iaca.pem)],
      now: NOW,
      sessionTranscript: presented.sessionTranscriptBytes,
    });
    expect(wrapped.verified).toBe(true);
  });

  it('names the AuthorityKeyIdentifier of the document signer, as openssl reads it, and answers a DCQL aki query for the IACA', async () => {
    const issued = await vellumMdoc();
    const presented = deviceResponse({
      docType: DOC_TYPE,
      issuerSigned: issued.issuerSigned,
      sessionTranscript: readerTranscript,
      devicePrivateKey: device.privateKey,
    });
    const result = await verify(b64u(presented.deviceResponse), { anchors: [anchor(vellum.iaca.pem)], now: NOW, sessionTranscript: transcriptBytes });
    const aki = opensslAuthorityKeyId(vellum.signer.der);
    expect(aki).toBeDefined();
    expect(aki).toBe(opensslSubjectKeyId(vellum.iaca.der));
    expect(result.issuer?.authorityKeyIds).toEqual([aki]);
    expect(result.holderBound).toBe(true);
    const query = (values: string[]) => ({
      credentials: [
        {
          id: 'mdl',
          format: 'mso_mdoc',
          meta: { doctype_value: DOC_TYPE },
          claims: [{ path: [NS, 'age_over_18'], values: [true] }],
          trusted_authorities: [{ type: 'aki', values }],
        },
      ],
    });
    const answered = evaluateDcql(query([aki as string]), { mdl: [result] });
    expect(answered.satisfied).toBe(true);
    expect(answered.credentials.mdl?.claims).toEqual([{ [NS]: { age_over_18: true } }]);
    const other = await pki('Other');
    expect(evaluateDcql(query([opensslSubjectKeyId(other.iaca.der) as string]), { mdl: [result] }).satisfied).toBe(false);
    // Without the transcript the device signature is not checked: no holder binding for DCQL.
    const unbound = await verify(b64u(presented.deviceResponse), { anchors: [anchor(vellum.iaca.pem)], now: NOW });
    expect(unbound.holderBound).toBe(false);
  });

  it('verifies a bare IssuerSigned (no device authentication to check)', async () => {
    const issued = await vellumMdoc();
    const result = await verify(issued.credential, { anchors: [anchor(vellum.iaca.pem)], now: NOW });
    expect(result.verified).toBe(true);
    expect(result.checks.some((c) => c.check === 'device-auth')).toBe(false);
  });

  it('records device-auth as not checked when a DeviceResponse comes without a session transcript', async () => {
    const issued = await vellumMdoc();
    const presented = deviceResponse({
      docType: DOC_TYPE,
      issuerSigned: issued.issuerSigned,
      sessionTranscript: readerTranscript,
      devicePrivateKey: device.privateKey,
    });
    const result = await verify(b64u(presented.deviceResponse), { anchors: [anchor(vellum.iaca.pem)], now: NOW });
    expect(result.verified).toBe(true);
    expect(result.checks.at(-1)).toEqual({ check: 'device-auth', ok: true, reason: 'Not checked: no session transcript given' });
  });

  it('refuses a device signature over another session transcript', async () => {
    const issued = await vellumMdoc();
    const other = oid4vpSessionTranscript({ clientId: 'other.example', responseUri: 'https://other.example/r', nonce: 'n-2', mdocGeneratedNonce: 'm-2' });
    const presented = deviceResponse({ docType: DOC_TYPE, issuerSigned: issued.issuerSigned, sessionTranscript: other, devicePrivateKey: device.privateKey });
    const result = await verify(b64u(presented.deviceResponse), { anchors: [anchor(vellum.iaca.pem)], now: NOW, sessionTranscript: transcriptBytes });
    expect(result.verified).toBe(false);
    expect(failedChecks(result)).toEqual(['device-auth']);
  });

  it('refuses a tampered element value (digest mismatch)', async () => {
    const issued = await vellumMdoc();
    // Same length, so the CBOR stays well formed: only the element value changes.
    const tampered = Buffer.from(issued.issuerSigned);
    const at = tampered.indexOf(Buffer.from('Turner'));
    expect(at).toBeGreaterThan(0);
    tampered.write('Tarner', at);
    const result = await verify(b64u(tampered), { anchors: [anchor(vellum.iaca.pem)], now: NOW });
    expect(result.verified).toBe(false);
    expect(failedChecks(result)).toEqual(['value-digests']);
    expect(result.checks.find((c) => c.check === 'value-digests')?.reason).toContain('family_name');
  });

  it('reports a signer under an IACA the tenant does not trust as untrusted', async () => {
    const stranger = await pki('Stranger');
    const issued = await vellumMdoc();
    const result = await verify(issued.credential, { anchors: [anchor(stranger.iaca.pem)], now: NOW });
    expect(result.verified).toBe(false);
    expect(result.issuer).toMatchObject({ kind: 'x509', trusted: false });
    expect(result.issuer?.trustedIssuerId).toBeUndefined();
    expect(failedChecks(result)).toEqual(['trusted-issuer']);
  });

  it('refuses an expired mDoc', async () => {
    const issued = await vellumMdoc({ validFrom: new Date(NOW.getTime() - 10 * DAY), validUntil: new Date(NOW.getTime() - DAY) });
    const result = await verify(issued.credential, { anchors: [anchor(vellum.iaca.pem)], now: NOW });
    expect(result.verified).toBe(false);
    expect(failedChecks(result)).toEqual(['validity']);
    expect(result.checks.find((c) => c.check === 'validity')?.reason).toMatch(/^Expired at /);
  });

  it('refuses a docType the trusted IACA may not issue', async () => {
    const issued = await vellumMdoc();
    const result = await verify(issued.credential, { anchors: [anchor(vellum.iaca.pem, ['eu.europa.ec.eudi.pid.1'])], now: NOW });
    expect(result.verified).toBe(false);
    expect(result.issuer?.trusted).toBe(false);
    expect(result.checks.find((c) => c.check === 'trusted-issuer')?.reason).toContain(DOC_TYPE);
  });

  it('verifies an mDoc and DeviceResponse built by @auth0/mdl, another issuer and another holder implementation', async () => {
    const other = await pki('Other');
    const deviceKey = p256();
    const signed = await new Document(DOC_TYPE)
      .addIssuerNameSpace(NS, { family_name: 'Jones', given_name: 'Ava', birth_date: '2001-02-03' })
      .useDigestAlgorithm('SHA-256')
      .addValidityInfo({ signed: NOW, validFrom: NOW, validUntil: new Date(NOW.getTime() + 30 * DAY) })
      .addDeviceKeyInfo({ deviceKey: deviceKey.publicJwk })
      .sign({ issuerPrivateKey: p256ToJwk(other.signerKey.privateKey), issuerCertificate: other.signer.pem, alg: 'ES256' });
    const mdoc = new MDoc([signed]);
    const presentation = await DeviceResponse.from(mdoc)
      .usingPresentationDefinition({
        id: 'pd-1',
        input_descriptors: [
          {
            id: DOC_TYPE,
            format: { mso_mdoc: { alg: ['ES256'] } },
            constraints: {
              limit_disclosure: 'required',
              fields: [
                { path: [`$['${NS}']['family_name']`], intent_to_retain: false },
                { path: [`$['${NS}']['birth_date']`], intent_to_retain: false },
              ],
            },
          },
        ],
      })
      .usingSessionTranscriptForOID4VP('m-9', 'client.example', 'https://client.example/response', 'n-9')
      .authenticateWithSignature(deviceKey.privateJwk, 'ES256')
      .sign();
    // @auth0/mdl writes the handover of the OpenID4VP drafts, its four values unhashed.
    const transcript = cborEncode(embeddedCbor([null, null, ['m-9', 'client.example', 'https://client.example/response', 'n-9']]));
    const credential = b64u(presentation.encode());
    const result = await verify(credential, {
      anchors: [anchor(vellum.iaca.pem), anchor(other.iaca.pem, [DOC_TYPE])],
      now: new Date(NOW.getTime() + 1000),
      sessionTranscript: transcript,
    });
    expect(failedChecks(result)).toEqual([]);
    expect(result.verified).toBe(true);
    expect(result.claims).toEqual({ [NS]: { family_name: 'Jones', birth_date: '2001-02-03' } });
    // Another transcript: the device signature no longer verifies.
    const wrong = await verify(credential, { anchors: [anchor(other.iaca.pem)], now: new Date(NOW.getTime() + 1000), sessionTranscript: transcriptBytes });
    expect(failedChecks(wrong)).toEqual(['device-auth']);
  });

  it('answers a failed decode check, never a throw, for input that is not an mDoc', async () => {
    for (const input of ['', '!!!', b64u(Buffer.from('not cbor at all')), b64u(cborEncode(new Map([['version', '1.0']]))), b64u(cborEncode([1, 2, 3]))]) {
      const result = await verify(input, { anchors: [anchor(vellum.iaca.pem)], now: NOW });
      expect(result.verified).toBe(false);
      expect(result.checks.at(-1)).toMatchObject({ check: 'decode', ok: false });
    }
  });
});

function p256ToJwk(key: KeyObject) {
  return key.export({ format: 'jwk' });
}
