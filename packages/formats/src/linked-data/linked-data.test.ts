import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { type LinkedDataProof, parseDidKey, type PublicJwk } from '@vellum/core';
import { DIF_DOMAIN_LINKAGE_CREDENTIAL as dif } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { memoryKeyManager } from '../../test/fixtures.ts';
import { canonizeJsonLd, linkedDataVerifyData } from './canonize.ts';
import { BUNDLED_CONTEXT_URLS, bundledContext } from './contexts.ts';
import { createLinkedDataSigner } from './signer.ts';

/** Checks a detached-JWS Linked Data proof the way the 2018 and 2020 JWS suites define it. */
async function verifyProof(document: Record<string, unknown> & { proof: LinkedDataProof }, jwk: PublicJwk): Promise<boolean> {
  const [header = '', payload, signature = ''] = (document.proof.jws as string).split('.');
  expect(payload).toBe('');
  const { alg, ...rest } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  expect(rest).toEqual({ b64: false, crit: ['b64'] });
  const data = Buffer.concat([Buffer.from(`${header}.`), await linkedDataVerifyData(document, document.proof)]);
  const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  return alg === 'EdDSA'
    ? verify(null, data, key, Buffer.from(signature, 'base64url'))
    : alg === 'ES256' && verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
}

const ed25519JwkOfDidKey = (did: string): PublicJwk => ({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(parseDidKey(did)!.publicKey).toString('base64url') });

async function setup() {
  const { keys, tenant } = await memoryKeyManager();
  return { keys, tenant, signer: createLinkedDataSigner({ keys }) };
}

const credential = (did: string, extraContext: string[] = []) => ({
  '@context': ['https://www.w3.org/2018/credentials/v1', 'https://identity.foundation/.well-known/did-configuration/v1', ...extraContext],
  issuer: did,
  issuanceDate: '2026-05-01T12:00:00Z',
  expirationDate: '2027-05-01T12:00:00Z',
  type: ['VerifiableCredential', 'DomainLinkageCredential'],
  credentialSubject: { id: did, origin: 'https://acme.example.com' },
});

describe('JSON-LD canonicalisation (RDFC-1.0 / URDNA2015) with bundled contexts', () => {
  it('reproduces what DIF signed: the example domain linkage credential of the Well Known DID Configuration verifies', async () => {
    const signed = dif.credential as unknown as Record<string, unknown> & { proof: LinkedDataProof };
    expect(await verifyProof(signed, ed25519JwkOfDidKey(dif.publicKeyOf))).toBe(true);
    const tampered = { ...signed, credentialSubject: { ...(signed.credentialSubject as object), origin: 'https://evil.example' } };
    expect(await verifyProof(tampered, ed25519JwkOfDidKey(dif.publicKeyOf))).toBe(false);
  });

  it('writes canonical N-Quads with blank nodes named c14n and sorted lines', async () => {
    const nquads = await canonizeJsonLd(credential('did:key:z6MkoTHsgNNrby8JzCNQ1iRLyW5QQ6R8Xuu6AA8igGrMVPUM'));
    const lines = nquads.trim().split('\n');
    expect(lines).toEqual([...lines].sort());
    expect(nquads).toContain(
      '_:c14n0 <https://www.w3.org/2018/credentials#issuanceDate> "2026-05-01T12:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .',
    );
    expect(nquads).toContain('<https://identity.foundation/.well-known/resources/did-configuration/#origin> "https://acme.example.com"');
  });

  it('never fetches: an unknown context is an error, and so is a term no context defines', async () => {
    await expect(canonizeJsonLd({ '@context': 'https://example.com/unknown/v1', a: 1 })).rejects.toThrow(/not bundled/);
    await expect(canonizeJsonLd({ ...credential('did:key:z6Mk'), favouriteColour: 'blue' })).rejects.toThrow(/favouriteColour/);
    await expect(canonizeJsonLd({ ...credential('did:key:z6Mk'), issuer: 'not-absolute' })).rejects.toThrow(/relative IRI not-absolute/);
  });

  it('bundles the contexts it signs with, as copies a caller cannot change', () => {
    expect([...BUNDLED_CONTEXT_URLS].sort()).toEqual([
      'https://identity.foundation/.well-known/did-configuration/v1',
      'https://w3id.org/security/suites/ed25519-2018/v1',
      'https://w3id.org/security/suites/ed25519-2020/v1',
      'https://w3id.org/security/suites/jws-2020/v1',
      'https://w3id.org/vc-revocation-list-2020/v1',
      'https://www.w3.org/2018/credentials/v1',
    ]);
    const copy = bundledContext('https://www.w3.org/2018/credentials/v1')!;
    copy['@context'] = null;
    expect(bundledContext('https://www.w3.org/2018/credentials/v1')!['@context']).not.toBeNull();
    expect(bundledContext('https://www.w3.org/ns/did/v1')).toBeUndefined();
  });
});

