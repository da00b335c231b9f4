import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { didKeyOf } from '../dids/did-key.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { JwtCheck, JwtProofVerifier } from '../oauth/jwt-proofs.ts';
import type { HttpClient } from '../shared/ports.ts';
import { createStatusListLookup } from '../shared/token-status-lists.ts';
import type { IssuerAnchor, VerifyOptions } from './model.ts';
import { createSdJwtVcVerifier, jwkOfDidKey } from './sd-jwt-vc.ts';

// A fake signature port: a JWT's "signature" is the base64url of the key's x (or of the x5c leaf);
// a chain is trusted when a root PEM names the chain's last entry. Real signatures are in
// tools/interop/src/verify-sd-jwt-vc.interop.test.ts.
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const jwt = (header: object, payload: object, signedBy: string) => `${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}.${b64(signedBy)}`;
const parts = (token: string) => {
  const [h = '', p = '', s = ''] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(p, 'base64url').toString()),
    sig: Buffer.from(s, 'base64url').toString(),
  };
};
const jwtProofs: Pick<JwtProofVerifier, 'verifyWithX5c' | 'verifyWithKey'> = {
  async verifyWithKey(token, jwk): Promise<JwtCheck> {
    const { header, payload, sig } = parts(token);
    return sig === (jwk as PublicJwk).x ? { ok: true, header, payload } : { ok: false, reason: 'Bad signature' };
  },
  async verifyWithX5c(token, roots): Promise<JwtCheck> {
    const { header, payload, sig } = parts(token);
    const x5c = header.x5c as string[];
    if (sig !== x5c[0]) return { ok: false, reason: 'Bad signature' };
    return roots.some((root) => root.includes(x5c[x5c.length - 1] as string)) ? { ok: true, header, payload } : { ok: false, reason: 'Untrusted chain' };
  },
};
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
const verify = createSdJwtVcVerifier({ jwtProofs, digests: { sha256 } });

const NOW = new Date('2026-06-01T12:00:00Z');
const T = NOW.getTime() / 1000;
const HOLDER: PublicJwk = { kty: 'EC', crv: 'P-256', x: 'holder-x', y: 'holder-y' };
const ED_KEY: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: Buffer.alloc(32, 7).toString('base64url') };
const ISSUER_DID = didKeyOf(ED_KEY);
const ANCHOR: IssuerAnchor = { kind: 'did', trustedIssuerId: 'ti-1', did: ISSUER_DID, formats: ['dc+sd-jwt'] };
const X509_ANCHOR: IssuerAnchor = { kind: 'x509', trustedIssuerId: 'ti-2', certificatePem: 'PEM(CA)', formats: ['dc+sd-jwt'] };

const disclosure = (...items: unknown[]) => b64(JSON.stringify(items));

/** An issuer JWT signed by the Ed25519 did:key, with `claims` as the payload beside the registered ones. */
function issue(claims: object, header: object = {}) {
  return jwt(
    { typ: 'dc+sd-jwt', alg: 'EdDSA', kid: `${ISSUER_DID}#k`, ...header },
    { iss: ISSUER_DID, iat: T - 10, exp: T + 3600, vct: 'urn:pid', cnf: { jwk: HOLDER }, ...claims },
    ED_KEY.x,
  );
}
const kb = (presented: string, over: object = {}, header: object = {}) =>
  jwt({ typ: 'kb+jwt', alg: 'ES256', ...header }, { iat: T, nonce: 'n1', aud: 'v1', sd_hash: sha256(presented), ...over }, HOLDER.x);
const opts = (over: Partial<VerifyOptions> = {}): VerifyOptions => ({ anchors: [ANCHOR], now: NOW, ...over });
const failed = (result: { checks: Array<{ check: string; ok: boolean; reason?: string }> }) =>
  result.checks.filter((c) => !c.ok).map((c) => `${c.check}: ${c.reason}`);

