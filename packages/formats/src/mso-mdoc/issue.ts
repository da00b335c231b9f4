import { hash, randomFillSync } from 'node:crypto';
import { DomainError, invalidField, type PublicJwk } from '@vellum/core';
import { cbor, embedded, Tag, TAG_TDATE, tdateString, wholeSeconds, withByteString, wrapEncoded } from './cbor.ts';
import { type MdocValue, toCborValue } from './values.ts';

/** Signs the MSO as the document signer: ES256, IEEE P1363 (r‖s, 64 bytes), as KeyManager.sign does. */
export interface MdocSigner {
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** DER certificates, the document signer's first; they go into `x5chain` as they are. */
  x5chain: readonly Uint8Array[];
}

/** The MSO's `validityInfo` (ISO/IEC 18013-5 §9.1.2.4). Times are written at whole seconds. */
export interface MdocValidity {
  signed: Date;
  validFrom: Date;
  validUntil: Date;
  expectedUpdate?: Date;
}

/**
 * The Token Status List entry of an mDoc: `{ status_list: { idx, uri } }` in the MSO (IETF Token
 * Status List draft 14 §6.3, §6.3.2) under `field`, `status` for draft 14 lists (the label the draft
 * recommends) or `_status` for legacy ones (docs/status-lists.md); `status` when not given.
 */
export interface MdocStatusEntry {
  field?: 'status' | '_status';
  uri: string;
  idx: number;
}

export interface IssueMdocInput {
  docType: string;
  /** Namespace → element identifier → value, each with at least one element. */
  namespaces: Readonly<Record<string, Readonly<Record<string, MdocValue>>>>;
  /** The holder's key (P-256), bound as the MSO's `deviceKeyInfo.deviceKey`. */
  deviceKey: PublicJwk;
  validity: MdocValidity;
  status?: MdocStatusEntry;
  signer: MdocSigner;
}

export interface IssueMdocResult {
  /** The CBOR `IssuerSigned` structure. */
  issuerSigned: Uint8Array;
  /** OpenID4VCI's `credential` for mso_mdoc: base64url of `issuerSigned`. */
  credential: string;
  /** `validityInfo.validFrom` and `validUntil` as written (whole seconds). */
  validFrom: Date;
  validUntil: Date;
}

// ISO/IEC 18013-5 §9.1.2.5: at least 16 random bytes per IssuerSignedItem; 4 more pick its digest ID.
const SALT_BYTES = 16;
const RANDOM_PER_ITEM = SALT_BYTES + 4;

// COSE (RFC 9052) labels and values.
const COSE_ALG = 1;
const COSE_ES256 = -7;
const COSE_X5CHAIN = 33;
const COSE_KTY = 1;
const COSE_KTY_EC2 = 2;
const COSE_EC2_CRV = -1;
const COSE_CRV_P256 = 1;
const COSE_EC2_X = -2;
const COSE_EC2_Y = -3;

// The protected header is the same for every credential: { 1: -7 } (alg ES256), encoded once.
const PROTECTED = new Uint8Array(cbor.encode(new Map([[COSE_ALG, COSE_ES256]])));
// Sig_structure (RFC 9052 §4.4) = ["Signature1", protected, external_aad, payload]: all but the
// payload is the same every time, so it is encoded once and the payload appended as a byte string.
const SIG_STRUCTURE_PREFIX = Buffer.concat([Uint8Array.of(0x84), cbor.encode('Signature1'), cbor.encode(PROTECTED), cbor.encode(new Uint8Array(0))]);

function coordinate(jwk: PublicJwk, name: 'x' | 'y'): Uint8Array {
  const text = jwk[name];
  const bytes = typeof text === 'string' ? Buffer.from(text, 'base64url') : Buffer.alloc(0);
  if (bytes.length !== 32 || bytes.toString('base64url') !== text)
    throw invalidField(`deviceKey.${name}`, 'Expected a base64url P-256 coordinate of 32 bytes', text);
  return bytes;
}

