import { createPublicKey, verify } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holderKey, keyProof, main } from './proof.ts';

// tools/dev/src/proof.ts: the key proof helper of README.md "Walk-through: issue and revoke an mDL".
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

describe('the key proof helper', () => {
  const file = join(tmpdir(), `vellum-holder-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  afterEach(() => rmSync(file, { force: true }));

  it('makes a P-256 key on first use, keeps it private to its owner, and reuses it', () => {
    const first = holderKey(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ kty: 'EC', crv: 'P-256', d: expect.any(String) });
    expect(holderKey(file).export({ format: 'jwk' })).toEqual(first.export({ format: 'jwk' }));
  });

  it('signs an OpenID4VCI key proof with ES256 over the public key it carries as jwk', () => {
    const jwt = keyProof(holderKey(file), { nonce: 'n-1', issuer: 'https://issuer.example', now: new Date('2026-05-01T12:00:00Z') });
    const [header, payload, signature] = jwt.split('.');
    const h = decode(header!);
    expect(h).toEqual({ typ: 'openid4vci-proof+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String) } });
    expect(decode(payload!)).toEqual({ aud: 'https://issuer.example', iat: 1777636800, nonce: 'n-1' });
    const key = createPublicKey({ key: h.jwk, format: 'jwk' });
    const signed = Buffer.from(`${header}.${payload}`);
    expect(verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature!, 'base64url'))).toBe(true);
    expect(verify('sha256', Buffer.from('other'), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature!, 'base64url'))).toBe(false);
  });

  it('prints a proof, or the public key, and refuses a call without nonce and issuer', () => {
    const lines: string[] = [];
    expect(main(['--nonce', 'n', '--issuer', 'https://i.example', '--key', file], (l) => lines.push(l))).toBe(0);
    expect(lines[0]).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(main(['--public', '--key', file], (l) => lines.push(l))).toBe(0);
    expect(JSON.parse(lines[1]!)).toEqual(decode(lines[0]!.split('.')[0]!).jwk);
    const stderr = process.stderr.write;
    process.stderr.write = () => true;
    try {
      expect(main(['--nonce', 'n', '--key', file], () => undefined)).toBe(2);
      expect(main(['--bogus'], () => undefined)).toBe(2);
    } finally {
      process.stderr.write = stderr;
    }
  });
});
