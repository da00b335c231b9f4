import { createHash, createPublicKey, type KeyObject, X509Certificate, verify } from 'node:crypto';
import { type MdocDocumentView, type MdocItemView, type MdocReader, type MdocReading, type StatusListCwtReading, statusListReferenceOf } from '@vellum/core';
import { Decoder, Tag } from 'cbor-x';
import { cbor, TAG_ENCODED_CBOR, withByteString, wrapEncoded } from './cbor.ts';

// Maps as Maps (integer COSE labels survive), no records: the shapes ISO/IEC 18013-5 writes.
const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });

class Unreadable extends Error {}
const fail = (reason: string): never => {
  throw new Unreadable(reason);
};

const isBytes = (value: unknown): value is Uint8Array => value instanceof Uint8Array;
const asMap = (value: unknown, what: string): Map<unknown, unknown> => (value instanceof Map ? value : fail(`${what} is not a CBOR map`));
const asBytes = (value: unknown, what: string): Uint8Array => (isBytes(value) ? value : fail(`${what} is not a byte string`));
/** The bytes inside `#6.24(bstr)`. */
const embeddedBytes = (value: unknown, what: string): Uint8Array =>
  value instanceof Tag && value.tag === TAG_ENCODED_CBOR && isBytes(value.value) ? value.value : fail(`${what} is not tag 24 embedded CBOR`);

function decode(bytes: Uint8Array, what: string): unknown {
  try {
    return decoder.decode(bytes);
  } catch {
    return fail(`${what} is not valid CBOR`);
  }
}

// COSE algorithms (RFC 9053 §2.1) and the hash each uses.
const COSE_HASH = new Map([
  [-7, 'sha256'],
  [-35, 'sha384'],
  [-36, 'sha512'],
]);
// ISO/IEC 18013-5 §9.1.2.5 digest algorithm names.
const DIGEST_HASH = new Map([
  ['SHA-256', 'sha256'],
  ['SHA-384', 'sha384'],
  ['SHA-512', 'sha512'],
]);

interface Sign1 {
  protectedBytes: Uint8Array;
  header: Map<unknown, unknown>;
  unprotected: Map<unknown, unknown>;
  payload: unknown;
  signature: Uint8Array;
}

function sign1(value: unknown, what: string): Sign1 {
  if (!Array.isArray(value) || value.length !== 4) return fail(`${what} is not a COSE_Sign1`);
  const [protectedBytes, unprotected, payload, signature] = value;
  const bytes = asBytes(protectedBytes, `${what} protected header`);
  const header = bytes.length === 0 ? new Map() : asMap(decode(bytes, `${what} protected header`), `${what} protected header`);
  return {
    protectedBytes: bytes,
    header,
    unprotected: asMap(unprotected, `${what} unprotected header`),
    payload,
    signature: asBytes(signature, `${what} signature`),
  };
}

/** Verifies a COSE_Sign1 (RFC 9052 §4.4) over `payload` with `key`; the algorithm comes from the protected header. */
function verifySign1(message: Sign1, payload: Uint8Array, key: KeyObject): { valid: boolean; reason?: string } {
  const algorithm = message.header.get(1);
  const digest = typeof algorithm === 'number' ? COSE_HASH.get(algorithm) : undefined;
  if (!digest) return { valid: false, reason: `COSE algorithm ${String(algorithm).slice(0, 20)} is not supported` };
  const prefix = Buffer.concat([Uint8Array.of(0x84), cbor.encode('Signature1'), cbor.encode(message.protectedBytes), cbor.encode(new Uint8Array(0))]);
  try {
    const ok = verify(digest, withByteString(prefix, payload), { key, dsaEncoding: 'ieee-p1363' }, message.signature);
    return ok ? { valid: true } : { valid: false };
  } catch {
    return { valid: false, reason: 'The signature could not be checked with the key' };
  }
}

/** An element value as JSON: dates as ISO strings, byte strings as base64url, maps as objects. */
function toJson(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Tag) return toJson(value.value);
  if (isBytes(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64url');
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJson(v)]));
  if (value === undefined) return null;
  return value;
}