/** The holder's JWK as a COSE_Key (RFC 9053 §7.1.1): kty EC2, crv P-256, x and y as byte strings. */
function coseKey(jwk: PublicJwk): Map<number, unknown> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw invalidField('deviceKey', 'The device key must be an EC P-256 key', { kty: jwk.kty, crv: jwk.crv });
  return new Map<number, unknown>([
    [COSE_KTY, COSE_KTY_EC2],
    [COSE_EC2_CRV, COSE_CRV_P256],
    [COSE_EC2_X, coordinate(jwk, 'x')],
    [COSE_EC2_Y, coordinate(jwk, 'y')],
  ]);
}

function instant(at: Date | undefined, param: string): Date {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw invalidField(param, 'Expected a valid date', String(at));
  const whole = wholeSeconds(at);
  if (whole.getUTCFullYear() > 9999 || whole.getUTCFullYear() < 0) throw invalidField(param, 'Expected a year between 0000 and 9999', at.toISOString());
  return whole;
}

const tdate = (at: Date) => new Tag(tdateString(at), TAG_TDATE);

/** validityInfo with the order rules of §9.1.2.4: signed ≤ validFrom < validUntil. */
function validityInfo(validity: MdocValidity) {
  const signed = instant(validity.signed, 'validity.signed');
  const validFrom = instant(validity.validFrom, 'validity.validFrom');
  const validUntil = instant(validity.validUntil, 'validity.validUntil');
  if (validFrom < signed) throw invalidField('validity.validFrom', 'validFrom must not be before signed', validFrom.toISOString());
  if (validUntil <= validFrom) throw invalidField('validity.validUntil', 'validUntil must be after validFrom', validUntil.toISOString());
  const info: Record<string, Tag> = { signed: tdate(signed), validFrom: tdate(validFrom), validUntil: tdate(validUntil) };
  if (validity.expectedUpdate !== undefined) info.expectedUpdate = tdate(instant(validity.expectedUpdate, 'validity.expectedUpdate'));
  return { info, validFrom, validUntil };
}

const STATUS_FIELDS = new Set(['status', '_status']);

/** The MSO field and its value, `{ status_list: { idx, uri } }`. */
function statusEntry(status: MdocStatusEntry): [string, unknown] {
  const field = status.field ?? 'status';
  if (!STATUS_FIELDS.has(field)) throw invalidField('status.field', 'Expected status or _status', field);
  if (!Number.isSafeInteger(status.idx) || status.idx < 0) throw invalidField('status.idx', 'Expected a non-negative integer', status.idx);
  if (typeof status.uri !== 'string' || status.uri.length === 0) throw invalidField('status.uri', 'Expected the status list URI', status.uri);
  return [field, { status_list: { idx: status.idx, uri: status.uri } }];
}

/**
 * Random digest IDs: a shuffle (Fisher–Yates) of 0..n-1, so an ID says nothing about its element.
 * `random` holds 4 bytes per element from `at`.
 */
function shuffledIds(n: number, random: Buffer, at: number): number[] {
  const ids = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = random.readUInt32LE(at + 4 * i) % (i + 1);
    [ids[i], ids[j]] = [ids[j] as number, ids[i] as number];
  }
  return ids;
}

interface SignedNamespace {
  items: Tag[];
  digests: Map<number, Uint8Array>;
}

/**
 * One namespace's IssuerSignedItems (§9.1.2.5). Each item is encoded once; its digest is SHA-256 of
 * `#6.24(bstr .cbor item)` around those very bytes, and the same bytes are what IssuerSigned carries.
 * `random` holds {@link RANDOM_PER_ITEM} bytes per element from `at`.
 */
