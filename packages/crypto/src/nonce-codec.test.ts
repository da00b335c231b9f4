import { randomBytes } from 'node:crypto';
import type { Clock } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { loadNonceCodec, NONCE_MAC_KEY_NAME } from './nonce-codec.ts';
import { createSealer } from './sealer.ts';
import { memoryKeys } from '../test/platform-keys.ts';

const clock: Clock = { now: () => new Date('2026-05-01T12:00:00Z') };
const EXPIRES = new Date('2026-05-01T12:05:00Z');
const TENANT = '7f0c1c1e-4a4b-4a8e-9d43-5b0a2f6f1c01';
const OTHER = '7f0c1c1e-4a4b-4a8e-9d43-5b0a2f6f1c02';

async function setup() {
  const keys = memoryKeys();
  const master = new Uint8Array(randomBytes(32));
  const codec = await loadNonceCodec({ keys, sealer: createSealer(master), clock });
  return { keys, master, codec };
}

const bytesOf = (nonce: string) => Buffer.from(nonce, 'base64url');
const textOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

describe('self-authenticating c_nonces (OpenID4VCI 1.0 §7; docs/decisions.md): HMAC-SHA-256 under a sealed platform key', () => {
  it('opens what it minted for the tenant, with the expiry to the second; every nonce differs', async () => {
    const { codec } = await setup();
    const nonce = codec.mint(TENANT, EXPIRES);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{50}$/);
    expect(codec.open(TENANT, nonce)).toEqual({ expiresAt: EXPIRES });
    // Sub-second expiries round down: a nonce never lives longer than asked.
    expect(codec.open(TENANT, codec.mint(TENANT, new Date(EXPIRES.getTime() + 999)))).toEqual({ expiresAt: EXPIRES });
    const many = new Set(Array.from({ length: 1000 }, () => codec.mint(TENANT, EXPIRES)));
    expect(many.size).toBe(1000);
  });

  it('takes its random bytes from the Ids it is given', async () => {
    const drawn: number[] = [];
    const ids = { bytes: (n: number) => (drawn.push(n), new Uint8Array(n).fill(7)) };
    const codec = await loadNonceCodec({ keys: memoryKeys(), sealer: createSealer(new Uint8Array(randomBytes(32))), clock, ids });
    const nonce = codec.mint(TENANT, EXPIRES);
    expect(drawn).toEqual([16]);
    expect([...bytesOf(nonce).subarray(5, 21)]).toEqual(new Array(16).fill(7));
    expect(codec.open(TENANT, nonce)).toEqual({ expiresAt: EXPIRES });
  });

  it('opens a nonce whose expiry has passed (the caller compares it with its clock)', async () => {
    const { codec } = await setup();
    const past = new Date('2020-01-01T00:00:00Z');
    expect(codec.open(TENANT, codec.mint(TENANT, past))).toEqual({ expiresAt: past });
  });

  it('refuses another tenant’s nonce', async () => {
    const { codec } = await setup();
    const nonce = codec.mint(TENANT, EXPIRES);
    expect(codec.open(OTHER, nonce)).toBeUndefined();
    expect(codec.open('', nonce)).toBeUndefined();
    expect(codec.open(`${TENANT}x`, nonce)).toBeUndefined();
  });

  it('refuses every single flipped bit: version, expiry, random part and tag', async () => {
    const { codec } = await setup();
    const bytes = bytesOf(codec.mint(TENANT, EXPIRES));
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
      expect(codec.open(TENANT, textOf(flipped)), `bit ${bit}`).toBeUndefined();
    }
  });

  it('refuses truncated and extended nonces, and another spelling of the same bytes', async () => {
    const { codec } = await setup();
    const nonce = codec.mint(TENANT, EXPIRES);
    for (let n = 0; n < nonce.length; n++) expect(codec.open(TENANT, nonce.slice(0, n))).toBeUndefined();
    expect(codec.open(TENANT, `${nonce}A`)).toBeUndefined();
    expect(codec.open(TENANT, textOf(bytesOf(nonce).subarray(0, 36)))).toBeUndefined();
    expect(codec.open(TENANT, textOf(Buffer.concat([bytesOf(nonce), Buffer.from([0])])))).toBeUndefined();
    // 50 characters hold 300 bits for 296: the last one's low bits are padding the decoder drops.
    // Only the canonical spelling opens, or a used nonce could be used again under another spelling.
    const last = nonce.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twins = [...alphabet]
      .filter((c) => c !== last)
      .map((c) => `${nonce.slice(0, -1)}${c}`)
      .filter((twin) => bytesOf(twin).equals(bytesOf(nonce)));
    expect(twins.length).toBeGreaterThan(0);
    for (const twin of twins) expect(codec.open(TENANT, twin)).toBeUndefined();
  });

  it('refuses another version, even with a tag made for it', async () => {
    const { codec } = await setup();
    const bytes = bytesOf(codec.mint(TENANT, EXPIRES));
    for (const version of [0, 2, 255]) expect(codec.open(TENANT, textOf(Buffer.concat([Buffer.from([version]), bytes.subarray(1)])))).toBeUndefined();
  });

  it('refuses garbage without throwing', async () => {
    const { codec } = await setup();
    const garbage: unknown[] = [
      '',
      'never-issued',
      '!'.repeat(50),
      `${'A'.repeat(49)}=`,
      'A'.repeat(50),
      ' '.repeat(50),
      'é'.repeat(50),
      crypto.randomUUID(),
      randomBytes(37).toString('base64url'),
      randomBytes(37).toString('base64'),
      'x'.repeat(100_000),
      undefined,
      null,
      42,
      {},
    ];
    for (const value of garbage) expect(codec.open(TENANT, value as string)).toBeUndefined();
    expect(codec.open(undefined as unknown as string, codec.mint(TENANT, EXPIRES))).toBeUndefined();
  });

  it('refuses to mint an expiry it cannot write (before 1970, after 2106)', async () => {
    const { codec } = await setup();
    expect(() => codec.mint(TENANT, new Date(-1000))).toThrow(RangeError);
    expect(() => codec.mint(TENANT, new Date(2 ** 32 * 1000))).toThrow(RangeError);
    expect(() => codec.mint(TENANT, new Date(Number.NaN))).toThrow(RangeError);
  });

  it('two servers loading from one repository agree; a third with another key refuses their nonces', async () => {
    const { keys, master, codec: a } = await setup();
    const b = await loadNonceCodec({ keys, sealer: createSealer(master), clock });
    expect(keys.records.size).toBe(1);
    expect(keys.records.get(NONCE_MAC_KEY_NAME)?.sealed).toMatch(/^v1\./);
    expect(b.open(TENANT, a.mint(TENANT, EXPIRES))).toEqual({ expiresAt: EXPIRES });
    expect(a.open(TENANT, b.mint(TENANT, EXPIRES))).toEqual({ expiresAt: EXPIRES });
    const elsewhere = (await setup()).codec;
    expect(elsewhere.open(TENANT, a.mint(TENANT, EXPIRES))).toBeUndefined();
  });

  it('servers starting at once keep one key (insert-if-absent)', async () => {
    const keys = memoryKeys();
    const sealer = createSealer(new Uint8Array(randomBytes(32)));
    const [a, b] = await Promise.all([loadNonceCodec({ keys, sealer, clock }), loadNonceCodec({ keys, sealer, clock })]);
    expect(b.open(TENANT, a.mint(TENANT, EXPIRES))).toEqual({ expiresAt: EXPIRES });
  });

  it('a master key that cannot open the stored key stops loading', async () => {
    const { keys } = await setup();
    await expect(loadNonceCodec({ keys, sealer: createSealer(new Uint8Array(randomBytes(32))), clock })).rejects.toThrow(/master key/);
  });
});
