import { fakeClock } from '@vellum/testing';
import { createHmac } from 'node:crypto';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';

import { createSessionTokens } from './session-tokens.ts';

const SECRET = 'hook-secret-0123456789abcdef0123456789';
const key = (s: string) => new TextEncoder().encode(s);
const b64u = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('createSessionTokens (HS256 session tokens of the interaction hook, docs/authentication.md)', () => {
  it('signs HS256 with iat and exp added, and verifies its own tokens', async () => {
    const clock = fakeClock('2026-05-01T12:00:00.000Z');
    const tokens = createSessionTokens({ clock });
    const token = await tokens.sign(SECRET, { sub: 'u1', state: 's1', claims: { given_name: 'Ada' } }, 600);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const iat = Date.parse('2026-05-01T12:00:00.000Z') / 1000;
    expect(await tokens.verify(SECRET, token)).toEqual({ sub: 'u1', state: 's1', claims: { given_name: 'Ada' }, iat, exp: iat + 600 });
  });

  it('uses the secret’s UTF-8 bytes as given as the HMAC key (what the hook computes on its side)', async () => {
    const tokens = createSessionTokens();
    const token = await tokens.sign(SECRET, { sub: 'u1' }, 60);
    const [header, payload, signature] = token.split('.');
    expect(createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(`${header}.${payload}`).digest('base64url')).toBe(signature);
    // A token the hook signs with any JOSE library and the same secret verifies.
    const fromHook = await new SignJWT({ state: 's1' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(key(SECRET));
    expect(await tokens.verify(SECRET, fromHook)).toMatchObject({ state: 's1' });
  });

  it('the given iat and exp never win over the ones it adds', async () => {
    const clock = fakeClock('2026-05-01T12:00:00.000Z');
    const tokens = createSessionTokens({ clock });
    const token = await tokens.sign(SECRET, { exp: 9_999_999_999, iat: 1 }, 60);
    const iat = Date.parse('2026-05-01T12:00:00.000Z') / 1000;
    expect(await tokens.verify(SECRET, token)).toEqual({ iat, exp: iat + 60 });
  });

  it('refuses another secret, an expired token and a token without exp', async () => {
    const clock = fakeClock('2026-05-01T12:00:00.000Z');
    const tokens = createSessionTokens({ clock });
    const token = await tokens.sign(SECRET, { sub: 'u1' }, 60);
    expect(await tokens.verify('another secret', token)).toBeUndefined();
    clock.advance(59_000);
    expect(await tokens.verify(SECRET, token)).toMatchObject({ sub: 'u1' });
    clock.advance(1_000);
    expect(await tokens.verify(SECRET, token)).toBeUndefined();
    const noExp = await new SignJWT({ sub: 'u1' }).setProtectedHeader({ alg: 'HS256' }).sign(key(SECRET));
    expect(await tokens.verify(SECRET, noExp)).toBeUndefined();
  });

  it('accepts HS256 only: HS512 under the same secret and alg none are refused', async () => {
    const tokens = createSessionTokens();
    const exp = Math.floor(Date.now() / 1000) + 60;
    const hs512 = await new SignJWT({ sub: 'u1' })
      .setProtectedHeader({ alg: 'HS512' })
      .setExpirationTime(exp)
      .sign(key(SECRET.repeat(2)));
    expect(await tokens.verify(SECRET.repeat(2), hs512)).toBeUndefined();
    const none = `${b64u({ alg: 'none', typ: 'JWT' })}.${b64u({ sub: 'u1', exp })}.`;
    expect(await tokens.verify(SECRET, none)).toBeUndefined();
  });

  it('never throws: garbage, an empty token and an empty secret give undefined', async () => {
    const tokens = createSessionTokens();
    for (const token of ['', 'a.b.c', 'not a jwt', `${b64u({ alg: 'HS256' })}.${b64u('string payload')}.AAAA`]) {
      expect(await tokens.verify(SECRET, token)).toBeUndefined();
    }
    const token = await tokens.sign(SECRET, { sub: 'u1' }, 60);
    expect(await tokens.verify('', token)).toBeUndefined();
  });
});