function signNamespace(ns: string, entries: [string, MdocValue][], random: Buffer, at: number): SignedNamespace {
  const n = entries.length;
  const ids = shuffledIds(n, random, at + n * SALT_BYTES);
  const items: Tag[] = [];
  const digests = new Map<number, Uint8Array>();
  for (let i = 0; i < n; i++) {
    const [elementIdentifier, value] = entries[i] as [string, MdocValue];
    const digestID = ids[i] as number;
    const item = cbor.encode({
      digestID,
      random: random.subarray(at + i * SALT_BYTES, at + (i + 1) * SALT_BYTES),
      elementIdentifier,
      elementValue: toCborValue(value, `${ns}.${elementIdentifier}`),
    });
    digests.set(digestID, hash('sha256', wrapEncoded(item), 'buffer'));
    items.push(embedded(item));
  }
  return { items, digests };
}

/**
 * Issues an ISO/IEC 18013-5 mDoc: IssuerSignedItems with random salts and digest IDs, the
 * MobileSecurityObject over them, and issuerAuth as an ES256 COSE_Sign1 by the document signer.
 */
export async function issueMdoc(input: IssueMdocInput): Promise<IssueMdocResult> {
  const { docType, namespaces, signer } = input;
  if (typeof docType !== 'string' || docType.length === 0) throw invalidField('docType', 'Expected a docType', docType);
  if (signer.x5chain.length === 0) throw invalidField('signer.x5chain', 'The document signer certificate is missing', []);
  const deviceKey = coseKey(input.deviceKey);
  const { info, validFrom, validUntil } = validityInfo(input.validity);

  const namespaceEntries = Object.entries(namespaces).map(([ns, elements]) => [ns, Object.entries(elements)] as const);
  if (namespaceEntries.length === 0) throw invalidField('namespaces', 'An mDoc must hold at least one namespace', {});
  let count = 0;
  for (const [ns, entries] of namespaceEntries) {
    if (entries.length === 0) throw invalidField(`namespaces.${ns}`, 'A namespace must hold at least one element', {});
    count += entries.length;
  }
  // One call to the CSPRNG for every salt and digest ID of the credential.
  const random = randomFillSync(Buffer.allocUnsafe(count * RANDOM_PER_ITEM));
  const nameSpaces = new Map<string, Tag[]>();
  const valueDigests = new Map<string, Map<number, Uint8Array>>();
  let at = 0;
  for (const [ns, entries] of namespaceEntries) {
    const signed = signNamespace(ns, entries, random, at);
    at += entries.length * RANDOM_PER_ITEM;
    nameSpaces.set(ns, signed.items);
    valueDigests.set(ns, signed.digests);
  }

  const mso: Record<string, unknown> = {
    version: '1.0',
    digestAlgorithm: 'SHA-256',
    valueDigests,
    deviceKeyInfo: { deviceKey },
    docType,
    validityInfo: info,
  };
  if (input.status) {
    const [field, entry] = statusEntry(input.status);
    mso[field] = entry;
  }

  // MobileSecurityObjectBytes = #6.24(bstr .cbor MobileSecurityObject), the COSE payload.
  const payload = wrapEncoded(cbor.encode(mso));
  const toBeSigned = withByteString(SIG_STRUCTURE_PREFIX, payload);
  const signature = await signer.sign(toBeSigned);
  if (signature.length !== 64) throw new DomainError('InternalServerError', 'The document signer returned a signature that is not ES256 (64 bytes)');

  const x5chain = signer.x5chain.length === 1 ? signer.x5chain[0] : [...signer.x5chain];
  const issuerAuth = [PROTECTED, new Map([[COSE_X5CHAIN, x5chain]]), payload, signature];
  // A copy, so the result does not pin the encoder's shared buffer.
  const issuerSigned = new Uint8Array(cbor.encode({ nameSpaces, issuerAuth }));
  const credential = Buffer.from(issuerSigned.buffer, issuerSigned.byteOffset, issuerSigned.byteLength).toString('base64url');
  return { issuerSigned, credential, validFrom, validUntil };
}
