// The order in which a status list hands out its indexes. Entries are not given out 0, 1, 2, …: the
// index would then tell when a credential was issued and who was issued just before and after
// (IETF Token Status List §12.3 and §13.1 suggest random indexes for this reason). Instead,
// position p of a list (its p-th credential) gets index shuffle(p), a keyed permutation of
// [0, size): every index once, none twice, in an order only the list's random key gives, while the
// store only ever counts positions (one atomic increment, safe across processes).
//
// The permutation is a balanced Feistel network on 2·HALF bits, walked in cycles until it lands
// inside [0, size) (Black and Rogaway's cycle-walking, which keeps it a permutation of the smaller
// domain). The round function mixes the half, the round and the key with 32-bit multiply-xorshift
// steps: it needs to scatter, not to resist cryptanalysis, since the key never leaves the server.

const ROUNDS = 6;

function halfBits(size: number): number {
  let bits = 1;
  while (2 ** (2 * bits) < size) bits += 1;
  return bits;
}

/** 32-bit mix of a value with a key word (a Murmur3-style finaliser). */
function mix(value: number, keyWord: number, round: number): number {
  let h = (value ^ keyWord ^ Math.imul(round + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Four 32-bit words from a key of at least 16 bytes. */
export function shuffleKeyWords(key: Uint8Array): number[] {
  if (key.length < 16) throw new Error('A shuffle key has at least 16 bytes');
  return [0, 4, 8, 12].map((i) => (((key[i] as number) << 24) | ((key[i + 1] as number) << 16) | ((key[i + 2] as number) << 8) | (key[i + 3] as number)) >>> 0);
}

/** The index of position `position` in a list of `size` entries whose shuffle key is `keyWords`. */
export function shuffledIndex(position: number, size: number, keyWords: readonly number[]): number {
  if (!Number.isInteger(position) || position < 0 || position >= size) throw new Error(`Position ${position} is outside a list of ${size}`);
  const half = halfBits(size);
  const mask = 2 ** half - 1;
  let value = position;
  do {
    let left = Math.floor(value / 2 ** half);
    let right = value & mask;
    for (let round = 0; round < ROUNDS; round += 1) {
      const next = (left ^ (mix(right, keyWords[round % keyWords.length] as number, round) & mask)) >>> 0;
      left = right;
      right = next;
    }
    value = left * 2 ** half + right;
  } while (value >= size);
  return value;
}
