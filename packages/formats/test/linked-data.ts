// What the ldp_vc and Revocation List 2020 tests share: a KeyManager Ed25519 issuer named as
// Digital Bazaar names it, and signatures changed by one character.
import { didKeyOf, type LinkedDataProof, type LinkedDataProofType } from '@vellum/core';
import { didKeyByDigitalBazaar } from '../src/linked-data/independent-verifier.ts';
import { createLinkedDataSigner } from '../src/linked-data/signer.ts';
import { holderKey, memoryKeyManager } from './fixtures.ts';

/** When the test credentials are issued and their proofs created. */
export const ISSUED = '2026-05-01T12:00:00Z';

/** A KeyManager Ed25519 key, its did:key, a holder's did:key, and `sign` for a credential with the key (assertionMethod, created ISSUED). */
export async function ed25519Issuer() {
  const { keys, tenant } = await memoryKeyManager();
  const key = await keys.create(tenant.id, 'Ed25519');
  // The signer's DID and key id as Digital Bazaar's key class derives them from the public key.
  const { did, verificationMethod } = await didKeyByDigitalBazaar(key.publicJwk);
  const signer = createLinkedDataSigner({ keys });
  const sign = (type: LinkedDataProofType, document: Record<string, unknown>) =>
    signer.sign({ tenantId: tenant.id, keyId: key.id, type, verificationMethod, proofPurpose: 'assertionMethod', created: ISSUED, document });
  return { keys, tenant, key, did, verificationMethod, holderDid: didKeyOf(holderKey()), signer, sign };
}

export const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
export const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The same text with the character at `index` replaced by the next one of `alphabet`. */
export function changeOneCharacter(text: string, index: number, alphabet: string): string {
  const old = text[index] as string;
  return text.slice(0, index) + (alphabet[(alphabet.indexOf(old) + 1) % alphabet.length] as string) + text.slice(index + 1);
}

/** The proof with one character of its signature changed, in the middle where every character carries signature bits. */
export function tamperProof(proof: LinkedDataProof): LinkedDataProof {
  if (proof.proofValue !== undefined) return { ...proof, proofValue: changeOneCharacter(proof.proofValue, 40, BASE58) };
  const jws = proof.jws as string;
  return { ...proof, jws: changeOneCharacter(jws, jws.lastIndexOf('.') + 40, BASE64URL) };
}
