// End to end for ldp_vc: the core's handler, the real Linked Data signer and the real KeyManager
// over the memory store issue a credential that @digitalbazaar/vc verifies, in each suite and form.
import { createLdpVcFormat, type DidKey, didKeyOf, type LdpVcConfiguration } from '@vellum/core';
import { addDidKey, fakeClock } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { holderKey, LDP_VC_SUBJECT, ldpVcConfiguration, memoryKeyManager } from '../../test/fixtures.ts';
import { didKeyByDigitalBazaar, verifyWithDigitalBazaar } from './independent-verifier.ts';
import { createLinkedDataSigner } from './signer.ts';

const NOW = new Date('2026-05-01T12:00:00.400Z');
const LATER = new Date('2026-06-01T00:00:00Z');

async function setup() {
  const { store, ids, keys, tenant } = await memoryKeyManager({ clock: fakeClock(NOW) });
  // A did:key DID stored as the DID service stores one: the KeyManager key and its DID URL.
  const record = await addDidKey(store, keys, tenant.id, 'Ed25519', NOW.toISOString());
  const { did } = record;
  const key = { publicJwk: (record.keys[0] as DidKey).publicJwk };
  const handler = createLdpVcFormat({ store, ids, signer: createLinkedDataSigner({ keys }) });
  const holder = holderKey();
  const issue = (proofType: LdpVcConfiguration['proofType'], form: 'current' | 'legacy') =>
    handler.issue({
      tenant,
      configuration: ldpVcConfiguration(tenant.id, { proofType }),
      subject: LDP_VC_SUBJECT,
      holderKey: holder,
      credentialIssuer: 'https://acme.example',
      now: NOW,
      form,
    });
  return { key, did, holderKey: holder, issue };
}

describe('ldp_vc issuance end to end: createLdpVcFormat + createLinkedDataSigner + KeyManager, verified by @digitalbazaar/vc', () => {
  for (const proofType of ['Ed25519Signature2018', 'Ed25519Signature2020'] as const) {
    for (const form of ['current', 'legacy'] as const) {
      it(`${proofType}, ${form} form (docs/formats/ldp-vc.md): verifies; a one-byte change to a claim or the proof does not`, async () => {
        const { key, did, holderKey, issue } = await setup();
        const issued = await issue(proofType, form);
        const credential = issued.credential as Record<string, unknown> & { proof: Record<string, string> };
        // The issuer is the DID Digital Bazaar derives from the signing key; the subject the holder's did:key.
        expect(did).toBe((await didKeyByDigitalBazaar(key.publicJwk)).did);
        expect(form === 'legacy' ? (credential.issuer as { id: string }).id : credential.issuer).toBe(did);
        expect((credential.credentialSubject as { id: string }).id).toBe(didKeyOf(holderKey));
        expect(credential.proof.type).toBe(proofType);

        const verdict = await verifyWithDigitalBazaar(credential, key.publicJwk, LATER);
        expect(verdict.error).toBeUndefined();
        expect(verdict.verified).toBe(true);

        const subject = credential.credentialSubject as Record<string, unknown>;
        expect((await verifyWithDigitalBazaar({ ...credential, credentialSubject: { ...subject, graduationYear: 2025 } }, key.publicJwk, LATER)).verified).toBe(
          false,
        );
        const signatureMember = proofType === 'Ed25519Signature2020' ? 'proofValue' : 'jws';
        const signature = credential.proof[signatureMember] as string;
        const at = signature.length - 30;
        const changed = signature.slice(0, at) + (signature[at] === 'A' ? 'B' : 'A') + signature.slice(at + 1);
        expect(
          (await verifyWithDigitalBazaar({ ...credential, proof: { ...credential.proof, [signatureMember]: changed } }, key.publicJwk, LATER)).verified,
        ).toBe(false);
      });
    }
  }
});
