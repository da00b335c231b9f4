// RevocationList2020 credentials (W3C CCG Revocation List 2020): the status list of ldp_vc
// credentials, itself a W3C VC Data Model 1.1 credential with a Linked Data proof by the DID key
// that signs the credentials it lists.
import { gzipSync } from 'node:zlib';
import { isoSeconds, type KeyManager, type RevocationListInput, type RevocationListSigner } from '@vellum/core';
import { createLinkedDataSigner } from './signer.ts';

export interface RevocationListSignerOptions {
  /** Where the DID keys live; signing happens inside it. */
  keys: Pick<KeyManager, 'get' | 'sign'>;
}

const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
/** The context that defines RevocationList2020Credential, RevocationList2020 and encodedList (bundled). */
export const REVOCATION_LIST_2020_V1 = 'https://w3id.org/vc-revocation-list-2020/v1';

/**
 * Revocation List 2020 (Conceptual Framework, Generate Algorithm): a list is at least 16KB of
 * bits, 131,072 entries, so that one list hides any credential among many others (its privacy
 * considerations). A shorter list is padded with valid (0) entries up to that size; no credential
 * has an index there, so no verifier ever reads them.
 */
export const MINIMUM_LIST_BITS = 16 * 1024 * 8;

/** Each byte with its bits in reverse order: LSB-first packing to the list's MSB-first order. */
const REVERSED = Uint8Array.from({ length: 256 }, (_, byte) => {
  let reversed = 0;
  for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) reversed |= 1 << (7 - bit);
  return reversed;
});

/**
 * The bitstring of the list (Revocation List 2020, Generate Algorithm): entry i is the bit at byte
 * floor(i/8), counted from the most significant bit of that byte ("left to right", the order of
 * Digital Bazaar's reference implementation, @digitalbazaar/bitstring), 1 when the credential at
 * index i is revoked. The core packs the other way round, least significant first (as the IETF
 * Token Status List does), so every byte is mirrored; bits past `size` in the last byte are
 * cleared, and the list is padded with zero bytes to MINIMUM_LIST_BITS.
 */
export function revocationBitstring(statuses: Uint8Array, size: number): Uint8Array {
  if (!Number.isSafeInteger(size) || size <= 0) throw new Error(`A revocation list has a positive whole number of entries, not ${size}`);
  const bytes = Math.ceil(size / 8);
  if (statuses.length !== bytes) throw new Error(`A list of ${size} entries is packed in ${bytes} bytes, not ${statuses.length}`);
  const out = new Uint8Array(Math.ceil(Math.max(size, MINIMUM_LIST_BITS) / 8));
  for (let i = 0; i < bytes; i++) out[i] = REVERSED[statuses[i] as number] as number;
  // The last byte's low-order (right-hand) bits are entries past the end of the list.
  if (size % 8 !== 0) out[bytes - 1] = (out[bytes - 1] as number) & (0xff << (8 - (size % 8)));
  return out;
}

/**
 * `encodedList` (Revocation List 2020, "RevocationList2020Credential"): the bitstring compressed
 * with GZIP (RFC 1952), then base64url without padding (RFC 4648 §5), the alphabet Digital
 * Bazaar's implementation writes and reads.
 */
export function encodeRevocationList(statuses: Uint8Array, size: number): string {
  return gzipSync(revocationBitstring(statuses, size)).toString('base64url');
}

/**
 * The core's RevocationListSigner port: builds the RevocationList2020Credential at `url` (its
 * subject `${url}#list`, of type RevocationList2020, with the encoded list) and signs it with the
 * Linked Data signer, proof purpose assertionMethod, created when the list is issued. The contexts
 * come from the bundle; nothing is fetched.
 */
export function createRevocationListSigner(options: RevocationListSignerOptions): RevocationListSigner {
  const signer = createLinkedDataSigner({ keys: options.keys });
  return {
    async sign(input: RevocationListInput) {
      const issuanceDate = isoSeconds(input.issuedAt);
      const credential: Record<string, unknown> = {
        '@context': [CREDENTIALS_V1, REVOCATION_LIST_2020_V1],
        id: input.url,
        type: ['VerifiableCredential', 'RevocationList2020Credential'],
        issuer: input.issuer,
        issuanceDate,
        credentialSubject: { id: `${input.url}#list`, type: 'RevocationList2020', encodedList: encodeRevocationList(input.statuses, input.size) },
      };
      return signer.sign({
        tenantId: input.tenantId,
        keyId: input.keyId,
        type: input.proofType,
        verificationMethod: input.verificationMethod,
        proofPurpose: 'assertionMethod',
        created: issuanceDate,
        document: credential,
      });
    },
  };
}
