import { describe, expect, it } from 'vitest';

import { createNodeIds, systemClock } from './clock.ts';

describe('systemClock', () => {
  it('tells the wall-clock time', () => {
    expect(Math.abs(systemClock.now().getTime() - Date.now())).toBeLessThan(1000);
  });
});

describe('createNodeIds', () => {
  const ids = createNodeIds();

  it('makes v7 UUIDs: the current Unix milliseconds, then random bits', () => {
    const before = Date.now();
    const a = ids.uuid();
    const after = Date.now();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = Number.parseInt(a.replaceAll('-', '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
    const many = Array.from({ length: 2000 }, () => ids.uuid());
    expect(new Set(many).size).toBe(2000);
  });

  it('sorts ids made in later milliseconds after earlier ones', async () => {
    const first = ids.uuid();
    await new Promise((resolve) => setTimeout(resolve, 3));
    const second = ids.uuid();
    expect(second > first).toBe(true);
  });

  it('makes URL-safe tokens of 32 random bytes by default, or as many as asked', () => {
    const t = ids.token();
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(t, 'base64url')).toHaveLength(32);
    expect(Buffer.from(ids.token(16), 'base64url')).toHaveLength(16);
    expect(ids.token()).not.toBe(t);
  });

  it('never hands out the same bytes twice across many refills of its pool, small draws or large', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const token = ids.token(i % 3 === 0 ? 16 : 32);
      expect(seen.has(token)).toBe(false);
      seen.add(token);
      const bytes = ids.bytes(i % 2 === 0 ? 20 : 2000);
      expect(bytes).toHaveLength(i % 2 === 0 ? 20 : 2000);
    }
  });
});
