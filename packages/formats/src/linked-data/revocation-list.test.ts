import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Bitstring } from '@digitalbazaar/bitstring';
import { type LinkedDataProof, packStatuses } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { BASE64URL, changeOneCharacter, ed25519Issuer, ISSUED, tamperProof } from '../../test/linked-data.ts';
import { canonizeJsonLd } from './canonize.ts';
import { bundledContext } from './contexts.ts';
import { independentContext, revocationList2020Check, type RevocationCheckVerdict, verifyWithDigitalBazaar } from './independent-verifier.ts';
import { createRevocationListSigner, MINIMUM_LIST_BITS, revocationBitstring } from './revocation-list.ts';

const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
const RL_2020_V1 = 'https://w3id.org/vc-revocation-list-2020/v1';
const ED25519_2020_V1 = 'https://w3id.org/security/suites/ed25519-2020/v1';
const RL = 'https://w3id.org/vc-revocation-list-2020#';
const VOCAB = { '@vocab': 'https://schema.org/' };
const LIST_URL = 'https://acme.example/v2/credentials/web-semantic/revocation-lists/5f0c6a8e-2b1d-4c7e-9a3f-1d2e3f4a5b6c';
// Milliseconds on purpose: the list credential is dated at whole seconds.
const ISSUED_AT = new Date('2026-05-01T12:00:00.789Z');
const NOW = new Date('2026-06-01T00:00:00Z');

/** An Ed25519 issuer (ed25519Issuer) that also signs revocation lists. */
async function setup() {
  const ctx = await ed25519Issuer();
  const { keys, tenant, key, did, verificationMethod } = ctx;
  const lists = createRevocationListSigner({ keys });
  const signList = (proofType: 'Ed25519Signature2018' | 'Ed25519Signature2020', size: number, revoked: readonly number[], issuer = did) =>
    lists.sign({
      tenantId: tenant.id,
      keyId: key.id,
      verificationMethod,
      issuer,
      proofType,
      url: LIST_URL,
      issuedAt: ISSUED_AT,
      // Packed by the core's own packer, as the status list service hands it over.
      statuses: packStatuses(
        size,
        1,
        revoked.map((idx) => ({ idx, status: 'invalid' as const })),
      ),
      size,
    });
  return { ...ctx, signList };
}

/** The credentialStatus the core's ldp_vc handler writes (Revocation List 2020, RevocationList2020Status). */
const statusOf = (idx: number) => ({
  id: `${LIST_URL}#${idx}`,
  type: 'RevocationList2020Status',
  revocationListIndex: String(idx),
  revocationListCredential: LIST_URL,
});

/**
 * A revocable ldp_vc credential as the core builds it: credentials v1, the revocation list
 * context, the claim vocabulary; the issuer a DID (current shape) or an object (legacy shape).
 */
function revocableCredential(shape: 'current' | 'legacy', issuer: string, holderDid: string, idx: number): Record<string, unknown> {
  return {
    '@context': [CREDENTIALS_V1, RL_2020_V1, VOCAB],
    id: 'urn:uuid:0b7e2f4a-6c1d-4e8f-9a2b-3c4d5e6f7a8b',
    type: ['VerifiableCredential', 'UniversityDegreeCredential'],
    issuer: shape === 'current' ? issuer : { id: issuer, name: 'Acme University' },
    issuanceDate: ISSUED,
    expirationDate: '2027-05-01T12:00:00Z',
    credentialSubject: { id: holderDid, givenName: 'Susan', degree: 'BSc Physics' },
    credentialStatus: statusOf(idx),
  };
}

const subjectOf = (credential: Record<string, unknown>) => credential.credentialSubject as { id: string; type: string; encodedList: string };

/** The list as a relying party reads it: decoded and indexed by @digitalbazaar/bitstring, its default (left to right) bit order. */
async function decodeWithDigitalBazaar(encodedList: string): Promise<Bitstring> {
  return new Bitstring({ buffer: await Bitstring.decodeBits({ encoded: encodedList }) });
}

