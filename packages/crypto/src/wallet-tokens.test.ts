import { createHmac } from 'node:crypto';
import type { KeyManager } from '@vellum/core';
import { fakeClock, makeTenant } from '@vellum/testing';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { memoryKeyManager } from '../test/key-manager.ts';
import { createDigests, DIGEST_MAC_KEY_NAME, loadDigests } from './digests.ts';
import { loadPlatformTokenSigner } from './platform-token-signer.ts';
import { createWalletTokens, WALLET_TOKEN_KEY_PURPOSE } from './wallet-tokens.ts';

const ISSUER = 'https://acme.eu01.vellum.test';

async function setup() {
  const clock = fakeClock('2026-05-01T12:00:00.000Z');
  const { store, sealer, keys, tenant } = await memoryKeyManager({ clock });
  const created: string[] = [];
  const counting: KeyManager = {
    ...keys,
    create: async (t, a) => {
      const k = await keys.create(t, a);
      created.push(k.id);
      return k;
    },
  };
  const server = () => createWalletTokens({ signingKeys: store.tenantSigningKeys, keys: counting, clock });
  const other = makeTenant();
  await store.tenants.insert(other);
  return { store, clock, keys, sealer, created, server, tokens: server(), tenant, other };
}

const claimsFor = (tenantId: string) => ({
  tenantId,
  issuer: ISSUER,
  userId: crypto.randomUUID(),
  offerId: crypto.randomUUID(),
  configurationIds: [crypto.randomUUID()],
  scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
});