describe('createSdJwtVcVerifier (RFC 9901 §7, SD-JWT VC §3)', () => {
  it('recomputes nested object and array disclosures, dropping decoys, and leaves the mechanism out of claims', async () => {
    const street = disclosure('s1', 'street', 'Heidestraße 17');
    const fr = disclosure('s2', 'FR');
    const address = disclosure('s3', 'address', { _sd: [sha256(street), sha256('decoy')], locality: 'Köln' });
    const issuer = issue({ _sd_alg: 'sha-256', _sd: [sha256(address)], nationalities: ['DE', { '...': sha256(fr) }, { '...': sha256('decoy2') }] });
    const result = await verify(`${issuer}~${address}~${street}~${fr}~`, opts());
    expect(failed(result)).toEqual([]);
    expect(result.verified).toBe(true);
    expect(result.claims).toEqual({ iss: ISSUER_DID, vct: 'urn:pid', address: { street: 'Heidestraße 17', locality: 'Köln' }, nationalities: ['DE', 'FR'] });
  });

  it('accepts the legacy vc+sd-jwt typ and refuses any other, and an alg other than ES256 or EdDSA', async () => {
    expect(failed(await verify(`${issue({}, { typ: 'vc+sd-jwt' })}~`, opts()))).toEqual([]);
    expect(failed(await verify(`${issue({}, { typ: 'JWT', alg: 'HS256' })}~`, opts()))).toEqual([
      'typ: The issuer JWT typ is not dc+sd-jwt',
      'alg: The issuer JWT alg is not ES256 or EdDSA',
    ]);
  });

  it('refuses a digest met twice, a disclosure presented twice, a named disclosure in an array, and another _sd_alg', async () => {
    const a = disclosure('s', 'a', 1);
    expect(failed(await verify(`${issue({ _sd: [sha256(a), sha256(a)] })}~${a}~`, opts()))).toEqual([
      'disclosures: A disclosure digest appears more than once in the credential',
    ]);
    expect(failed(await verify(`${issue({ _sd: [sha256(a)] })}~${a}~${a}~`, opts()))).toEqual(['disclosures: The same disclosure is presented twice']);
    expect(failed(await verify(`${issue({ list: [{ '...': sha256(a) }] })}~${a}~`, opts()))).toEqual([
      'disclosures: An array element digest points at a named disclosure',
    ]);
    expect(failed(await verify(`${issue({ _sd_alg: 'sha-512', _sd: [sha256(a)] })}~${a}~`, opts()))).toEqual(['disclosures: The _sd_alg is not sha-256']);
    expect(failed(await verify(`${issue({ a: 0, _sd: [sha256(a)] })}~${a}~`, opts()))).toEqual(['disclosures: The disclosed claim a is already in the object']);
  });

  it('checks the KB-JWT: typ, sd_hash, iat window; nonce and audience only when the options name them', async () => {
    const presented = `${issue({})}~`;
    expect(failed(await verify(presented + kb(presented), opts({ nonce: 'n1', audience: 'v1' })))).toEqual([]);
    // No nonce or audience expected: not applicable, so not listed.
    const bare = await verify(presented + kb(presented, { nonce: 'other', aud: 'other' }), opts());
    expect(bare.checks.map((c) => c.check)).not.toContain('nonce');
    expect(failed(bare)).toEqual([]);
    expect(failed(await verify(presented + kb(presented, {}, { typ: 'JWT' }), opts()))).toEqual(['key-binding: The key binding JWT typ is not kb+jwt']);
    expect(failed(await verify(presented + kb(`${presented}x`), opts()))).toEqual(['key-binding: The key binding JWT sd_hash does not match the presentation']);
    expect(failed(await verify(presented + kb(presented, { iat: T + 120 }), opts()))).toEqual([
      'key-binding: The key binding JWT iat is outside the accepted window',
    ]);
    const unbound = `${jwt({ typ: 'dc+sd-jwt', alg: 'EdDSA', kid: `${ISSUER_DID}#k` }, { iss: ISSUER_DID, vct: 'urn:pid' }, ED_KEY.x)}~`;
    expect(failed(await verify(unbound + kb(unbound), opts()))).toEqual(['key-binding: A key binding JWT for a credential with no cnf.jwk']);
  });

  it('is holder bound only with a verified key binding JWT whose nonce and audience, when expected, match', async () => {
    const presented = `${issue({})}~`;
    expect((await verify(presented + kb(presented), opts({ nonce: 'n1', audience: 'v1' }))).holderBound).toBe(true);
    expect((await verify(presented + kb(presented), opts())).holderBound).toBe(true);
    expect((await verify(presented, opts())).holderBound).toBe(false);
    expect((await verify(presented + kb(presented, { nonce: 'other' }), opts({ nonce: 'n1' }))).holderBound).toBe(false);
    expect((await verify(presented + kb(presented, { aud: 'other' }), opts({ audience: 'v1' }))).holderBound).toBe(false);
    expect((await verify(presented + kb(presented, {}, { typ: 'JWT' }), opts())).holderBound).toBe(false);
  });

  it('reports the AuthorityKeyIdentifiers of the x5c chain (standard base64 DER) when given the certificate port', async () => {
    const seen: Uint8Array[][] = [];
    const withAki = createSdJwtVcVerifier({
      jwtProofs,
      digests: { sha256 },
      certificates: {
        authorityKeyIds: (chain) => {
          seen.push([...chain]);
          return ['aki-1'];
        },
      },
    });
    // "+/8=" and "AQID" are standard base64 of 0xfb 0xff and 01 02 03.
    const x5cJwt = jwt({ typ: 'dc+sd-jwt', alg: 'ES256', x5c: ['+/8=', 'AQID'] }, { iss: 'https://issuer.example', vct: 'urn:pid' }, '+/8=');
    const result = await withAki(`${x5cJwt}~`, opts({ anchors: [X509_ANCHOR] }));
    expect(seen).toEqual([[Uint8Array.of(0xfb, 0xff), Uint8Array.of(1, 2, 3)]]);
    expect(result.issuer).toEqual({ kind: 'x509', id: 'https://issuer.example', trusted: false, authorityKeyIds: ['aki-1'] });
    // A DID issuer has no chain: none reported.
    expect((await withAki(`${issue({})}~`, opts())).issuer).not.toHaveProperty('authorityKeyIds');
  });

  it('trusts an x5c issuer through the anchor its chain ends at, and resolves no DID but did:key', async () => {
    const x5cJwt = jwt({ typ: 'dc+sd-jwt', alg: 'ES256', x5c: ['LEAF', 'CA'] }, { iss: 'https://issuer.example', vct: 'urn:pid' }, 'LEAF');
    const trusted = await verify(`${x5cJwt}~`, opts({ anchors: [X509_ANCHOR] }));
    expect(trusted.issuer).toEqual({ kind: 'x509', id: 'https://issuer.example', trusted: true, trustedIssuerId: 'ti-2' });
    // An anchor for another format does not count.
    const mdocOnly = await verify(`${x5cJwt}~`, opts({ anchors: [{ ...X509_ANCHOR, formats: ['mso_mdoc'] }] }));
    expect(mdocOnly.issuer?.trusted).toBe(false);
    expect(failed(mdocOnly)).toEqual(['trusted-issuer: No trusted issuer of this tenant covers the credential issuer']);

    const web = jwt({ typ: 'dc+sd-jwt', alg: 'ES256', kid: 'did:web:issuer.example#k' }, { iss: 'did:web:issuer.example', vct: 'urn:pid' }, 'x');
    expect(failed(await verify(`${web}~`, opts()))[0]).toBe('signature: Only did:key issuers can be resolved');
  });

  it('keeps a claim named __proto__ as a plain claim, and fails validity without a valid now', async () => {
    const proto = disclosure('s', '__proto__', { polluted: true });
    const result = await verify(`${issue({ _sd: [sha256(proto)] })}~${proto}~`, opts());
    expect(failed(result)).toEqual([]);
    expect(Object.getPrototypeOf(result.claims)).toBe(Object.prototype);
    expect(Object.hasOwn(result.claims, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(failed(await verify(`${issue({})}~`, opts({ now: new Date(Number.NaN) })))).toEqual(['validity: No valid time to check against']);
  });

  it('decodes P-256 did:keys to the point they compress', () => {
    // The P-256 generator G: x = 6b17d1f2…, y = 4fe342e2… (SEC 2 §2.4.2); y is odd → 0x03 prefix.
    const g: PublicJwk = {
      kty: 'EC',
      crv: 'P-256',
      x: Buffer.from('6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296', 'hex').toString('base64url'),
      y: Buffer.from('4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5', 'hex').toString('base64url'),
    };
    expect(jwkOfDidKey(didKeyOf(g))).toEqual(g);
    expect(jwkOfDidKey(didKeyOf(ED_KEY))).toEqual(ED_KEY);
    expect(jwkOfDidKey('did:key:zNope')).toBeUndefined();
  });
});

describe('createSdJwtVcVerifier: status (docs/verification.md "Status while verifying")', () => {
  const URI = 'https://issuer.example/status/7';
  const inflater = { inflate: (data: Uint8Array) => data };

  /** A verifier whose outbound HTTP serves `list` (a status list JWT) at URI, counting fetches. */
  function withList(list: () => string) {
    const seen = { fetches: 0 };
    const http = {
      send: async () => ({ ok: true as const, status: 200 }),
      fetch: async (request: { url: string; headers?: Record<string, string> }) => {
        seen.fetches += 1;
        expect(request.url).toBe(URI);
        expect(request.headers?.accept).toBe('application/statuslist+jwt');
        return { status: 200, headers: {}, body: new TextEncoder().encode(list()) };
      },
    };
    const statusLists = createStatusListLookup({ http: http as unknown as HttpClient, inflater, clock: { now: () => NOW } });
    return { verify: createSdJwtVcVerifier({ jwtProofs, digests: { sha256 }, statusLists }), seen };
  }
  // bits 2: entry 5 is byte 1, bits 2–3.
  const lst = (entry5: number) => Buffer.from(Uint8Array.of(0, entry5 << 2)).toString('base64url');
  const didList = (entry5: number, over: object = {}, header: object = {}) =>
    jwt(
      { typ: 'statuslist+jwt', alg: 'EdDSA', kid: `${ISSUER_DID}#k`, ...header },
      { sub: URI, iat: T, ttl: 300, status_list: { bits: 2, lst: lst(entry5) }, ...over },
      ED_KEY.x,
    );
  const named = `${issue({ status: { status_list: { idx: 5, uri: URI } } })}~`;

  it('reads the entry from a list signed by the same trusted issuer: valid, revoked or suspended', async () => {
    for (const [entry, status, reason] of [
      [0, 'valid', undefined],
      [1, 'revoked', 'The issuer has revoked the credential'],
      [2, 'suspended', 'The issuer has suspended the credential'],
      [3, 'revoked', 'The status list marks the credential 3 (not valid)'],
    ] as const) {
      const { verify } = withList(() => didList(entry));
      const result = await verify(named, opts());
      expect(result.status).toBe(status);
      expect(result.verified).toBe(entry === 0);
      expect(result.checks.at(-1)).toEqual(reason ? { check: 'status', ok: false, reason } : { check: 'status', ok: true });
    }
  });

  it('takes an x5c-signed list only under the trusted issuer that vouches for the credential', async () => {
    const x5cCredential = `${jwt({ typ: 'dc+sd-jwt', alg: 'ES256', x5c: ['LEAF', 'CA'] }, { iss: 'https://issuer.example', vct: 'urn:pid', status: { status_list: { idx: 5, uri: URI } } }, 'LEAF')}~`;
    const list = (chain: string[]) =>
      jwt({ typ: 'statuslist+jwt', alg: 'ES256', x5c: chain }, { sub: URI, status_list: { bits: 2, lst: lst(0) } }, chain[0] as string);
    expect((await withList(() => list(['SL', 'CA'])).verify(x5cCredential, opts({ anchors: [X509_ANCHOR] }))).status).toBe('valid');
    const other = await withList(() => list(['SL', 'OTHER-CA'])).verify(x5cCredential, opts({ anchors: [X509_ANCHOR] }));
    expect(other.verified).toBe(false);
    expect(other.checks.at(-1)).toEqual({ check: 'status', ok: false, reason: 'The status list is not signed by the credential’s issuer: Untrusted chain' });
  });

  it.each([
    ['another typ', () => didList(0, {}, { typ: 'JWT' }), 'The status list must have typ statuslist+jwt'],
    ['another sub', () => didList(0, { sub: 'https://issuer.example/status/8' }), 'The status list names another URI (sub)'],
    ['an expired list', () => didList(0, { exp: T - 1 }), 'The status list has expired'],
    ['a list another key signed', () => didList(0, {}, { kid: 'did:key:z6MkOther#k' }), 'The status list is not signed by the credential’s issuer'],
    ['bits 3', () => didList(0, { status_list: { bits: 3, lst: lst(0) } }), 'The status list must have bits 1, 2, 4 or 8'],
  ])('fails the status check for %s, never reporting the credential valid', async (_name, list, reason) => {
    const result = await withList(list).verify(named, opts());
    expect(result.verified).toBe(false);
    expect(result.status).toBe('not-checked');
    expect(result.checks.at(-1)).toEqual({ check: 'status', ok: false, reason });
  });

  it('keeps a list for its ttl, fetches nothing for an untrusted issuer, and refuses a malformed reference', async () => {
    const { verify, seen } = withList(() => didList(0));
    await verify(named, opts());
    await verify(named, opts());
    expect(seen.fetches).toBe(1);
    const untrusted = await verify(named, opts({ anchors: [] }));
    expect(untrusted.status).toBe('not-checked');
    expect(seen.fetches).toBe(1);
    const bad = await verify(`${issue({ status: { status_list: { idx: -1, uri: 'http://issuer.example/s' } } })}~`, opts());
    expect(failed(bad)).toEqual(['status: status.status_list must have an integer idx and an https uri']);
    const plain = await createSdJwtVcVerifier({ jwtProofs, digests: { sha256 } })(named, opts());
    expect(failed(plain)).toEqual(['status: This server cannot read status lists']);
  });
});