describe('RevocationList2020 credentials (W3C CCG Revocation List 2020) signed by a KeyManager Ed25519 key', () => {
  const cases = [
    { size: 16_384, revoked: [5, 16_383] },
    { size: 100_000, revoked: [5, 99_999] },
    // The core's list size (docs/limits.md), past the 16KB minimum of Revocation List 2020: nothing is padded.
    { size: 500_000, revoked: [5, 99_999, 499_999] },
  ];
  for (const proofType of ['Ed25519Signature2018', 'Ed25519Signature2020'] as const) {
    for (const { size, revoked } of cases) {
      it(`${proofType}, ${size.toLocaleString('en')} entries, ${revoked.join(', ')} revoked: verifies with @digitalbazaar/vc, and @digitalbazaar/bitstring reads exactly those bits set`, async () => {
        const { key, did, verificationMethod, signList } = await setup();
        const list = await signList(proofType, size, revoked);

        expect(list).toEqual({
          '@context': proofType === 'Ed25519Signature2020' ? [CREDENTIALS_V1, RL_2020_V1, ED25519_2020_V1] : [CREDENTIALS_V1, RL_2020_V1],
          id: LIST_URL,
          type: ['VerifiableCredential', 'RevocationList2020Credential'],
          issuer: did,
          issuanceDate: ISSUED,
          credentialSubject: { id: `${LIST_URL}#list`, type: 'RevocationList2020', encodedList: expect.stringMatching(/^[A-Za-z0-9_-]+$/) },
          proof: expect.objectContaining({ type: proofType, created: ISSUED, verificationMethod, proofPurpose: 'assertionMethod' }),
        });
        expect(await verifyWithDigitalBazaar(list, key.publicJwk, NOW)).toEqual({ verified: true });

        const { encodedList } = subjectOf(list);
        // A GZIP member (RFC 1952 §2.3.1: ID1 ID2 and CM 8, deflate) behind the base64url.
        expect([...Buffer.from(encodedList, 'base64url').subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]);
        const bits = await decodeWithDigitalBazaar(encodedList);
        expect(bits.length).toBe(Math.max(size, MINIMUM_LIST_BITS));
        for (const idx of revoked) {
          expect(bits.get(idx), `bit ${idx}`).toBe(true);
          if (idx > 0) expect(bits.get(idx - 1), `bit ${idx - 1}`).toBe(false);
          if (idx + 1 < bits.length) expect(bits.get(idx + 1), `bit ${idx + 1}`).toBe(false);
        }
        // Every other bit of the list, and of any padding, is clear.
        const set: number[] = [];
        for (let i = 0; i < bits.length; i++) if (bits.get(i)) set.push(i);
        expect(set).toEqual(revoked);

        // One changed character of the list, or of the signature, and it no longer verifies.
        const listChanged = { ...list, credentialSubject: { ...subjectOf(list), encodedList: changeOneCharacter(encodedList, 20, BASE64URL) } };
        expect(await verifyWithDigitalBazaar(listChanged, key.publicJwk, NOW)).toMatchObject({
          verified: false,
          error: expect.stringMatching(/Invalid signature/),
        });
        expect((await verifyWithDigitalBazaar({ ...list, proof: tamperProof(list.proof as LinkedDataProof) }, key.publicJwk, NOW)).verified).toBe(false);
      });
    }
  }

  it('the list’s terms come from the revocation list context (no vocabulary guesses them), and expand to its IRIs', async () => {
    const { signList } = await setup();
    const list = await signList('Ed25519Signature2018', 16_384, [5]);
    const { proof: _proof, ...unsigned } = list;
    const nquads = await canonizeJsonLd(unsigned);
    expect(nquads).toContain(`<${LIST_URL}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${RL}RevocationList2020Credential> .`);
    expect(nquads).toContain(`<${LIST_URL}#list> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${RL}RevocationList2020> .`);
    expect(nquads).toContain(`<${LIST_URL}#list> <${RL}encodedList> "${subjectOf(list).encodedList}" .`);
  });

  it('a verifier that is not a pushover: the list checked against another key fails', async () => {
    const { keys, tenant, signList } = await setup();
    const list = await signList('Ed25519Signature2018', 16_384, [5]);
    const other = await keys.create(tenant.id, 'Ed25519');
    expect((await verifyWithDigitalBazaar(list, other.publicJwk, NOW)).verified).toBe(false);
  });
});

