import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { createSealer } from './sealer.ts';
import { createSecretBox } from './secret-box.ts';

const sealer = () => createSealer(new Uint8Array(randomBytes(32)));

describe('createSecretBox (SecretBox port: secrets Vellum must read again)', () => {
  it('opens what it sealed, UTF-8 text included, and the sealed text does not show it', () => {
    const box = createSecretBox(sealer());
    for (const secret of ['s3cr3t-client-secret', '', 'pâté – 秘密 – 🔑']) {
      const sealed = box.seal(secret, 'authentication-provider:t1:p1');
      if (secret) expect(sealed).not.toContain(secret);
      expect(box.open(sealed, 'authentication-provider:t1:p1')).toBe(secret);
    }
  });

  it('binds the context: another context, tenant or id does not open it', () => {
    const box = createSecretBox(sealer());
    const sealed = box.seal('secret', 'authentication-provider:t1:p1');
    expect(box.open(sealed, 'authentication-provider:t2:p1')).toBeUndefined();
    expect(box.open(sealed, 'authentication-provider:t1:p2')).toBeUndefined();
    expect(box.open(sealed, 'interaction-hook:t1')).toBeUndefined();
  });

  it('gives undefined instead of throwing for corrupt text, another master key or a bare Sealer record', () => {
    const s = sealer();
    const box = createSecretBox(s);
    const sealed = box.seal('secret', 'c');
    expect(box.open('', 'c')).toBeUndefined();
    expect(box.open('v1.garbage', 'c')).toBeUndefined();
    // One character changed, the one before last: every bit of it is data, whatever the length (the
    // last one may hold padding bits). Writing "AA" over the end was no change at all when the sealed
    // text ended in it, and then the test failed at random.
    const flipped = sealed.at(-2) === 'A' ? 'B' : 'A';
    expect(box.open(`${sealed.slice(0, -2)}${flipped}${sealed.slice(-1)}`, 'c')).toBeUndefined();
    expect(createSecretBox(sealer()).open(sealed, 'c')).toBeUndefined();
    // A platform key sealed by the Sealer under its bare name cannot be read through the box.
    const platformRecord = s.seal(new TextEncoder().encode('{"d":"private"}'), 'admin-token-signing');
    expect(box.open(platformRecord, 'admin-token-signing')).toBeUndefined();
  });

  it('refuses bytes that are not UTF-8 rather than mangling them', () => {
    const s = sealer();
    const notText = s.seal(new Uint8Array([0xff, 0xfe, 0x00]), 'secret-box:c');
    expect(createSecretBox(s).open(notText, 'c')).toBeUndefined();
  });
});
