import { describe, expect, it } from 'vitest';
import { randomBytes } from './random.ts';

describe('pooled random bytes', () => {
  it('gives the length asked for, small and large, and never the same bytes twice', () => {
    const seen = new Set<string>();
    // Enough draws to refill the 4 KiB pool many times over.
    for (let i = 0; i < 5000; i++) {
      const n = [1, 16, 32, 100][i % 4] as number;
      const bytes = randomBytes(n);
      expect(bytes).toHaveLength(n);
      if (n >= 16) {
        const hex = bytes.toString('hex');
        expect(seen.has(hex)).toBe(false);
        seen.add(hex);
      }
    }
    expect(randomBytes(5000)).toHaveLength(5000);
  });

  it('hands out copies: changing one changes nothing drawn later', () => {
    const a = randomBytes(32);
    a.fill(0);
    const b = randomBytes(32);
    expect(b.equals(Buffer.alloc(32))).toBe(false);
  });

  it('looks uniform: every byte value turns up, none far too often', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 4000; i++) for (const b of randomBytes(16)) counts[b] = (counts[b] as number) + 1;
    // 64,000 bytes: 250 expected per value; a CSPRNG stays well within ±40% of that.
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(350);
  });
});
