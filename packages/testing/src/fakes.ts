import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import {
  DomainError,
  type Clock,
  type CwtSigner,
  type CwtSignInput,
  type SdJwtSigner,
  type SdJwtSignInput,
  type RevocationListInput,
  type RevocationListSigner,
  type StatusListTokenInput,
  type StatusListTokenSigner,
  type TokenStatusListInput,
  type TokenStatusListSigner,
  type DnsResolver,
  type Ids,
  type KeyManager,
  type LinkedDataSigner,
  type ManagedKey,
  type PublicJwk,
  type SecretBox,
  type SecretHasher,
  type TokenSigner,
  type TxtLookup,
} from '@vellum/core';

/** A clock that stands still until told to move. */
export interface FakeClock extends Clock {
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function fakeClock(start: Date | string = '2026-01-01T00:00:00.000Z'): FakeClock {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    set: (at) => {
      now = new Date(at).getTime();
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

/** Deterministic ids: UUID-shaped and token-shaped values from a counter. */
export function fakeIds(prefix = 0): Ids {
  let n = prefix;
  return {
    uuid: () => {
      n += 1;
      return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
    },
    token: (bytes = 32) => {
      n += 1;
      return `tok${n}`.padEnd(Math.ceil((bytes * 4) / 3), 'x');
    },
    // A counter-seeded sequence: deterministic per fake, different on every call.
    bytes: (count) => {
      n += 1;
      return Uint8Array.from({ length: count }, (_, i) => (n * 131 + i * 29) & 0xff);
    },
  };
}

/** A reversible stand-in for a slow hash, for unit tests of the core only. */
export function fakeHasher(): SecretHasher {
  return {
    hash: async (secret) => `fake$${secret}`,
    verify: async (secret, hash) => hash === `fake$${secret}`,
  };
}

/**
 * A reversible stand-in for the SecretBox, for unit tests only: base64url of the context and the
 * secret, so a test can tell what was sealed; opening checks the context as the real one does.
 */
export function fakeSecretBox(): SecretBox {
  const PREFIX = 'fakesealed.';
  return {
    seal: (plaintext, context) => PREFIX + Buffer.from(JSON.stringify([context, plaintext]), 'utf8').toString('base64url'),
    open(sealed, context) {
      if (!sealed.startsWith(PREFIX)) return undefined;
      try {
        const parsed: unknown = JSON.parse(Buffer.from(sealed.slice(PREFIX.length), 'base64url').toString('utf8'));
        return Array.isArray(parsed) && parsed[0] === context && typeof parsed[1] === 'string' ? parsed[1] : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** Unsigned tokens for unit tests of the core: the JSON claims, base64url, with the expiry checked. */
export function fakeTokenSigner(clock: Clock): TokenSigner {
  return {
    async sign(claims, o) {
      const iat = Math.floor(clock.now().getTime() / 1000);
      const body = { ...claims, sub: o.subject, aud: o.audience, iat, exp: iat + o.expiresInSeconds };
      return `fake.${Buffer.from(JSON.stringify(body)).toString('base64url')}`;
    },
    async verify(token) {
      const [tag, body] = token.split('.');
      if (tag !== 'fake' || !body) return undefined;
      try {
        const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
        return typeof claims.exp === 'number' && claims.exp * 1000 > clock.now().getTime() ? claims : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** A resolver answering from a map of name → TXT records; names mapped to an Error fail the lookup. */
export function fakeDns(records: Record<string, string[] | Error> = {}): DnsResolver & { records: Record<string, string[] | Error> } {
  return {
    records,
    async resolveTxt(name): Promise<TxtLookup> {
      const r = records[name];
      if (r instanceof Error) return { status: 'failed', reason: r.message };
      return r && r.length > 0 ? { status: 'found', records: r } : { status: 'none' };
    },
  };
}

/**
 * A KeyManager that keeps real Ed25519 and P-256 keys in memory, unsealed: for tests of the core.
 * It signs as the real one does (EdDSA, or P-256 ECDSA in P1363 form) and refuses destroyed keys.
 */
export function fakeKeyManager(options: { ids?: Ids; clock?: Clock } = {}): KeyManager & { count(tenantId: string): number } {
  const ids = options.ids ?? fakeIds(5000);
  const clock = options.clock ?? fakeClock();
  const held = new Map<string, { key: ManagedKey; privateKey: KeyObject }>();
  const find = (tenantId: string, id: string) => {
    const hit = held.get(id);
    return hit && hit.key.tenantId === tenantId ? hit : undefined;
  };
  return {
    async create(tenantId, algorithm) {
      const pair = algorithm === 'Ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = pair.publicKey.export({ format: 'jwk' });
      const publicJwk: PublicJwk =
        algorithm === 'Ed25519' ? { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string } : { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
      const key: ManagedKey = { id: ids.uuid(), tenantId, algorithm, publicJwk, createdAt: clock.now().toISOString() };
      held.set(key.id, { key, privateKey: pair.privateKey });
      return { ...key };
    },
    async get(tenantId, id) {
      const hit = find(tenantId, id);
      return hit && { ...hit.key };
    },
    async sign(tenantId, id, data) {
      const hit = find(tenantId, id);
      if (!hit) throw new DomainError('NotFound', 'The signing key does not exist or was destroyed');
      const signature =
        hit.key.algorithm === 'Ed25519' ? sign(null, data, hit.privateKey) : sign('sha256', data, { key: hit.privateKey, dsaEncoding: 'ieee-p1363' });
      return new Uint8Array(signature);
    },
    async destroy(tenantId, id) {
      return find(tenantId, id) !== undefined && held.delete(id);
    },
    count: (tenantId) => [...held.values()].filter((h) => h.key.tenantId === tenantId).length,
  };
}

/**
 * A LinkedDataSigner for tests of the core: it signs the JSON of the document and proof options
 * through the KeyManager (so a destroyed key fails as it would for real) without JSON-LD
 * canonicalisation, and counts its calls. Its proofs verify with nothing but itself.
 */
export function fakeLinkedDataSigner(keys: KeyManager): LinkedDataSigner & { calls: number } {
  const signer = {
    calls: 0,
    // What a real signer bundles, plus made-up contexts the core's tests configure.
    contexts: [
      'https://www.w3.org/2018/credentials/v1',
      'https://w3id.org/security/suites/ed25519-2020/v1',
      'https://schema.example/degree/v1',
      'https://schema.example/v1',
    ],
    async sign(input: Parameters<LinkedDataSigner['sign']>[0]) {
      signer.calls += 1;
      const proof = { type: input.type, created: input.created, verificationMethod: input.verificationMethod, proofPurpose: input.proofPurpose };
      const signature = await keys.sign(input.tenantId, input.keyId, new TextEncoder().encode(JSON.stringify([input.document, proof])));
      return { ...input.document, proof: { ...proof, jws: `fake..${Buffer.from(signature).toString('base64url')}` } };
    },
  };
  return signer;
}

/**
 * What the fake signers below share: each records its inputs, signs `data` of the input through the
 * KeyManager (so a destroyed key fails as it would for real), then makes its output with `make`.
 */
function recordingSigner<I extends { tenantId: string }, O>(
  keys: KeyManager,
  signed: (input: I) => { keyId: string; data: Uint8Array },
  make: (input: I) => O,
): { inputs: I[]; sign(input: I): Promise<O> } {
  const inputs: I[] = [];
  return {
    inputs,
    async sign(input) {
      inputs.push(input);
      const { keyId, data } = signed(input);
      await keys.sign(input.tenantId, keyId, data);
      return make(input);
    },
  };
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/**
 * A CwtSigner for tests of the core: the "credential" is base64url JSON of what it was asked to
 * sign (the claims, the key and kid), so a test reads back what the core built. Signs through the
 * KeyManager, so a destroyed key fails as it would for real.
 */
export function fakeCwtSigner(keys: KeyManager): CwtSigner & { inputs: CwtSignInput[] } {
  return recordingSigner(
    keys,
    (input: CwtSignInput) => ({ keyId: input.keyId, data: utf8(input.kid) }),
    (input) => Buffer.from(JSON.stringify({ fake: 'cwt', kid: input.kid, claims: input.claims })).toString('base64url'),
  );
}

/** An SdJwtSigner for tests of the core: the "credential" is base64url JSON of its input, followed by `~`. */
export function fakeSdJwtSigner(keys: KeyManager): SdJwtSigner & { inputs: SdJwtSignInput[] } {
  const { inputs, sign } = recordingSigner(
    keys,
    (input: SdJwtSignInput) => ({ keyId: input.keyId, data: utf8(input.kid ?? input.x5c?.join('.') ?? '') }),
    (input) =>
      `${Buffer.from(JSON.stringify({ fake: 'sd-jwt', kid: input.kid, x5c: input.x5c, payload: input.payload, disclosable: input.disclosable })).toString('base64url')}~`,
  );
  return { inputs, issue: sign };
}

/**
 * A StatusListTokenSigner for tests of the core: the "token" is the UTF-8 JSON of its input (the
 * statuses as base64url), signed through the KeyManager so a destroyed signer key fails as it would.
 */
export function fakeStatusListTokenSigner(keys: KeyManager): StatusListTokenSigner & { inputs: StatusListTokenInput[] } {
  return recordingSigner(
    keys,
    (input: StatusListTokenInput) => ({ keyId: input.signer.keyId, data: input.statuses }),
    ({ statuses, signer: _signer, ...rest }) => utf8(JSON.stringify({ fake: 'status-list', ...rest, statuses: base64url(statuses) })),
  );
}

/** Reads what fakeStatusListTokenSigner made. */
export function readFakeStatusListToken(token: Uint8Array): Omit<StatusListTokenInput, 'statuses' | 'signer'> & { statuses: Uint8Array } {
  const parsed = JSON.parse(new TextDecoder().decode(token)) as Record<string, unknown>;
  return { ...(parsed as Record<string, never>), statuses: new Uint8Array(Buffer.from(parsed.statuses as string, 'base64url')) } as never;
}

/** A TokenStatusListSigner for tests of the core: JSON of its input (statuses base64url), signed through the KeyManager. */
export function fakeTokenStatusListSigner(keys: KeyManager): TokenStatusListSigner & { inputs: TokenStatusListInput[] } {
  const signer = recordingSigner(
    keys,
    (input: TokenStatusListInput) => ({ keyId: input.keyId, data: input.statuses }),
    (input) => {
      const { statuses, ...rest } = input;
      const json = JSON.stringify({ fake: 'token-status-list', ...rest, statuses: base64url(statuses) });
      return input.form === 'jwt' ? json : utf8(json);
    },
  );
  return {
    ...signer,
    leafOf(_form, token) {
      try {
        const read = JSON.parse(new TextDecoder().decode(token)) as { x5c?: { x5c?: string[] } };
        return read.x5c?.x5c?.[0];
      } catch {
        return undefined;
      }
    },
  };
}

/** A RevocationListSigner for tests of the core: the unsigned fields and the statuses (base64url), signed through the KeyManager. */
export function fakeRevocationListSigner(keys: KeyManager): RevocationListSigner & { inputs: RevocationListInput[] } {
  return recordingSigner(
    keys,
    (input: RevocationListInput) => ({ keyId: input.keyId, data: input.statuses }),
    ({ statuses, ...rest }) => ({ fake: 'revocation-list', ...rest, issuedAt: rest.issuedAt.toISOString(), statuses: base64url(statuses) }),
  );
}
