import type { KeyObject } from 'node:crypto';
import { Verifier } from '@auth0/mdl';
import { expect } from 'vitest';
import { deviceResponse, oid4vpSessionTranscript } from './mdoc-device.ts';

type Check = { status: string; id: string };

/** The checks that show an mDoc was issued under the IACA, to the holder's key, and not altered. */
export const ISSUED_TO_HOLDER = ['ISSUER_SIGNATURE_VALIDITY', 'DEVICE_SIGNATURE_VALIDITY', 'ATTRIBUTE_DIGEST_MATCH'] as const;

/**
 * An issued mDoc presented with the holder's key (an OID4VP session transcript) and verified by
 * @auth0/mdl against `iacaPem`: no check fails, and each of `mustPass` ran and passed. Returns the
 * verified document and the device key its MSO holds.
 */
export async function presentAndVerify(
  credential: string,
  docType: string,
  devicePrivateKey: KeyObject,
  iacaPem: string,
  mustPass: readonly string[] = ISSUED_TO_HOLDER,
) {
  const presented = deviceResponse({
    docType,
    issuerSigned: Buffer.from(credential, 'base64url'),
    sessionTranscript: oid4vpSessionTranscript({
      clientId: 'verifier.example',
      responseUri: 'https://verifier.example/response',
      nonce: 'n-1',
      mdocGeneratedNonce: 'm-1',
    }),
    devicePrivateKey,
  });
  const checks: Check[] = [];
  const verified = await new Verifier([iacaPem]).verify(presented.deviceResponse, {
    encodedSessionTranscript: presented.sessionTranscriptBytes,
    onCheck: (c) => checks.push(c as Check),
  });
  expect(checks.filter((c) => c.status !== 'PASSED')).toEqual([]);
  for (const id of mustPass)
    expect(
      checks.some((c) => c.id === id && c.status === 'PASSED'),
      id,
    ).toBe(true);
  const diagnostic = await new Verifier([iacaPem]).getDiagnosticInformation(Buffer.from(presented.deviceResponse), {
    encodedSessionTranscript: Buffer.from(presented.sessionTranscriptBytes),
  });
  return { document: verified.documents[0], deviceKey: diagnostic.deviceKey.jwk as Record<string, unknown> };
}

/** The full set a wallet library's mDoc is held to: also the certificate's and the MSO's validity now. */
export const ISSUED_AND_VALID = ['ISSUER_CERTIFICATE_VALIDITY', 'MSO_VALIDITY_AT_VERIFICATION_TIME', ...ISSUED_TO_HOLDER] as const;

/**
 * Each named element is a full-date (tag 1004) of the given day: @auth0/mdl decodes those into its
 * DateOnly (a Date printing as YYYY-MM-DD), where a tdate (tag 0) would be a plain Date.
 */
export function expectFullDates(values: Record<string, unknown>, days: Record<string, string>) {
  for (const [name, day] of Object.entries(days)) {
    expect(Object.prototype.toString.call(values[name]), name).toBe('[object DateOnly]');
    expect((values[name] as Date).toISOString(), name).toBe(day);
  }
}
