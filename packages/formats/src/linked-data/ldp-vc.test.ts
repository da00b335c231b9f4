import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { base58btcDecode, didKeyOf, type PublicJwk } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { ed25519Issuer, ISSUED, tamperProof } from '../../test/linked-data.ts';
import { canonizeJsonLd, linkedDataVerifyData } from './canonize.ts';
import { bundledContext } from './contexts.ts';
import { independentContext, verifyWithDigitalBazaar } from './independent-verifier.ts';

const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
const ED25519_2020_V1 = 'https://w3id.org/security/suites/ed25519-2020/v1';
// The claim vocabulary every Vellum ldp_vc credential ends its @context with: terms no other
// context defines (the configuration's type, its claims, the legacy issuer and branding members)
// expand to https://schema.org/ IRIs without fetching anything.
const VOCAB = { '@vocab': 'https://schema.org/' };
const NOW = new Date('2026-06-01T00:00:00Z');

type Shape = 'current' | 'legacy';

/** A credential as the ldp_vc handler builds it (docs/formats/ldp-vc.md): the current shape, or the legacy one with the issuer object, branding, name and description. */
function credentialOf(shape: Shape, issuerDid: string, holderDid: string): Record<string, unknown> {
  const common = {
    '@context': [CREDENTIALS_V1, VOCAB],
    id: 'urn:uuid:3f1c2a9e-7a51-4c1e-9d2b-5b8e0c6f4a10',
    type: ['VerifiableCredential', 'UniversityDegreeCredential'],
    issuanceDate: ISSUED,
    expirationDate: '2027-05-01T12:00:00Z',
    credentialSubject: { id: holderDid, givenName: 'Susan', familyName: 'Turner', degree: 'BSc Physics', graduationYear: 2024 },
  };
  if (shape === 'current') return { ...common, issuer: issuerDid };
  return {
    ...common,
    issuer: { id: issuerDid, name: 'Acme University', logoUrl: 'https://acme.example/logo.png', iconUrl: 'https://acme.example/icon.png' },
    credentialBranding: { backgroundColor: '#1a2b3c', watermarkImageUrl: 'https://acme.example/watermark.png' },
    name: 'University degree',
    description: 'A bachelor degree awarded by Acme University',
  };
}

describe('ldp_vc: W3C VC Data Model 1.1 credentials signed by KeyManager keys verify with @digitalbazaar/vc', () => {
  for (const type of ['Ed25519Signature2018', 'Ed25519Signature2020'] as const) {
    for (const shape of ['current', 'legacy'] as const) {
      it(`${type}, ${shape} shape (docs/formats/ldp-vc.md): verifies, and a one-byte change to a claim or to the proof fails`, async () => {
        const { key, did, holderDid, sign } = await ed25519Issuer();
        const signed = await sign(type, credentialOf(shape, did, holderDid));
        expect(signed.proof).toMatchObject({
          type,
          created: ISSUED,
          verificationMethod: `${did}#${did.slice('did:key:'.length)}`,
          proofPurpose: 'assertionMethod',
        });
        const verdict = await verifyWithDigitalBazaar(signed, key.publicJwk, NOW);
        expect(verdict.error).toBeUndefined();
        expect(verdict.verified).toBe(true);

        const subject = signed.credentialSubject as Record<string, unknown>;
        const claimChanged = { ...signed, credentialSubject: { ...subject, givenName: 'Susao' } };
        expect(await verifyWithDigitalBazaar(claimChanged, key.publicJwk, NOW)).toMatchObject({
          verified: false,
          error: expect.stringMatching(/Invalid signature/),
        });
        const proofChanged = { ...signed, proof: tamperProof(signed.proof) };
        expect((await verifyWithDigitalBazaar(proofChanged, key.publicJwk, NOW)).verified).toBe(false);
        if (shape === 'legacy') {
          // The members only the legacy shape has are signed too.
          const renamed = { ...signed, issuer: { ...(signed.issuer as object), name: 'Acme Universitz' } };
          expect((await verifyWithDigitalBazaar(renamed, key.publicJwk, NOW)).verified).toBe(false);
          const rebranded = { ...signed, credentialBranding: { ...(signed.credentialBranding as object), backgroundColor: '#1a2b3d' } };
          expect((await verifyWithDigitalBazaar(rebranded, key.publicJwk, NOW)).verified).toBe(false);
        }
      });
    }
  }

  it('the verifier is not a pushover: a proof checked against another key fails', async () => {
    const { keys, tenant, did, holderDid, sign } = await ed25519Issuer();
    const signed = await sign('Ed25519Signature2020', credentialOf('current', did, holderDid));
    const other = await keys.create(tenant.id, 'Ed25519');
    expect((await verifyWithDigitalBazaar(signed, other.publicJwk, NOW)).verified).toBe(false);
  });

  it('an Ed25519Signature2020 proof also verifies against the Ed25519VerificationKey2018 that Vellum’s DID documents publish', async () => {
    const { key, did, holderDid, sign } = await ed25519Issuer();
    const signed = await sign('Ed25519Signature2020', credentialOf('legacy', did, holderDid));
    expect(await verifyWithDigitalBazaar(signed, key.publicJwk, NOW, 'Ed25519VerificationKey2018')).toEqual({ verified: true });
  });
});