const dateOf = (value: unknown): Date | undefined => {
  const at = value instanceof Date ? value : value instanceof Tag && typeof value.value === 'string' ? new Date(value.value) : undefined;
  return at && !Number.isNaN(at.getTime()) ? at : undefined;
};

/** A COSE_Key EC2 P-256 (RFC 9053 §7.1.1) as a public key. */
function deviceKeyOf(coseKey: unknown): KeyObject {
  const key = asMap(coseKey, 'deviceKey');
  const x = key.get(-2);
  const y = key.get(-3);
  if (key.get(1) !== 2 || key.get(-1) !== 1 || !isBytes(x) || !isBytes(y)) return fail('deviceKey is not an EC2 P-256 COSE_Key');
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
  try {
    return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64(x), y: b64(y) }, format: 'jwk' });
  } catch {
    return fail('deviceKey is not a P-256 point');
  }
}

function readDocument(document: Map<unknown, unknown>, docTypeOuter: string | undefined, transcript: Uint8Array | undefined): MdocDocumentView {
  const issuerSigned = asMap(document.get('issuerSigned'), 'issuerSigned');
  const issuerAuth = sign1(issuerSigned.get('issuerAuth'), 'issuerAuth');
  // x5chain (RFC 9360 §2): label 33, one bstr or an array of them; unprotected or protected.
  const chainValue = issuerAuth.unprotected.get(33) ?? issuerAuth.header.get(33);
  const x5chain = isBytes(chainValue)
    ? [chainValue]
    : Array.isArray(chainValue) && chainValue.length > 0 && chainValue.every(isBytes)
      ? chainValue
      : fail('issuerAuth carries no x5chain');
  const signerDer = x5chain[0] as Uint8Array;
  let signerKey: KeyObject;
  try {
    signerKey = new X509Certificate(signerDer).publicKey;
  } catch {
    return fail('The document signer certificate could not be read');
  }
  const payload = asBytes(issuerAuth.payload, 'issuerAuth payload');
  const issuerSignature = verifySign1(issuerAuth, payload, signerKey);

  const mso = asMap(decode(embeddedBytes(decode(payload, 'issuerAuth payload'), 'MobileSecurityObjectBytes'), 'MobileSecurityObject'), 'MobileSecurityObject');
  const msoDocType = mso.get('docType');
  const digestAlgorithm = mso.get('digestAlgorithm');
  if (typeof msoDocType !== 'string' || typeof digestAlgorithm !== 'string') return fail('The MSO has no docType or digestAlgorithm');
  const valueDigests: Record<string, Map<number, Uint8Array>> = {};
  for (const [namespace, digests] of asMap(mso.get('valueDigests'), 'valueDigests')) {
    const entries = new Map<number, Uint8Array>();
    for (const [id, digest] of asMap(digests, 'valueDigests')) if (typeof id === 'number' && isBytes(digest)) entries.set(id, digest);
    valueDigests[String(namespace)] = entries;
  }
  const validity = asMap(mso.get('validityInfo'), 'validityInfo');
  const validityInfo: MdocDocumentView['mso']['validityInfo'] = {};
  for (const field of ['signed', 'validFrom', 'validUntil'] as const) {
    const at = dateOf(validity.get(field));
    if (at) validityInfo[field] = at;
  }

  const hashName = DIGEST_HASH.get(digestAlgorithm);
  const items: MdocItemView[] = [];
  const nameSpaces = issuerSigned.get('nameSpaces') ?? new Map();
  for (const [namespace, list] of asMap(nameSpaces, 'nameSpaces')) {
    if (!Array.isArray(list)) return fail('A namespace is not an array of items');
    for (const wrapped of list) {
      const bytes = embeddedBytes(wrapped, 'IssuerSignedItemBytes');
      const item = asMap(decode(bytes, 'IssuerSignedItem'), 'IssuerSignedItem');
      const digestId = item.get('digestID');
      const elementIdentifier = item.get('elementIdentifier');
      if (typeof digestId !== 'number' || typeof elementIdentifier !== 'string') return fail('An IssuerSignedItem has no digestID or elementIdentifier');
      items.push({
        namespace: String(namespace),
        digestId,
        elementIdentifier,
        elementValue: toJson(item.get('elementValue')),
        // §9.1.2.5: the digest is over IssuerSignedItemBytes, the tag 24 around the item's bytes.
        ...(hashName ? { digest: new Uint8Array(createHash(hashName).update(wrapEncoded(bytes)).digest()) } : {}),
      });
    }
  }

  const view: MdocDocumentView = {
    docType: docTypeOuter ?? msoDocType,
    x5chain: x5chain.map((der) => new Uint8Array(der)),
    issuerSignature,
    signerFingerprint: createHash('sha256').update(signerDer).digest('hex'),
    mso: { docType: msoDocType, digestAlgorithm, valueDigests, validityInfo, hasStatus: mso.has('status') || mso.has('_status'), ...statusOf(mso) },
    items,
  };
  if (docTypeOuter !== undefined) {
    try {
      view.deviceAuth = deviceAuthOf(document, mso, docTypeOuter, transcript);
    } catch (error) {
      // A malformed device part fails device authentication, not the reading of what the issuer signed.
      if (!(error instanceof Unreadable)) throw error;
      view.deviceAuth = { kind: 'signature', valid: false, reason: error.message };
    }
  }
  return view;
}

