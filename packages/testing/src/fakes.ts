import type { Clock, DnsResolver, Ids, SecretHasher, TokenSigner, TxtLookup } from '@vellum/core';

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
  };
}

/** A reversible stand-in for a slow hash, for unit tests of the core only. */
export function fakeHasher(): SecretHasher {
  return {
    hash: async (secret) => `fake$${secret}`,
    verify: async (secret, hash) => hash === `fake$${secret}`,
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