describe('wallet access tokens (docs/decisions.md "Users, offers, the token and nonce endpoints")', () => {
  it('are ES256 at+jwt JWTs with the agreed claims, verifiable with the published JWKS by a library we did not write', async () => {
    const { tokens, tenant } = await setup();
    const input = claimsFor(tenant.id);
    const { token, claims } = await tokens.issue(input, 600);
    expect(claims).toEqual({ ...input, jti: expect.any(String), issuedAt: 1777636800, expiresAt: 1777637400 });
    const jwks = await tokens.jwks(tenant.id);
    expect(jwks.keys).toEqual([{ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: expect.any(String), alg: 'ES256', use: 'sig' }]);
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: jwks.keys[0]?.kid });
    const { payload } = await jwtVerify(token, await importJWK(jwks.keys[0] as never, 'ES256'), {
      currentDate: new Date('2026-05-01T12:00:00Z'),
      typ: 'at+jwt',
      issuer: ISSUER,
      audience: ISSUER,
    });
    expect(payload).toEqual({
      iss: ISSUER,
      aud: ISSUER,
      sub: input.userId,
      tid: tenant.id,
      oid: input.offerId,
      cfg: input.configurationIds,
      scope: input.scope,
      jti: claims.jti,
      iat: claims.issuedAt,
      exp: claims.expiresAt,
    });
    expect(await tokens.verify(tenant.id, ISSUER, token)).toEqual(claims);
  });

  it('carry cids: true when the token response gave credential_identifiers (OpenID4VCI 1.0 §8.2), and verify reads it back, also from the signature', async () => {
    const { tokens, server, tenant } = await setup();
    const input = { ...claimsFor(tenant.id), credentialIdentifiers: true };
    const { token, claims } = await tokens.issue(input, 600);
    expect(claims.credentialIdentifiers).toBe(true);
    const payload = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;
    expect(payload.cids).toBe(true);
    // Another server, which never saw the token, reads the claim from the verified payload.
    expect(await server().verify(tenant.id, ISSUER, token)).toEqual(claims);
  });

  it('carry gty: authorization_code for tokens of the Authorization Code grant, which verify reads back on another server', async () => {
    const { tokens, server, tenant } = await setup();
    const { token, claims } = await tokens.issue({ ...claimsFor(tenant.id), grant: 'authorization_code' }, 600);
    expect(claims.grant).toBe('authorization_code');
    const payload = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;
    expect(payload.gty).toBe('authorization_code');
    expect(await server().verify(tenant.id, ISSUER, token)).toEqual(claims);
    // A Pre-authorized Code token carries no gty.
    const plain = await tokens.issue(claimsFor(tenant.id), 600);
    expect(JSON.parse(Buffer.from(plain.token.split('.')[1] as string, 'base64url').toString()).gty).toBeUndefined();
    expect((await server().verify(tenant.id, ISSUER, plain.token))?.grant).toBeUndefined();
  });

  it('verify refuses another tenant, another issuer, expiry, tampering, garbage and admin tokens, without throwing', async () => {
    const { tokens, tenant, other, clock, store, sealer } = await setup();
    const { token } = await tokens.issue(claimsFor(tenant.id), 600);
    const theirs = (await tokens.issue(claimsFor(other.id), 600)).token;
    expect(await tokens.verify(other.id, ISSUER, token)).toBeUndefined();
    expect(await tokens.verify(tenant.id, ISSUER, theirs)).toBeUndefined();
    expect(await tokens.verify(tenant.id, `${ISSUER}/prefix`, token)).toBeUndefined();
    const [h, p, s] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), cfg: ['other'] })).toString('base64url');
    expect(await tokens.verify(tenant.id, ISSUER, `${h}.${forged}.${s}`)).toBeUndefined();
    for (const garbage of ['', 'a.b.c', 'x'.repeat(10_000), `${h}.${p}`, `${h}..${s}`]) expect(await tokens.verify(tenant.id, ISSUER, garbage)).toBeUndefined();
    const admin = await loadPlatformTokenSigner({ keys: store.platformKeys, sealer, clock });
    const adminToken = await admin.sign({ tid: tenant.id }, { subject: 'client', audience: ISSUER, expiresInSeconds: 600 });
    expect(await tokens.verify(tenant.id, ISSUER, adminToken)).toBeUndefined();
    clock.advance(599_000);
    expect(await tokens.verify(tenant.id, ISSUER, token)).toBeDefined();
    clock.advance(1000);
    expect(await tokens.verify(tenant.id, ISSUER, token)).toBeUndefined();
  });

  it('remembers good tokens: each answer is a copy, and a token it no longer remembers verifies by its signature', async () => {
    const { tokens, tenant, clock } = await setup();
    const { token, claims } = await tokens.issue(claimsFor(tenant.id), 600);
    const first = await tokens.verify(tenant.id, ISSUER, token);
    first?.configurationIds.push('added by a caller');
    if (first) first.userId = 'changed by a caller';
    expect(await tokens.verify(tenant.id, ISSUER, token)).toEqual(claims);
    // More tokens than it remembers push the first one out; its signature still makes it good.
    for (let i = 0; i < 2100; i++) await tokens.issue(claimsFor(tenant.id), 600);
    expect(await tokens.verify(tenant.id, ISSUER, token)).toEqual(claims);
    clock.advance(600_000);
    expect(await tokens.verify(tenant.id, ISSUER, token)).toBeUndefined();
  });

  it('takes token ids from the Ids it is given', async () => {
    const { store, clock, keys, tenant } = await setup();
    const tokens = createWalletTokens({ signingKeys: store.tenantSigningKeys, keys, clock, ids: { token: (n = 32) => `id-of-${n}-bytes` } });
    const { token, claims } = await tokens.issue(claimsFor(tenant.id), 600);
    expect(claims.jti).toBe('id-of-16-bytes');
    expect((await tokens.verify(tenant.id, ISSUER, token))?.jti).toBe('id-of-16-bytes');
  });

  it('makes one key per tenant on first use; verifying never makes one', async () => {
    const { tokens, tenant, other, store, created } = await setup();
    expect(await tokens.verify(tenant.id, ISSUER, 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.e30.AA')).toBeUndefined();
    expect(await store.tenantSigningKeys.get(tenant.id, WALLET_TOKEN_KEY_PURPOSE)).toBeUndefined();
    await Promise.all([tokens.issue(claimsFor(tenant.id), 60), tokens.issue(claimsFor(tenant.id), 60), tokens.jwks(tenant.id)]);
    await tokens.issue(claimsFor(other.id), 60);
    expect(created).toHaveLength(2);
    expect((await store.tenantSigningKeys.get(tenant.id, WALLET_TOKEN_KEY_PURPOSE))?.keyId).toBe(created[0]);
  });

  it('servers sharing a store agree on one key per tenant, and a loser destroys the key it made', async () => {
    const { server, tenant, created, keys } = await setup();
    const [a, b] = [server(), server()];
    await Promise.all([a.jwks(tenant.id), b.jwks(tenant.id)]);
    expect(await a.jwks(tenant.id)).toEqual(await b.jwks(tenant.id));
    const { token } = await a.issue(claimsFor(tenant.id), 60);
    expect(await b.verify(tenant.id, ISSUER, token)).toBeDefined();
    const held = await Promise.all(created.map((id) => keys.get(tenant.id, id)));
    expect(held.filter(Boolean)).toHaveLength(1);
  });
});