describe('Ed25519Signature2020 (W3C CCG Ed25519 Signature 2020)', () => {
  it('writes proofValue as multibase base58btc of the raw Ed25519 signature of SHA-256(proof options) ‖ SHA-256(document), with no JWS', async () => {
    const { key, did, holderDid, sign } = await ed25519Issuer();
    const signed = await sign('Ed25519Signature2020', credentialOf('current', did, holderDid));
    expect(Object.keys(signed.proof).sort()).toEqual(['created', 'proofPurpose', 'proofValue', 'type', 'verificationMethod']);
    const proofValue = signed.proof.proofValue as string;
    expect(proofValue).toMatch(/^z[1-9A-HJ-NP-Za-km-z]+$/);
    const signature = base58btcDecode(proofValue.slice(1)) as Uint8Array;
    expect(signature).toHaveLength(64);
    const data = await linkedDataVerifyData(signed, signed.proof);
    expect(verify(null, data, createPublicKey({ key: key.publicJwk as JsonWebKey, format: 'jwk' }), signature)).toBe(true);
  });

  it('adds the suite context, which credentials v1 does not define, after the document’s own contexts, once; the 2018 suite adds none', async () => {
    const { did, holderDid, sign } = await ed25519Issuer();
    const unsigned = credentialOf('current', did, holderDid);
    expect((await sign('Ed25519Signature2020', unsigned))['@context']).toEqual([CREDENTIALS_V1, VOCAB, ED25519_2020_V1]);
    expect((await sign('Ed25519Signature2018', unsigned))['@context']).toEqual([CREDENTIALS_V1, VOCAB]);
    const already = { ...unsigned, '@context': [CREDENTIALS_V1, ED25519_2020_V1, VOCAB] };
    expect((await sign('Ed25519Signature2020', already))['@context']).toEqual([CREDENTIALS_V1, ED25519_2020_V1, VOCAB]);
  });

  it('needs an Ed25519 key', async () => {
    const { keys, tenant, signer, did, holderDid } = await ed25519Issuer();
    const p256 = await keys.create(tenant.id, 'P-256');
    const input = {
      tenantId: tenant.id,
      keyId: p256.id,
      type: 'Ed25519Signature2020' as const,
      verificationMethod: `${did}#k`,
      proofPurpose: 'assertionMethod' as const,
      created: ISSUED,
      document: credentialOf('current', did, holderDid),
    };
    await expect(signer.sign(input)).rejects.toThrow(/Ed25519Signature2020 needs an Ed25519 key/);
  });
});

describe('claim terms: an embedded { "@vocab": "https://schema.org/" } ends the @context (JSON-LD 1.1 §4.1.2)', () => {
  it('expands the type, the claims and the legacy-only members under credentials v1’s protected terms, with the strict parser', async () => {
    const nquads = await canonizeJsonLd(credentialOf('legacy', 'did:key:z6MkIssuer', 'did:key:zDnHolder'));
    for (const term of [
      'givenName',
      'graduationYear',
      'name',
      'logoUrl',
      'iconUrl',
      'credentialBranding',
      'backgroundColor',
      'watermarkImageUrl',
      'description',
    ]) {
      expect(nquads).toContain(`<https://schema.org/${term}>`);
    }
    expect(nquads).toContain('<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://schema.org/UniversityDegreeCredential>');
    // The terms credentials v1 defines keep their meaning: @vocab only reaches undefined terms.
    expect(nquads).toContain('<https://www.w3.org/2018/credentials#issuer> <did:key:z6MkIssuer>');
    expect(nquads).toContain('<https://www.w3.org/2018/credentials#credentialSubject> <did:key:zDnHolder>');
  });

  it('refuses what JSON-LD would drop unsigned from a claim value: a `_:` member, an `@`-name that is no keyword', async () => {
    const withClaim = (claim: Record<string, unknown>) => {
      const credential = credentialOf('current', 'did:key:z6MkIssuer', 'did:key:zDnHolder');
      return { ...credential, credentialSubject: { ...(credential.credentialSubject as object), ...claim } };
    };
    await expect(canonizeJsonLd(withClaim({ '_:hidden': 'x' }))).rejects.toThrow(/credentialSubject\._:hidden would be left out/);
    await expect(canonizeJsonLd(withClaim({ address: [{ '@street': 'x' }] }))).rejects.toThrow(/address\[0\]\.@street would be left out/);
  });

  it('is what makes such a credential signable: without it the strict parser refuses the undefined claim', async () => {
    const credential = { ...credentialOf('current', 'did:key:z6MkIssuer', 'did:key:zDnHolder'), '@context': [CREDENTIALS_V1] };
    await expect(canonizeJsonLd(credential)).rejects.toThrow(/UniversityDegreeCredential|givenName/);
  });
});

describe('the bundled contexts', () => {
  it('equal Digital Bazaar’s copies of the published credentials v1 and Ed25519 2018/2020 suite contexts', async () => {
    for (const url of [CREDENTIALS_V1, 'https://w3id.org/security/suites/ed25519-2018/v1', ED25519_2020_V1]) {
      expect(bundledContext(url), url).toEqual(await independentContext(url));
    }
  });
});

// Guard against a test helper that would accept anything: Vellum's did:key of the key is the one
// Digital Bazaar's key class derives.
it('did:key derivation agrees with Digital Bazaar (W3C CCG did:key)', async () => {
  const { key, did } = await ed25519Issuer();
  expect(didKeyOf(key.publicJwk as PublicJwk)).toBe(did);
});