describe('the Linked Data signer (KeyManager keys; Ed25519Signature2018 and JsonWebSignature2020)', () => {
  it('signs with Ed25519Signature2018: a detached EdDSA JWS over the canonical proof options and document', async () => {
    const { keys, tenant, signer } = await setup();
    const key = await keys.create(tenant.id, 'Ed25519');
    const did = 'did:key:z6MkExample';
    const signed = await signer.sign({
      tenantId: tenant.id,
      keyId: key.id,
      type: 'Ed25519Signature2018',
      verificationMethod: `${did}#k`,
      proofPurpose: 'assertionMethod',
      created: '2026-05-01T12:00:00Z',
      document: credential(did),
    });
    expect(signed['@context']).toEqual(credential(did)['@context']);
    expect(signed.proof).toEqual({
      type: 'Ed25519Signature2018',
      created: '2026-05-01T12:00:00Z',
      verificationMethod: `${did}#k`,
      proofPurpose: 'assertionMethod',
      jws: expect.stringMatching(/^eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19\.\./),
    });
    expect(await verifyProof(signed, key.publicJwk)).toBe(true);
    // Every signed statement is covered: changing any of them breaks the signature.
    expect(await verifyProof({ ...signed, expirationDate: '2099-01-01T00:00:00Z' }, key.publicJwk)).toBe(false);
    expect(await verifyProof({ ...signed, proof: { ...signed.proof, proofPurpose: 'authentication' } }, key.publicJwk)).toBe(false);
  });

  it('signs with JsonWebSignature2020 and ES256 for a P-256 key, adding the suite’s context when missing', async () => {
    const { keys, tenant, signer } = await setup();
    const key = await keys.create(tenant.id, 'P-256');
    const signed = await signer.sign({
      tenantId: tenant.id,
      keyId: key.id,
      type: 'JsonWebSignature2020',
      verificationMethod: 'did:key:zDnExample#k',
      proofPurpose: 'assertionMethod',
      created: '2026-05-01T12:00:00Z',
      document: credential('did:key:zDnExample'),
    });
    expect(signed['@context']).toEqual([...credential('x')['@context'], 'https://w3id.org/security/suites/jws-2020/v1']);
    expect(JSON.parse(Buffer.from((signed.proof.jws as string).split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'ES256', b64: false, crit: ['b64'] });
    expect(await verifyProof(signed, key.publicJwk)).toBe(true);
  });

  it('refuses a destroyed key with NotFound, and a suite the key cannot make', async () => {
    const { keys, tenant, signer } = await setup();
    const p256 = await keys.create(tenant.id, 'P-256');
    const input = {
      tenantId: tenant.id,
      keyId: p256.id,
      verificationMethod: 'did:x:y#k',
      proofPurpose: 'assertionMethod' as const,
      created: '2026-05-01T12:00:00Z',
      document: credential('did:x:y'),
    };
    await expect(signer.sign({ ...input, type: 'Ed25519Signature2018' })).rejects.toThrow(/needs an Ed25519 key/);
    await expect(signer.sign({ ...input, type: 'JsonWebSignature2020', document: { ...input.document, proof: {} } })).rejects.toThrow(/already has a proof/);
    await keys.destroy(tenant.id, p256.id);
    await expect(signer.sign({ ...input, type: 'JsonWebSignature2020' })).rejects.toMatchObject({ code: 'NotFound' });
  });
});
