import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { createSealer, parseMasterKey } from './sealer.ts';

const key = () => new Uint8Array(randomBytes(32));
const text = (s: string) => new TextEncoder().encode(s);
const MISMATCH = /master key does not match or the data is corrupt/;

describe('createSealer', () => {
  it('opens what it sealed', () => {
    const sealer = createSealer(key());
    const sealed = sealer.seal(text('private key material'), 'admin-token-signing');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(new TextDecoder().decode(sealer.open(sealed, 'admin-token-signing'))).toBe('private key material');
  });

  it('uses a fresh IV each time and never shows the plaintext', () => {
    const sealer = createSealer(key());
    const plaintext = 'private key material';
    const a = sealer.seal(text(plaintext), 'k');
    const b = sealer.seal(text(plaintext), 'k');
    expect(a).not.toBe(b);
    for (const s of [a, b]) {
      expect(s).not.toContain(plaintext);
      expect(s).not.toContain(Buffer.from(plaintext).toString('base64url'));
      expect(s).not.toContain(Buffer.from(plaintext).toString('base64'));
    }
  });

  it('takes each IV from the random source it is given, and refuses one of the wrong length', () => {
    const drawn: number[] = [];
    let next = 0;
    const random = (n: number) => {
      drawn.push(n);
      next += 1;
      return new Uint8Array(n).fill(next);
    };
    const master = key();
    const sealer = createSealer(master, { random });
    const a = sealer.seal(text('x'), 'k');
    const b = sealer.seal(text('x'), 'k');
    expect(drawn).toEqual([12, 12]);
    expect(a.split('.')[1]).toBe(Buffer.alloc(12, 1).toString('base64url'));
    expect(b.split('.')[1]).toBe(Buffer.alloc(12, 2).toString('base64url'));
    // Sealed with a pooled IV, opened by a sealer with the default source: the IV travels with the data.
    expect(new TextDecoder().decode(createSealer(master).open(a, 'k'))).toBe('x');
    expect(() => createSealer(master, { random: () => new Uint8Array(8) }).seal(text('x'), 'k')).toThrow(/8 bytes for a 12-byte IV/);
  });

  it('seals empty plaintext', () => {
    const sealer = createSealer(key());
    expect(sealer.open(sealer.seal(new Uint8Array(), 'k'), 'k')).toHaveLength(0);
  });

  it('refuses to open with another master key', () => {
    const sealed = createSealer(key()).seal(text('secret'), 'k');
    expect(() => createSealer(key()).open(sealed, 'k')).toThrow(MISMATCH);
  });

  it('refuses tampered data', () => {
    const sealer = createSealer(key());
    const sealed = sealer.seal(text('secret'), 'k');
    const [v, iv, ct, tag] = sealed.split('.') as [string, string, string, string];
    const flip = (s: string) => {
      const b = Buffer.from(s, 'base64url');
      b[0] = (b[0] ?? 0) ^ 1;
      return b.toString('base64url');
    };
    for (const t of [
      [v, iv, flip(ct), tag],
      [v, flip(iv), ct, tag],
      [v, iv, ct, flip(tag)],
      [v, iv, ct],
      [v, iv, ct, tag.slice(0, 10)],
    ]) {
      expect(() => sealer.open(t.join('.'), 'k')).toThrow(MISMATCH);
    }
    expect(() => sealer.open('', 'k')).toThrow(MISMATCH);
    expect(() => sealer.open(`v2.${iv}.${ct}.${tag}`, 'k')).toThrow(/unknown format version/);
  });

  it('binds the sealed data to its associated data', () => {
    const sealer = createSealer(key());
    const sealed = sealer.seal(text('secret'), 'admin-token-signing');
    expect(() => sealer.open(sealed, 'another-key')).toThrow(MISMATCH);
  });

  it('keeps its own copy of the master key', () => {
    const k = key();
    const sealer = createSealer(k);
    const sealed = sealer.seal(text('secret'), 'k');
    k.fill(0);
    expect(new TextDecoder().decode(sealer.open(sealed, 'k'))).toBe('secret');
  });

  it('requires a 32-byte master key', () => {
    expect(() => createSealer(new Uint8Array(16))).toThrow(/exactly 32 bytes/);
    expect(() => createSealer(new Uint8Array(33))).toThrow(/exactly 32 bytes/);
  });
});

describe('parseMasterKey (README.md: VELLUM_MASTER_KEY is base64 of 32 bytes)', () => {
  it('decodes base64 of 32 bytes', () => {
    const bytes = randomBytes(32);
    expect(Buffer.from(parseMasterKey(bytes.toString('base64'))).equals(bytes)).toBe(true);
    expect(parseMasterKey(` ${bytes.toString('base64')}\n`)).toHaveLength(32);
  });

  it('names VELLUM_MASTER_KEY for bad values without echoing them', () => {
    const bad = ['', 'not base64!', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), randomBytes(32).toString('hex')];
    for (const value of bad) {
      let message = '';
      try {
        parseMasterKey(value);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, value).toMatch(/VELLUM_MASTER_KEY.*32 bytes/);
      if (value) expect(message).not.toContain(value);
    }
  });
});
