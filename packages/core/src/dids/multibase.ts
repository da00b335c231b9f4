// Base58btc (the Bitcoin alphabet) and the multibase/multicodec framing that did:key uses, in
// plain TypeScript so the core needs no library for it.

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58btc of raw bytes; each leading zero byte becomes a leading '1'. */
export function base58btcEncode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits: number[] = []; // base-58 digits, least significant first
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] as number;
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] as number) * 256;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let text = '1'.repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) text += ALPHABET[digits[i] as number];
  return text;
}

/** Decodes base58btc; undefined for a character outside the alphabet. */
export function base58btcDecode(text: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  const bytes: number[] = []; // least significant first
  for (let i = zeros; i < text.length; i++) {
    const value = ALPHABET.indexOf(text[i] as string);
    if (value < 0) return undefined;
    let carry = value;
    for (let j = 0; j < bytes.length; j++) {
      carry += (bytes[j] as number) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  for (let i = 0; i < bytes.length; i++) out[zeros + i] = bytes[bytes.length - 1 - i] as number;
  return out;
}

/** Multibase: 'z' names base58btc. */
export const MULTIBASE_BASE58BTC = 'z';