describe('rotating the access-token key (issue 32, point 4; docs/key-custody.md "Rotation")', () => {
  const HOUR = 3_600_000;
  const kidOf = (token: string) => decodeProtectedHeader(token).kid;

  it('signs with the new key at once, and the old one verifies what it signed, and stays in the JWKS, until the overlap ends', async () => {
    const { tokens, tenant, clock, server } = await setup();
    const before = await tokens.issue(claimsFor(tenant.id), 86_400);
    const rotated = await tokens.rotate(tenant.id, new Date(clock.now().getTime() + HOUR));
    expect(rotated).toEqual({ activeKid: expect.any(String), retiredKid: kidOf(before.token), retiredUntil: '2026-05-01T13:00:00.000Z' });
    const after = await tokens.issue(claimsFor(tenant.id), 86_400);
    expect(kidOf(after.token)).toBe(rotated.activeKid);
    expect(rotated.activeKid).not.toBe(rotated.retiredKid);
    // Both verify here, on a server that never saw the old key sign, and with a library we did not write.
    const fresh = server();
    for (const t of [before.token, after.token]) {
      expect(await tokens.verify(tenant.id, ISSUER, t)).toBeDefined();
      expect(await fresh.verify(tenant.id, ISSUER, t)).toBeDefined();
    }
    const jwks = await fresh.jwks(tenant.id);
    expect(jwks.keys.map((k) => k.kid)).toEqual([rotated.activeKid, rotated.retiredKid]);
    for (const t of [before.token, after.token]) {
      const jwk = jwks.keys.find((k) => k.kid === kidOf(t));
      await jwtVerify(t, await importJWK(jwk as never, 'ES256'), { currentDate: clock.now(), issuer: ISSUER, audience: ISSUER });
    }
    // The overlap ends: the old key's tokens are refused though they have not expired, and it leaves the JWKS.
    clock.advance(HOUR + 1000);
    const later = server();
    expect(await later.verify(tenant.id, ISSUER, before.token)).toBeUndefined();
    expect(await later.verify(tenant.id, ISSUER, after.token)).toBeDefined();
    expect((await later.jwks(tenant.id)).keys.map((k) => k.kid)).toEqual([rotated.activeKid]);
  });

  it('refuses a second rotation while the first overlaps, then destroys the key the first replaced', async () => {
    const { tokens, tenant, clock, store, keys } = await setup();
    await tokens.issue(claimsFor(tenant.id), 60);
    const first = (await store.tenantSigningKeys.get(tenant.id, WALLET_TOKEN_KEY_PURPOSE))?.keyId as string;
    await tokens.rotate(tenant.id, new Date(clock.now().getTime() + HOUR));
    await expect(tokens.rotate(tenant.id, new Date(clock.now().getTime() + HOUR))).rejects.toMatchObject({
      code: 'Conflict',
      message: expect.stringContaining('overlaps until 2026-05-01T13:00:00.000Z'),
    });
    expect(await keys.get(tenant.id, first)).toBeDefined();
    clock.advance(HOUR);
    const second = await tokens.rotate(tenant.id, new Date(clock.now().getTime() + HOUR));
    expect(await keys.get(tenant.id, first)).toBeUndefined();
    const record = await store.tenantSigningKeys.get(tenant.id, WALLET_TOKEN_KEY_PURPOSE);
    expect(record?.previousKeyId).not.toBe(first);
    expect((await tokens.jwks(tenant.id)).keys.map((k) => k.kid)).toEqual([second.activeKid, second.retiredKid]);
  });

  it('lets one of two rotations at once win; the other is refused and keeps no key', async () => {
    const { server, tenant, clock, created, keys } = await setup();
    const [a, b] = [server(), server()];
    await a.jwks(tenant.id);
    const until = new Date(clock.now().getTime() + HOUR);
    const results = await Promise.allSettled([a.rotate(tenant.id, until), b.rotate(tenant.id, until)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'Conflict' } });
    const held = (await Promise.all(created.map((id) => keys.get(tenant.id, id)))).filter(Boolean);
    // The first key, now the previous one, and the winner's new key.
    expect(held).toHaveLength(2);
  });

  it('reaches other servers: one that read the keys before signs with the new key after its refresh, and verifies it sooner', async () => {
    const { tenant, clock, store, keys } = await setup();
    const make = () => createWalletTokens({ signingKeys: store.tenantSigningKeys, keys, clock, refreshMs: 60_000 });
    const [a, b] = [make(), make()];
    const old = await b.issue(claimsFor(tenant.id), 600);
    const { activeKid } = await a.rotate(tenant.id, new Date(clock.now().getTime() + HOUR));
    const fromA = await a.issue(claimsFor(tenant.id), 600);
    // b still signs with the old key, which verifies everywhere during the overlap.
    const stale = await b.issue(claimsFor(tenant.id), 600);
    expect(kidOf(stale.token)).toBe(kidOf(old.token));
    expect(await a.verify(tenant.id, ISSUER, stale.token)).toBeDefined();
    // A token naming a kid b does not know makes it read the keys again, at most once a second.
    clock.advance(1500);
    expect(await b.verify(tenant.id, ISSUER, fromA.token)).toBeDefined();
    clock.advance(60_000);
    expect(kidOf((await b.issue(claimsFor(tenant.id), 600)).token)).toBe(activeKid);
  });

  it('gives a tenant without a token key its first, with nothing retired', async () => {
    const { tokens, tenant } = await setup();
    const first = await tokens.rotate(tenant.id, new Date());
    expect(first).toEqual({ activeKid: expect.any(String) });
    expect((await tokens.jwks(tenant.id)).keys.map((k) => k.kid)).toEqual([first.activeKid]);
  });
});