describe('the credential side: credentialStatus { id, type RevocationList2020Status, revocationListIndex, revocationListCredential }', () => {
  const variants = [
    { proofType: 'Ed25519Signature2018', shape: 'current' },
    { proofType: 'Ed25519Signature2020', shape: 'current' },
    { proofType: 'Ed25519Signature2018', shape: 'legacy' },
  ] as const;
  for (const { proofType, shape } of variants) {
    it(`${proofType}, ${shape} shape: signs, verifies with @digitalbazaar/vc, and a Revocation List 2020 check over the signed list finds 5 and 99,999 revoked, 6 not`, async () => {
      const { key, did, holderDid, signList, sign } = await setup();
      const list = await signList('Ed25519Signature2018', 100_000, [5, 99_999]);
      const lists = new Map([[LIST_URL, list]]);
      const check = async (credential: Record<string, unknown>) => {
        const verdicts: RevocationCheckVerdict[] = [];
        const result = await verifyWithDigitalBazaar(credential, key.publicJwk, NOW, undefined, revocationList2020Check(lists, key.publicJwk, NOW, verdicts));
        return { result, verdicts };
      };
      const checkAgainst = async (listCredential: Record<string, unknown>, credential: Record<string, unknown>) => {
        const verdicts: RevocationCheckVerdict[] = [];
        const { verified } = await verifyWithDigitalBazaar(
          credential,
          key.publicJwk,
          NOW,
          undefined,
          revocationList2020Check(new Map([[LIST_URL, listCredential]]), key.publicJwk, NOW, verdicts),
        );
        return { verified, verdict: verdicts[0] };
      };

      const valid = await sign(proofType, revocableCredential(shape, did, holderDid, 6));
      expect(valid.credentialStatus).toEqual(statusOf(6));
      expect(await check(valid)).toEqual({ result: { verified: true }, verdicts: [{ list: { verified: true }, index: 6, revoked: false }] });
      for (const idx of [5, 99_999]) {
        const revoked = await sign(proofType, revocableCredential(shape, did, holderDid, idx));
        // The proof holds, the list verifies, and the bit says revoked: it fails for that reason alone.
        expect(await check(revoked)).toEqual({
          result: { verified: false, error: expect.any(String) },
          verdicts: [{ list: { verified: true }, index: idx, revoked: true }],
        });
      }

      // The status entry is signed: pointing the credential at another index breaks the proof
      // (and the status is never looked at).
      const moved = { ...valid, credentialStatus: { ...statusOf(6), revocationListIndex: '7' } };
      expect(await check(moved)).toEqual({ result: { verified: false, error: expect.stringMatching(/Invalid signature/) }, verdicts: [] });
      expect((await check({ ...valid, proof: tamperProof(valid.proof) })).result.verified).toBe(false);
      // A list changed by one character no longer vouches for anything.
      const forged = { ...list, credentialSubject: { ...subjectOf(list), encodedList: changeOneCharacter(subjectOf(list).encodedList, 20, BASE64URL) } };
      expect(await checkAgainst(forged, valid)).toEqual({
        verified: false,
        verdict: { index: 6, list: { verified: false, error: expect.stringMatching(/Invalid signature/) }, problem: expect.stringMatching(/does not verify/) },
      });
      // Nor does a list, signed by the same key, that names another issuer: @digitalbazaar/vc
      // holds the issuer to the key's controller (its CredentialIssuancePurpose).
      const othersList = await signList('Ed25519Signature2018', 100_000, [], 'did:web:other.example');
      expect(await checkAgainst(othersList, valid)).toEqual({
        verified: false,
        verdict: {
          index: 6,
          list: { verified: false, error: expect.stringMatching(/issuer must match the verification method controller/) },
          problem: expect.stringMatching(/does not verify/),
        },
      });
    });
  }

  it('its terms are defined by the revocation list context: with credentials v1 and that context alone the strict parser expands them to its IRIs', async () => {
    const credential = {
      '@context': [CREDENTIALS_V1, RL_2020_V1],
      id: 'urn:uuid:0b7e2f4a-6c1d-4e8f-9a2b-3c4d5e6f7a8b',
      type: ['VerifiableCredential'],
      issuer: 'did:key:z6MkIssuer',
      issuanceDate: ISSUED,
      credentialSubject: { id: 'did:key:zDnHolder' },
      credentialStatus: statusOf(5),
    };
    const nquads = await canonizeJsonLd(credential);
    expect(nquads).toContain(`<https://www.w3.org/2018/credentials#credentialStatus> <${LIST_URL}#5>`);
    expect(nquads).toContain(`<${LIST_URL}#5> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${RL}RevocationList2020Status> .`);
    expect(nquads).toContain(`<${LIST_URL}#5> <${RL}revocationListIndex> "5" .`);
    // revocationListCredential is an IRI (`@type: @id`), not a string.
    expect(nquads).toContain(`<${LIST_URL}#5> <${RL}revocationListCredential> <${LIST_URL}> .`);
    // Without the context, nothing defines them.
    await expect(canonizeJsonLd({ ...credential, '@context': [CREDENTIALS_V1] })).rejects.toThrow(/RevocationList2020Status|revocationList/);
    // With the claim vocabulary after it (as the core writes), they keep the context's IRIs.
    const withVocab = await canonizeJsonLd({ ...credential, '@context': [CREDENTIALS_V1, RL_2020_V1, VOCAB] });
    expect(withVocab).toContain(`<${RL}revocationListIndex>`);
    expect(withVocab).not.toMatch(/schema\.org\/(revocationList|RevocationList)/);
  });
});

