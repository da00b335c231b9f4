// The holder's side of an mDoc presentation, for interop tests: a DeviceResponse that carries an
// IssuerSigned exactly as Vellum issued it, with a device signature over a SessionTranscript
// (ISO/IEC 18013-5 §8.3.2.1.2.2 and §9.1.3; ISO/IEC 18013-7 Annex B for the OpenID4VP handover).
// It writes CBOR with its own small encoder, independent of the cbor-x setup the issuer uses.
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import type { PublicJwk } from '@vellum/core';
import { calculateJwkThumbprint } from 'jose';

/** A CBOR data item: `{ tag, value }` is a tagged item, `{ encoded }` bytes already encoded, kept verbatim. */
export type CborValue =
  | null
  | boolean
  | number
  | string
  | Uint8Array
  | readonly CborValue[]
  | ReadonlyMap<CborValue, CborValue>
  | { tag: number; value: CborValue }
  | { encoded: Uint8Array };

function head(major: number, n: number): Uint8Array {
  const m = major << 5;
  if (n < 24) return Uint8Array.of(m | n);
  if (n < 0x100) return Uint8Array.of(m | 24, n);
  if (n < 0x10000) return Uint8Array.of(m | 25, n >> 8, n & 0xff);
  if (n < 0x100000000) return Uint8Array.of(m | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
  const out = new Uint8Array(9);
  out[0] = m | 27;
  new DataView(out.buffer).setBigUint64(1, BigInt(n));
  return out;
}

/** Definite lengths, shortest heads (RFC 8949 §4.2.1 preferred serialisation); maps keep insertion order. */
export function cborEncode(value: CborValue): Uint8Array {
  const parts: Uint8Array[] = [];
  const write = (v: CborValue): void => {
    if (v === null) parts.push(Uint8Array.of(0xf6));
    else if (v === true || v === false) parts.push(Uint8Array.of(v ? 0xf5 : 0xf4));
    else if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) throw new Error('This encoder writes integers only');
      parts.push(v >= 0 ? head(0, v) : head(1, -1 - v));
    } else if (typeof v === 'string') {
      const bytes = Buffer.from(v, 'utf8');
      parts.push(head(3, bytes.length), bytes);
    } else if (v instanceof Uint8Array) parts.push(head(2, v.length), v);
    else if (Array.isArray(v)) {
      parts.push(head(4, v.length));
      for (const item of v as readonly CborValue[]) write(item);
    } else if (v instanceof Map) {
      parts.push(head(5, v.size));
      for (const [key, item] of v as ReadonlyMap<CborValue, CborValue>) {
        write(key);
        write(item);
      }
    } else if ('encoded' in v) parts.push(v.encoded);
    else if ('tag' in v) {
      parts.push(head(6, v.tag));
      write(v.value);
    }
  };
  write(value);
  return Buffer.concat(parts);
}

/** `#6.24(bstr .cbor value)` */
export const embeddedCbor = (value: CborValue): CborValue => ({ tag: 24, value: cborEncode(value) });

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/**
 * SessionTranscript = [null, null, OID4VPHandover], where OID4VPHandover =
 * [sha256([client_id, mdocGeneratedNonce]), sha256([response_uri, mdocGeneratedNonce]), nonce]
 * (ISO/IEC 18013-7 Annex B.4.4).
 */
export function oid4vpSessionTranscript(input: { clientId: string; responseUri: string; nonce: string; mdocGeneratedNonce: string }): CborValue {
  const { clientId, responseUri, nonce, mdocGeneratedNonce } = input;
  return [null, null, [sha256(cborEncode([clientId, mdocGeneratedNonce])), sha256(cborEncode([responseUri, mdocGeneratedNonce])), nonce]];
}

/**
 * The OpenID4VP 1.0 SessionTranscript (Appendix B.2.6.1): [null, null, ['OpenID4VPHandover',
 * sha256([client_id, nonce, jwkThumbprint, response_uri])]], the thumbprint that of the verifier's
 * encryption key (RFC 7638, computed by jose). Written with the test's own CBOR writer and node:crypto.
 */
export async function openId4VpHandoverTranscript(input: {
  clientId: string;
  nonce: string;
  responseUri: string;
  jwk: Record<string, unknown>;
}): Promise<CborValue> {
  const thumbprint = Buffer.from(await calculateJwkThumbprint(input.jwk as never, 'sha256'), 'base64url');
  const info = sha256(cborEncode([input.clientId, input.nonce, new Uint8Array(thumbprint), input.responseUri]));
  return [null, null, ['OpenID4VPHandover', info]];
}

/** The transcript of the suites' one reader, an OpenID4VP verifier at verifier.example.org. */
export const readerTranscript = oid4vpSessionTranscript({
  clientId: 'verifier.example.org',
  responseUri: 'https://verifier.example.org/response',
  nonce: 'n-0S6_WzA2Mj',
  mdocGeneratedNonce: 'mdoc-nonce-1',
});

/** A holder's P-256 device key: the private key that signs DeviceAuth, and the public JWK the MSO binds. */
export function holder() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return { privateKey, publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string } satisfies PublicJwk };
}

export interface DeviceResponseInput {
  docType: string;
  /** The IssuerSigned bytes as issued; embedded verbatim. */
  issuerSigned: Uint8Array;
  sessionTranscript: CborValue;
  /** The holder's private key (P-256), the one the MSO binds as deviceKey. */
  devicePrivateKey: KeyObject;
}

/**
 * A DeviceResponse { version "1.0", documents [{ docType, issuerSigned, deviceSigned }], status 0 }
 * whose deviceAuth is a deviceSignature: a COSE_Sign1 (ES256, detached payload) over
 * DeviceAuthenticationBytes = #6.24(bstr .cbor ["DeviceAuthentication", SessionTranscript, docType,
 * DeviceNameSpacesBytes]) with no device-signed elements.
 */
export function deviceResponse(input: DeviceResponseInput): { deviceResponse: Uint8Array; sessionTranscriptBytes: Uint8Array } {
  const deviceNameSpacesBytes = embeddedCbor(new Map());
  const deviceAuthenticationBytes = cborEncode(embeddedCbor(['DeviceAuthentication', input.sessionTranscript, input.docType, deviceNameSpacesBytes]));
  const protectedHeader = cborEncode(new Map([[1, -7]]));
  const toBeSigned = cborEncode(['Signature1', protectedHeader, new Uint8Array(0), deviceAuthenticationBytes]);
  const signature = sign('sha256', toBeSigned, { key: input.devicePrivateKey, dsaEncoding: 'ieee-p1363' });
  const deviceSigned = new Map<CborValue, CborValue>([
    ['nameSpaces', deviceNameSpacesBytes],
    ['deviceAuth', new Map([['deviceSignature', [protectedHeader, new Map(), null, signature]]])],
  ]);
  const document = new Map<CborValue, CborValue>([
    ['docType', input.docType],
    ['issuerSigned', { encoded: input.issuerSigned }],
    ['deviceSigned', deviceSigned],
  ]);
  return {
    deviceResponse: cborEncode(
      new Map<CborValue, CborValue>([
        ['version', '1.0'],
        ['documents', [document]],
        ['status', 0],
      ]),
    ),
    sessionTranscriptBytes: cborEncode(embeddedCbor(input.sessionTranscript)),
  };
}
