import { generateKeyPairSync, sign } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { PublicJwk } from '@vellum/core';
import { createDocumentSignerCertificate, createIacaCertificate } from '@vellum/crypto';
import { describe, expect, it } from 'vitest';
import { memoryKeyManager } from '../../test/fixtures.ts';
import { loadCoseTs } from '../cwt/independent-cose.ts';
import { createStatusListTokenSigner } from '../status-list/status-list-token.ts';
import { createMdocReader } from './read.ts';

// The reader of status list CWTs a verifier fetches (docs/verification.md "Status while verifying"):
// tokens from Vellum's own signer (both profiles) and one signed with @ldclabs/cose-ts, which Vellum
// does not sign with.
const cose = await loadCoseTs();
const reader = createMdocReader();
const NOW = new Date('2026-06-01T00:00:00Z');
const DAY = 86_400_000;
const URI = 'https://issuer.example/v2/credentials/mobile/status-lists/1/token';

function p256() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    secret: Buffer.from(privateKey.export({ format: 'jwk' }).d as string, 'base64url'),
    publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string } satisfies PublicJwk,
    sign: async (data: Uint8Array) => new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
  };
}

/** A document signer certificate for `subject` under a fresh IACA (DER). */
async function certificateFor(subject: PublicJwk): Promise<Uint8Array> {
  const iacaKey = p256();
  const common = { country: 'US', issuerAlternativeName: 'mailto:pki@example.org', crlDistributionPointUri: 'https://example.org/crl' };
  const iaca = await createIacaCertificate({ key: iacaKey, commonName: 'IACA', notBefore: NOW, notAfter: new Date(NOW.getTime() + 365 * DAY), ...common });
  const signer = await createDocumentSignerCertificate({
    iaca: { certificateDer: iaca.der, key: iacaKey },
    subjectPublicJwk: subject,
    commonName: 'DS',
    notBefore: NOW,
    notAfter: new Date(NOW.getTime() + 30 * DAY),
    ...common,
  });
  return new Uint8Array(signer.der);
}

describe('createMdocReader().readStatusList (draft-ietf-oauth-status-list §5.2)', () => {
  it('reads Vellum’s draft 14 and legacy tokens: typ, x5chain, a signature that verifies, and the claims of each profile', async () => {
    const { keys, tenant } = await memoryKeyManager();
    const key = await keys.create(tenant.id, 'P-256');
    const der = await certificateFor(key.publicJwk);
    const signer = createStatusListTokenSigner({ keys });
    for (const format of ['draft-14', 'legacy'] as const) {
      const bits = format === 'legacy' ? 2 : 1;
      const token = await signer.sign({
        tenantId: tenant.id,
        format,
        uri: URI,
        issuedAt: NOW,
        expiresAt: new Date(NOW.getTime() + DAY),
        ttlSeconds: 600,
        bits,
        statuses: Uint8Array.of(0b100),
        signer: { keyId: key.id, x5chain: [der] },
      });
      const read = reader.readStatusList(token);
      if (!read.ok) throw new Error(read.reason);
      expect(read.typ).toBe(format === 'legacy' ? 'mattr-statuslist+cwt' : 'application/statuslist+cwt');
      expect(read.x5chain).toEqual([der]);
      expect(read.signature).toEqual({ valid: true });
      expect(read.claims).toMatchObject({ sub: URI, bits, exp: NOW.getTime() / 1000 + 86_400, ttl: 600 });
      expect(read.claims.lst).toBeInstanceOf(Uint8Array);
    }
  });

  it('verifies a token signed with @ldclabs/cose-ts under its signer certificate, and finds a changed byte', async () => {
    const holder = p256();
    const der = await certificateFor(holder.publicJwk);
    const key = cose.ECDSAKey.fromSecret(holder.secret);
    const lst = new Uint8Array(deflateSync(Uint8Array.of(0, 1)));
    const claims = new Map<number, unknown>([
      [2, URI],
      [6, 1_780_000_000],
      [4, 1_780_086_400],
      [65534, 300],
      [
        65533,
        new Map<string, unknown>([
          ['bits', 1],
          ['lst', lst],
        ]),
      ],
    ]);
    const protectedHeader = new cose.Header(
      new Map<number, unknown>([
        [1, -7],
        [16, 'application/statuslist+cwt'],
      ]) as never,
    );
    const unprotected = new cose.Header(new Map<number, unknown>([[33, der]]) as never);
    const token = cose.Sign1Message.withTag(new cose.Sign1Message(cose.encodeCBOR(claims), protectedHeader, unprotected).toBytes(key));
    const read = reader.readStatusList(token);
    if (!read.ok) throw new Error(read.reason);
    expect(read.signature).toEqual({ valid: true });
    expect(read.claims).toEqual({ sub: URI, bits: 1, lst, exp: 1_780_086_400, ttl: 300 });
    const changed = new Uint8Array(token);
    changed[changed.length - 1] = (changed[changed.length - 1] as number) ^ 1;
    const tampered = reader.readStatusList(changed);
    expect(tampered.ok && tampered.signature.valid).toBe(false);
  });

  it('answers ok false with a reason for what is not a status list token, never a throw', () => {
    expect(reader.readStatusList(Uint8Array.of(0xff))).toEqual({ ok: false, reason: 'The status list is not valid CBOR' });
    expect(reader.readStatusList(Uint8Array.of(0x80))).toEqual({ ok: false, reason: 'The status list is not a COSE_Sign1' });
  });
});
