import { describe, expect, it } from 'vitest';
import type { PublicJwk } from '../keys/model.ts';
import type { HttpClient, OutboundFetch } from '../shared/ports.ts';
import { didKeyOf } from './did-key.ts';
import { createDidResolver, DID_WEB_LIMITS, didWebDocumentUrl, keyInDocument } from './resolver.ts';

const ED: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: Buffer.alloc(32, 9).toString('base64url') };
const WEB = 'did:web:issuer.example%3A8443:tenants:acme';

describe('did:web and did:key resolution for verifying', () => {
  it('maps a did:web to its https document URL, port and path included, and refuses malformed ones', () => {
    expect(didWebDocumentUrl('did:web:issuer.example')).toBe('https://issuer.example/.well-known/did.json');
    expect(didWebDocumentUrl(WEB)).toBe('https://issuer.example:8443/tenants/acme/did.json');
    for (const bad of ['did:web:', 'did:web:a b', 'did:web:x:..', 'did:web:x:.well-known', 'did:web:x#k', 'did:web:user@x', 'did:key:z6Mk'])
      expect(didWebDocumentUrl(bad)).toBeUndefined();
  });

  it('finds only a key the document authorises for the relationship', () => {
    const document = {
      id: WEB,
      verificationMethod: [
        { id: '#k1', type: 'JsonWebKey2020', controller: WEB, publicKeyJwk: ED },
        { id: `${WEB}#k2`, type: 'JsonWebKey2020', controller: WEB, publicKeyJwk: ED },
      ],
      assertionMethod: ['#k1'],
      authentication: [`${WEB}#k2`],
    };
    expect(keyInDocument(document, WEB, `${WEB}#k1`, 'assertionMethod')).toEqual({ ok: true, jwk: ED, verificationMethod: `${WEB}#k1` });
    expect(keyInDocument(document, WEB, `${WEB}#k2`, 'assertionMethod').ok).toBe(false);
    expect(keyInDocument(document, WEB, WEB, 'assertionMethod').ok).toBe(true);
    expect(keyInDocument({ ...document, id: 'did:web:evil.example' }, WEB, `${WEB}#k1`, 'assertionMethod').ok).toBe(false);
  });

  it('fetches a did:web through the port with bounds, caches it, and refuses what is not its document', async () => {
    const requests: OutboundFetch[] = [];
    let body: unknown = { id: WEB, verificationMethod: [{ id: '#k1', publicKeyMultibase: didKeyOf(ED).slice(8) }], assertionMethod: ['#k1'] };
    const http = {
      async fetch(request: OutboundFetch) {
        requests.push(request);
        return { status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify(body)) };
      },
    } as unknown as HttpClient;
    let now = new Date('2026-06-01T12:00:00Z');
    const resolver = createDidResolver({ http, clock: { now: () => now } });
    expect(await resolver.resolveKey(`${WEB}#k1`, 'assertionMethod')).toEqual({ ok: true, jwk: ED, verificationMethod: `${WEB}#k1` });
    expect(await resolver.resolveKey(`${WEB}#k1`, 'assertionMethod')).toMatchObject({ ok: true });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      method: 'GET',
      url: 'https://issuer.example:8443/tenants/acme/did.json',
      timeoutMs: DID_WEB_LIMITS.timeoutMs,
      maxBytes: DID_WEB_LIMITS.maxBytes,
    });
    body = { id: 'did:web:other.example' };
    now = new Date(now.getTime() + DID_WEB_LIMITS.cacheSeconds * 1000 + 1);
    expect(await resolver.resolveKey(`${WEB}#k1`, 'assertionMethod')).toEqual({ ok: false, reason: 'The DID document has another id than the DID' });
    // did:key needs no fetch; other methods are refused.
    const did = didKeyOf(ED);
    expect(await resolver.resolveKey(`${did}#${did.slice(8)}`, 'authentication')).toMatchObject({ ok: true, jwk: ED });
    expect((await resolver.resolveKey(`${did}#other`, 'authentication')).ok).toBe(false);
    expect((await resolver.resolveKey('did:ion:abc', 'authentication')).ok).toBe(false);
    expect(requests).toHaveLength(2);
    expect((await createDidResolver({ clock: { now: () => now } }).resolveKey(`${WEB}#k1`, 'assertionMethod')).ok).toBe(false);
  });
});
