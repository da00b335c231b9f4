// Test support, not exported by the package: pako, the zlib port the status list tests inflate
// `lst` with, because Vellum compresses with node:zlib and the check should not share it.
import pako from 'pako';

/** The part of pako the tests use (pako 2: `inflate(data, { windowBits })`). */
export interface Pako {
  inflate(data: Uint8Array, options?: { windowBits?: number }): Uint8Array;
}

export async function loadPako(): Promise<Pako> {
  return pako as Pako;
}
