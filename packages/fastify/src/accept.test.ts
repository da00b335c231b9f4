import { describe, expect, it } from 'vitest';
import { prefersJwt } from './accept.ts';

describe('prefersJwt: content negotiation of the issuer metadata (OpenID4VCI 1.0 §12.2.2, RFC 9110 §12.5.1)', () => {
  it.each([
    ['application/jwt', true],
    ['APPLICATION/JWT', true],
    ['application/jwt, application/json', true],
    ['application/json, application/jwt', true],
    ['application/jwt;q=0.9, application/json;q=0.5', true],
    ['application/jwt, */*;q=0.1', true],
    ['application/jwt;q=0.5, application/*;q=0.5', true],
  ])('%s: the signed form', (accept, expected) => {
    expect(prefersJwt(accept)).toBe(expected);
  });

  it.each([
    [undefined, 'no Accept header'],
    ['', 'an empty header'],
    ['*/*', 'a wildcard only'],
    ['application/*', 'a type wildcard only'],
    ['application/json', 'JSON only'],
    ['application/jwt;q=0', 'JWT refused'],
    ['application/jwt;q=0.4, application/json', 'JSON weighted higher'],
    ['application/jwt;q=0.5, */*', 'any type weighted higher'],
    ['application/jwt;q=banana', 'a weight that is not one'],
    ['application/jwt;q=1.5', 'a weight above 1'],
    ['application/jwt-ish', 'another type'],
  ])('%s (%s): the JSON', (accept, _why) => {
    expect(prefersJwt(accept)).toBe(false);
  });
});