/** The MSO's status reference (`status`, or the legacy `_status`; docs/status-lists.md), if it names one. */
function statusOf(mso: Map<unknown, unknown>): Pick<MdocDocumentView['mso'], 'status'> {
  const named = mso.has('status') ? mso.get('status') : mso.get('_status');
  if (named === undefined) return {};
  const reference = statusListReferenceOf(named);
  if (reference === undefined) return {};
  return { status: 'ok' in reference ? { invalid: reference.reason } : reference };
}

// The claim keys of a status list CWT: draft 14's (§5.2, 65533 status_list, 65534 ttl) and the
// legacy (MATTR) profile's, which Vellum also issues (docs/status-lists.md).
const STATUS_LIST_KEYS = { draft: { statusList: 65533, ttl: 65534 }, legacy: { statusList: -65538, ttl: -65539 } };
const LEGACY_STATUS_LIST_TYP = 'mattr-statuslist+cwt';
/** CBOR tag 18, COSE_Sign1_Tagged (RFC 9052 §4.2). */
const TAG_COSE_SIGN1 = 18;

const integerOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : typeof value === 'bigint' ? Number(value) : undefined;

function readStatusList(bytes: Uint8Array): StatusListCwtReading {
  let value = decode(bytes, 'The status list');
  if (value instanceof Tag && value.tag === TAG_COSE_SIGN1) value = value.value;
  const message = sign1(value, 'The status list');
  const chainValue = message.unprotected.get(33) ?? message.header.get(33);
  const x5chain = isBytes(chainValue)
    ? [chainValue]
    : Array.isArray(chainValue) && chainValue.length > 0 && chainValue.every(isBytes)
      ? chainValue
      : fail('The status list carries no x5chain');
  let key: KeyObject;
  try {
    key = new X509Certificate(x5chain[0] as Uint8Array).publicKey;
  } catch {
    return fail('The status list signer certificate could not be read');
  }
  const payload = asBytes(message.payload, 'The status list payload');
  const typ = message.header.get(16);
  const keys = typ === LEGACY_STATUS_LIST_TYP ? STATUS_LIST_KEYS.legacy : STATUS_LIST_KEYS.draft;
  const claims = asMap(decode(payload, 'The status list claims'), 'The status list claims');
  const list = claims.get(keys.statusList);
  const lst = list instanceof Map ? list.get('lst') : undefined;
  const exp = integerOf(claims.get(4));
  const ttl = integerOf(claims.get(keys.ttl));
  return {
    ok: true,
    ...(typeof typ === 'string' ? { typ } : {}),
    x5chain: x5chain.map((der) => new Uint8Array(der)),
    signature: verifySign1(message, payload, key),
    claims: {
      sub: claims.get(2),
      bits: list instanceof Map ? list.get('bits') : undefined,
      lst: isBytes(lst) ? new Uint8Array(lst) : undefined,
      ...(exp !== undefined ? { exp } : {}),
      ...(ttl !== undefined ? { ttl } : {}),
    },
  };
}

