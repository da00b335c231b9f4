import { STATUS_VALUE, type CredentialStatus } from './model.ts';

/**
 * The status bytes of a list of `size` entries with `bits` bits each (IETF Token Status List
 * §4.1): entry i's value at byte floor(i·bits/8), from bit (i·bits) mod 8, least significant bit
 * first. Entries not given are valid (0).
 */
export function packStatuses(size: number, bits: 1 | 2, entries: ReadonlyArray<{ idx: number; status: CredentialStatus }>): Uint8Array {
  const bytes = new Uint8Array(Math.ceil((size * bits) / 8));
  for (const { idx, status } of entries) {
    const value = STATUS_VALUE[status];
    if (value >= 2 ** bits) throw new Error(`A ${bits}-bit list cannot hold the status ${status}`);
    const bit = idx * bits;
    bytes[bit >> 3] = (bytes[bit >> 3] as number) | (value << (bit & 7));
  }
  return bytes;
}
