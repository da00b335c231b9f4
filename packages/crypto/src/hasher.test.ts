import { describe, expect, it } from 'vitest';

import { createScryptHasher } from './hasher.ts';

// A low cost keeps the suite fast; the format and the checks are the same at any cost.
const hasher = createScryptHasher({ N: 2 ** 10 });

describe('createScryptHasher', () => {
  it('verifies the secret it hashed, in the self-describing scrypt format', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await hasher.verify('correct horse battery staple', hash)).toBe(true);
  });

  it('refuses a wrong secret', async () => {
    const hash = await hasher.hash('s3cret');
    expect(await hasher.verify('s3cret ', hash)).toBe(false);
    expect(await hasher.verify('', hash)).toBe(false);
  });

  it('salts every hash, so equal secrets hash differently', async () => {
    const [a, b] = await Promise.all([hasher.hash('same'), hasher.hash('same')]);
    expect(a).not.toBe(b);
    expect(await hasher.verify('same', a)).toBe(true);
    expect(await hasher.verify('same', b)).toBe(true);
  });

  it('verifies hashes made with other parameters, read from the stored string', async () => {
    const hash = await createScryptHasher({ N: 2 ** 11, r: 4, p: 2 }).hash('s3cret');
    expect(hash.startsWith('scrypt$2048$4$2$')).toBe(true);
    expect(await hasher.verify('s3cret', hash)).toBe(true);
  });

  it("returns false, never throws, for malformed hashes (including the core's scrypt$unknown)", async () => {
    const good = await hasher.hash('s3cret');
    const [, n, r, p, salt, key] = good.split('$');
    const malformed = [
      'scrypt$unknown',
      '',
      'fake$s3cret',
      `bcrypt$${n}$${r}$${p}$${salt}$${key}`,
      `scrypt$1000$${r}$${p}$${salt}$${key}`, // N not a power of two
      `scrypt$${2 ** 30}$${r}$${p}$${salt}$${key}`, // N beyond the bound
      `scrypt$${n}$0$${p}$${salt}$${key}`,
      `scrypt$${n}$${r}$${p}$${salt}`,
      `scrypt$${n}$${r}$${p}$${salt}$${key}$extra`,
      `scrypt$${n}$${r}$${p}$${salt}$not*base64`,
      `scrypt$${n}$${r}$${p}$${salt}$${key?.slice(0, 10)}`,
    ];
    for (const m of malformed) expect(await hasher.verify('s3cret', m), m).toBe(false);
    expect(await hasher.verify('s3cret', undefined as unknown as string)).toBe(false);
  });

  it('rejects unusable parameters when created', () => {
    expect(() => createScryptHasher({ N: 1000 })).toThrow(/power of two/);
    expect(() => createScryptHasher({ r: 0 })).toThrow(/scrypt parameters/);
  });
});