/** §9.1.3.6: the device signature over DeviceAuthenticationBytes. */
function deviceAuthOf(
  document: Map<unknown, unknown>,
  mso: Map<unknown, unknown>,
  docType: string,
  transcript: Uint8Array | undefined,
): MdocDocumentView['deviceAuth'] {
  const deviceSigned = document.get('deviceSigned');
  if (!(deviceSigned instanceof Map)) return { kind: 'missing' };
  const deviceAuth = deviceSigned.get('deviceAuth');
  if (!(deviceAuth instanceof Map)) return { kind: 'missing' };
  if (!deviceAuth.has('deviceSignature')) return deviceAuth.has('deviceMac') ? { kind: 'mac' } : { kind: 'missing' };
  if (transcript === undefined) return { kind: 'signature' };
  const signature = sign1(deviceAuth.get('deviceSignature'), 'deviceSignature');
  const key = deviceKeyOf(asMap(mso.get('deviceKeyInfo'), 'deviceKeyInfo').get('deviceKey'));
  const deviceNameSpaces = embeddedBytes(deviceSigned.get('nameSpaces'), 'DeviceNameSpacesBytes');
  // The transcript may come wrapped as SessionTranscriptBytes; DeviceAuthentication holds it bare.
  const given = decode(transcript, 'The session transcript');
  const sessionTranscript = given instanceof Tag && given.tag === TAG_ENCODED_CBOR && isBytes(given.value) ? given.value : transcript;
  const deviceAuthentication = Buffer.concat([
    Uint8Array.of(0x84),
    cbor.encode('DeviceAuthentication'),
    sessionTranscript,
    cbor.encode(docType),
    wrapEncoded(deviceNameSpaces),
  ]);
  const result = verifySign1(signature, wrapEncoded(deviceAuthentication), key);
  return { kind: 'signature', valid: result.valid, ...(result.reason ? { reason: result.reason } : {}) };
}

function read(bytes: Uint8Array, transcript: Uint8Array | undefined): MdocReading {
  const top = asMap(decode(bytes, 'The credential'), 'The credential');
  if (top.has('documents')) {
    const documents = top.get('documents');
    if (!Array.isArray(documents)) return fail('documents is not an array');
    return {
      ok: true,
      kind: 'device-response',
      documents: documents.map((value) => {
        const document = asMap(value, 'A document');
        const docType = document.get('docType');
        return readDocument(document, typeof docType === 'string' ? docType : fail('A document has no docType'), transcript);
      }),
    };
  }
  if (top.has('issuerAuth')) return { ok: true, kind: 'issuer-signed', documents: [readDocument(new Map([['issuerSigned', top]]), undefined, undefined)] };
  return fail('Neither a DeviceResponse nor an IssuerSigned');
}

/** The mDoc reader for verification (ISO/IEC 18013-5 §8.3.2.1.2.2, §9.1.2, §9.1.3): decodes and checks signatures, never throws. */
export function createMdocReader(): MdocReader {
  return {
    read(bytes, options) {
      try {
        return read(bytes, options.sessionTranscript);
      } catch (error) {
        return { ok: false, reason: error instanceof Unreadable ? error.message : 'The credential could not be read' };
      }
    },
    readStatusList(bytes) {
      try {
        return readStatusList(bytes);
      } catch (error) {
        return { ok: false, reason: error instanceof Unreadable ? error.message : 'The status list could not be read' };
      }
    },
  };
}