describe('the bit order (Revocation List 2020: left to right, from the most significant bit of the first byte)', () => {
  it('mirrors each byte of the core’s least-significant-first packing, clears bits past the end, pads to 16KB', () => {
    const out = revocationBitstring(
      packStatuses(
        16,
        1,
        [0, 9, 15].map((idx) => ({ idx, status: 'invalid' as const })),
      ),
      16,
    );
    expect(out).toHaveLength(MINIMUM_LIST_BITS / 8);
    expect([...out.subarray(0, 3)]).toEqual([0b1000_0000, 0b0100_0001, 0]);
    expect(out.subarray(2).every((byte) => byte === 0)).toBe(true);
    // 12 entries in 2 bytes: a stray bit for a 16th entry that does not exist is not published.
    const stray = packStatuses(
      16,
      1,
      [11, 15].map((idx) => ({ idx, status: 'invalid' as const })),
    );
    expect([...revocationBitstring(stray, 12).subarray(0, 2)]).toEqual([0, 0b0001_0000]);
  });

  it('refuses statuses that are not the packing of `size` entries, and a size that is no count', () => {
    expect(() => revocationBitstring(new Uint8Array(2), 17)).toThrow(/17 entries is packed in 3 bytes, not 2/);
    expect(() => revocationBitstring(new Uint8Array(0), 0)).toThrow(/positive whole number/);
    expect(() => revocationBitstring(new Uint8Array(2), 12.5)).toThrow(/positive whole number/);
  });
});

describe('the bundled Revocation List 2020 context', () => {
  it('equals Digital Bazaar’s copy in vc-revocation-list-context, to the byte', async () => {
    expect(bundledContext(RL_2020_V1)).toEqual(await independentContext(RL_2020_V1));
    const require = createRequire(import.meta.url);
    const published = readFileSync(require.resolve('vc-revocation-list-context/contexts/vc-revocation-list-2020.jsonld'), 'utf8');
    expect(readFileSync(new URL('./contexts/vc-revocation-list-2020-v1.json', import.meta.url), 'utf8')).toBe(published);
  });
});
