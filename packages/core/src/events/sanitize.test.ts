import { describe, expect, it } from 'vitest';
import { EVENT_DATA_LIMITS, isSecretName, MASK, sanitizeEventData, TRUNCATED } from './sanitize.ts';

/** `{ a: { a: … } }`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

describe('event data is storable by construction (docs/decisions.md "Analytic events", docs/limits.md "Analytic events")', () => {
  it('cuts a body nested 5,000 deep at the depth limit, so it serializes', () => {
    const deep = nested(5000);
    expect(() => JSON.stringify(deep)).toThrow(); // what the store would have met
    const { data, truncated } = sanitizeEventData({ payload: { request: deep } });
    expect(truncated).toBe(true);
    const text = JSON.stringify(data);
    expect(text).toContain(TRUNCATED);
    expect(depthOf(data)).toBeLessThanOrEqual(EVENT_DATA_LIMITS.maxDepth);
  });

  it('bounds string length, array length and total size', () => {
    const { data, truncated } = sanitizeEventData({
      long: 'x'.repeat(100_000),
      list: Array.from({ length: 5000 }, (_, i) => i),
      wide: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 'v'.repeat(50)])),
      [`${'n'.repeat(10_000)}`]: 1,
    });
    expect(truncated).toBe(true);
    expect(data.long).toBe('x'.repeat(EVENT_DATA_LIMITS.maxStringLength) + TRUNCATED);
    expect((data.list as unknown[]).length).toBe(EVENT_DATA_LIMITS.maxArrayLength + 1);
    expect((data.list as unknown[]).at(-1)).toBe(TRUNCATED);
    expect((data.wide as Record<string, unknown>)[TRUNCATED]).toBe(true);
    // The size bound is counted before JSON escaping: a little slack for quotes and separators.
    expect(JSON.stringify(data).length).toBeLessThan(EVENT_DATA_LIMITS.maxChars * 1.1);
  });

  it('leaves ordinary data as it is, and says nothing was cut', () => {
    const input = { id: 'u1', count: 3, ok: false, none: null, list: ['a', { b: 2 }], token_type: 'Bearer', transactionCode: true };
    expect(sanitizeEventData(input)).toEqual({ data: input, truncated: false });
  });

  it('keeps what JSON can hold of values it cannot (bigint, functions, NaN, dates, cycles)', () => {
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    const { data } = sanitizeEventData({
      big: 10n ** 30n,
      fn: () => 1,
      sym: Symbol('s'),
      nan: Number.NaN,
      when: new Date('2026-05-01T00:00:00Z'),
      cycle,
      list: [undefined, () => 1],
    });
    expect(() => JSON.stringify(data)).not.toThrow();
    expect(data).toMatchObject({ big: '1000000000000000000000000000000', nan: null, when: '2026-05-01T00:00:00.000Z', list: [null, null] });
    expect(data).not.toHaveProperty('fn');
    expect(JSON.stringify(data)).toContain(TRUNCATED);
  });

  it('keeps a `__proto__` key of a parsed body as data, without touching any prototype', () => {
    const body = JSON.parse('{"__proto__":{"polluted":1},"x":1}') as Record<string, unknown>;
    const { data } = sanitizeEventData({ body });
    expect(JSON.stringify(data)).toBe('{"body":{"__proto__":{"polluted":1},"x":1}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    'client_secret',
    'clientSecret',
    'secret',
    'password',
    'code',
    'pre-authorized_code',
    'preAuthorizedCode',
    'tx_code',
    'transactionCode',
    'access_token',
    'refresh_token',
    'id_token',
    'token',
    'verificationToken',
    'c_nonce',
    'nonce',
    'proof',
    'proofs',
    'jwt',
    'd',
    'key',
    'privateKey',
    'private_key_pem',
    'credential',
    'credentials',
    'authorization',
    'urn:ietf:params:oauth:grant-type:pre-authorized_code',
  ])('masks the value of %s at any depth', (name) => {
    const { data } = sanitizeEventData({ payload: { request: { outer: [{ [name]: 'S3CRET', other: 1 }] } } });
    expect(JSON.stringify(data)).not.toContain('S3CRET');
    expect(JSON.stringify(data)).toContain(MASK);
  });

  it.each(['token_type', 'credential_configuration_id', 'format', 'grant_type', 'errorCode', 'keyType', 'transactionCodeConfiguration', 'client_id'])(
    'keeps %s',
    (name) => {
      expect(isSecretName(name)).toBe(false);
    },
  );

  it('masks a whole secret object (a proof list, a credential array), and compact JWTs wherever they are', () => {
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJub25jZSI6IngifQ.c2lnbmF0dXJl';
    const { data } = sanitizeEventData({ proofs: { jwt: [jwt] }, credentials: [{ credential: 'mdoc-bytes' }], note: jwt, kept: 'hello' });
    expect(data).toEqual({ proofs: MASK, credentials: MASK, note: MASK, kept: 'hello' });
  });
});
