// The Inflater port over node:zlib: a Token Status List's `lst` is a zlib stream (RFC 1950;
// draft-ietf-oauth-status-list §4.1). The output is capped, so a small stream cannot inflate into
// gigabytes.
import { inflateSync } from 'node:zlib';
import type { Inflater } from '@vellum/core';

/** Bounded zlib inflation for the core's status list checks (createVellum's `inflater`). */
export function createInflater(): Inflater {
  return {
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