describe('digests', () => {
  const key = new Uint8Array(32).fill(3);

  it('are SHA-256, base64url without padding', () => {
    expect(createDigests(key).sha256('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(createDigests(key).sha256('\u00e9')).toBe('SplVfkAzw1Od4utlRyAXytX5VX96BiWgnxw_biumnEw');
  });

  it('MACs are HMAC-SHA-256 under the key (RFC 2104), base64url: another key gives another MAC, and none is the bare SHA-256', () => {
    const expected = createHmac('sha256', Buffer.from(key)).update('123456', 'utf8').digest('base64url');
    expect(createDigests(key).mac('123456')).toBe(expected);
    expect(createDigests(new Uint8Array(32).fill(4)).mac('123456')).not.toBe(expected);
    expect(createDigests(key).mac('123456')).not.toBe(createDigests(key).sha256('123456'));
    expect(() => createDigests(new Uint8Array(16))).toThrow(/32 bytes/);
  });

  it('loadDigests keeps one MAC key as a sealed platform key: two servers sharing the store compute the same MACs', async () => {
    const { store, sealer } = await memoryKeyManager();
    const options = { keys: store.platformKeys, sealer, clock: fakeClock() };
    const [a, b] = await Promise.all([loadDigests(options), loadDigests(options)]);
    expect(a.mac('042117')).toBe(b.mac('042117'));
    const stored = await store.platformKeys.get(DIGEST_MAC_KEY_NAME);
    expect(stored?.sealed).toMatch(/^v1\./);
    const other = await memoryKeyManager({ masterByte: 8 });
    await expect(loadDigests({ ...options, sealer: other.sealer })).rejects.toThrow(/master key/);
  });
});
