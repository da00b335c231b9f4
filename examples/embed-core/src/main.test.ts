// The embed-core example's function, run for a holder key of this test's own; the mDoc it returns
// is then presented with that key and verified by @auth0/mdl (a verifier other people wrote)
// against the IACA the example returns: ISO/IEC 18013-5 issuer and device authentication.
import { generateKeyPairSync } from 'node:crypto';
import { DeviceResponse, Verifier } from '@auth0/mdl';
import { describe, expect, it } from 'vitest';
import { DOC_TYPE, issueMdl, NAMESPACE } from './main.ts';

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

describe('the embed-core example: the core alone issues an mDL from a script (ISO/IEC 18013-5)', () => {
  it('issues an mDL bound to the holder’s key that @auth0/mdl verifies under the returned IACA', async () => {
    const holder = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { x, y } = holder.publicKey.export({ format: 'jwk' });
    const { credential, iacaPem } = await issueMdl({ kty: 'EC', crv: 'P-256', x: x as string, y: y as string });

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
              fields: ['family_name', 'birth_date', 'age_over_18', 'issuing_country'].map((name) => ({
                path: [`$['${NAMESPACE}']['${name}']`],
                intent_to_retain: false,
              })),
            },
          },
        ],
      })
      .usingSessionTranscriptBytes(transcript)
      .authenticateWithSignature({ ...holder.privateKey.export({ format: 'jwk' }) }, 'ES256')
      .sign();

    const checks: Array<{ status: string; id?: string; check: string }> = [];
    const verified = await new Verifier([iacaPem]).verify(presented.encode(), {
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
    const document = verified.documents[0];
    expect(document?.docType).toBe(DOC_TYPE);
    const values = document?.getIssuerNameSpace(NAMESPACE) ?? {};
    expect({ ...values, birth_date: String(values.birth_date) }).toEqual({
      family_name: 'Turner',
      birth_date: '1990-05-15',
      age_over_18: true,
      issuing_country: 'US',
    });
  });
});
