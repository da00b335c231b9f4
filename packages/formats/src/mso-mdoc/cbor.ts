import { Encoder, Tag } from 'cbor-x';

/**
 * The one CBOR encoder of the mso_mdoc engine. Its options give plain CBOR as ISO/IEC 18013-5
 * expects it: maps as maps (no cbor-x records, and with `mapsAsObjects` off no tag 259), byte
 * strings untagged (no tag 64), and preferred serialisation (shortest heads), so that what a
 * verifier re-encodes matches what was hashed and signed. It keeps no state between calls that
 * changes the output, so one instance serves every issuance; one per credential would cost an
 * 8 KB buffer each time. Results are views into its buffer that later calls never overwrite.
 */
export const cbor = new Encoder({
  useRecords: false,
  mapsAsObjects: false,
  tagUint8Array: false,
  variableMapSize: true,
});

/** CBOR tag 24: an embedded, already-encoded data item (RFC 8949 §3.4.5.1). */
export const TAG_ENCODED_CBOR = 24;
/** CBOR tag 0: an RFC 3339 date-time string (`tdate`). */
export const TAG_TDATE = 0;
/** CBOR tag 1004: an RFC 3339 full-date string (RFC 8943). */
export const TAG_FULL_DATE = 1004;

/** The shortest head of a byte string of `length` bytes (RFC 8949 §3.1, major type 2). */
export function bstrHead(length: number): Uint8Array {
  if (length < 24) return Uint8Array.of(0x40 | length);
  if (length < 0x100) return Uint8Array.of(0x58, length);
  if (length < 0x10000) return Uint8Array.of(0x59, length >> 8, length & 0xff);
  return Uint8Array.of(0x5a, (length >>> 24) & 0xff, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff);
}

/** `prefix ‖ bstr head ‖ bytes` in one buffer: a byte string written after items already encoded. */
export function withByteString(prefix: Uint8Array, bytes: Uint8Array): Uint8Array {
  const head = bstrHead(bytes.length);
  const out = new Uint8Array(prefix.length + head.length + bytes.length);
  out.set(prefix, 0);
  out.set(head, prefix.length);
  out.set(bytes, prefix.length + head.length);
  return out;
}

const TAG_24_HEAD = Uint8Array.of(0xd8, 0x18);

/**
 * `#6.24(bstr .cbor x)` around bytes already encoded, built directly: the tag head, the shortest
 * byte-string head, the bytes. cbor-x writes the same three parts for a Tag(bytes, 24), so these
 * are the bytes a verifier re-encodes, hashes or checks a signature over.
 */
export const wrapEncoded = (encoded: Uint8Array) => withByteString(TAG_24_HEAD, encoded);

/** A value cbor-x writes as `#6.24(bstr)` around bytes already encoded. */
export const embedded = (encoded: Uint8Array) => new Tag(encoded, TAG_ENCODED_CBOR);

/**
 * An instant as ISO/IEC 18013-5 writes a `tdate`: RFC 3339 in UTC without fractional seconds
 * (`2026-01-01T00:00:00Z`). Fractions are dropped, not rounded, so a time never moves later.
 */
export function tdateString(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}

/** `at` without its fraction of a second: the instant a `tdate` of it denotes. */
export function wholeSeconds(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 1000) * 1000);
}

export { Tag };
