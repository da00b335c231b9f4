// The Inflater port over node:zlib: a Token Status List's `lst` is a zlib stream (RFC 1950;
// draft-ietf-oauth-status-list §4.1). The output is capped, so a small stream cannot inflate into
// gigabytes.
import { gunzipSync, inflateSync } from 'node:zlib';
import type { Gunzip, Inflater } from '@vellum/core';

/**
 * Bounded zlib inflation for the core's status list checks (createVellum's `inflater`), and bounded
 * GZIP (RFC 1952) for RevocationList2020's encodedList (the ldp_vc verifier).
 */
export function createInflater(): Inflater & Gunzip {
  return {
    gunzip(data, maxBytes) {
      try {
        const out = gunzipSync(data, { maxOutputLength: maxBytes });
        return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      } catch {
        // Not gzip, truncated, or larger than maxBytes.
        return undefined;
      }
    },
    inflate(data, maxBytes) {
      try {
        const out = inflateSync(data, { maxOutputLength: maxBytes });
        return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      } catch {
        // Not zlib, truncated, or larger than maxBytes.
        return undefined;
      }
    },
  };
}
