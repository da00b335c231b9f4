// The ports mDoc verification reads through (docs/decisions.md "Verifying mDocs (issue 31)"): CBOR,
// COSE and X.509 stay in the adapters; the core decides what the findings mean.

import type { StatusListClaims, StatusListReference } from '../shared/token-status-lists.ts';

/** One IssuerSignedItem as received, with its digest computed by the reader. */
export interface MdocItemView {
  namespace: string;
  digestId: number;
  elementIdentifier: string;
  /** As JSON: full-dates and date-times as ISO strings, byte strings as base64url. */
  elementValue: unknown;
  /** The MSO's digest algorithm over `#6.24(bstr)` of the item as received; absent when that algorithm is not supported. */
  digest?: Uint8Array;
}

/** One document of a DeviceResponse (or a bare IssuerSigned), decoded; the checks are the core's. */
export interface MdocDocumentView {
  /** The document's docType (for a bare IssuerSigned, the MSO's). */
  docType: string;
  /** `x5chain` of issuerAuth, DER, the document signer first. */
  x5chain: Uint8Array[];
  /** Whether issuerAuth's signature verifies under the document signer certificate's key, and why not. */
  issuerSignature: { valid: boolean; reason?: string };
  /** SHA-256 of the document signer certificate, hexadecimal, lower case. */
  signerFingerprint: string;
  mso: {
    docType: string;
    digestAlgorithm: string;
    /** namespace → digestID → digest. */
    valueDigests: Record<string, Map<number, Uint8Array>>;
    validityInfo: { signed?: Date; validFrom?: Date; validUntil?: Date };
    /** The MSO names a status (Token Status List reference). */
    hasStatus: boolean;
    /**
     * Its Token Status List reference (`status`, or the legacy `_status`, each `{ status_list: { idx, uri } }`),
     * or why it cannot be read; absent when the MSO names none.
     */
    status?: StatusListReference | { invalid: string };
  };
  items: MdocItemView[];
  /** Device authentication: absent in a bare IssuerSigned. `valid` only when a transcript was given. */
  deviceAuth?: { kind: 'signature'; valid?: boolean; reason?: string } | { kind: 'mac' } | { kind: 'missing' };
}

export type MdocReading = { ok: true; kind: 'device-response' | 'issuer-signed'; documents: MdocDocumentView[] } | { ok: false; reason: string };

/** A status list token in CWT form (draft-ietf-oauth-status-list §5.2), decoded, its signature checked by its own x5chain. */
export type StatusListCwtReading =
  | {
      ok: true;
      /** `typ` of the protected header (label 16). */
      typ?: string;
      /** `x5chain` (label 33), DER, the signer first. */
      x5chain: Uint8Array[];
      /** Whether the COSE_Sign1 verifies under the first certificate's key. */
      signature: { valid: boolean; reason?: string };
      claims: StatusListClaims;
    }
  | { ok: false; reason: string };

/** Decodes an mDoc presentation and checks its signatures; never throws. */
export interface MdocReader {
  /**
   * `bytes` is a CBOR DeviceResponse or IssuerSigned. With `sessionTranscript` (CBOR SessionTranscript,
   * or the same wrapped in tag 24) a device signature is verified over DeviceAuthenticationBytes.
   */
  read(bytes: Uint8Array, options: { sessionTranscript?: Uint8Array }): MdocReading;
  /**
   * Reads a status list token CWT (draft 14 claim keys 65533/65534, or the legacy -65538/-65539 when
   * its typ is `mattr-statuslist+cwt`, docs/status-lists.md).
   */
  readStatusList(bytes: Uint8Array): StatusListCwtReading;
}

/** Validates an X.509 path; never throws. */
export interface CertificateChainValidator {
  /**
   * Whether `chain` (DER, end entity first) leads to `anchorPem` with every certificate, the anchor
   * included, valid at `at`. The anchor may be the chain's last certificate or the issuer of it.
   * `outOfDate` when the path holds and only a validity period excludes `at`.
   */
  validate(chain: readonly Uint8Array[], anchorPem: string, at: Date): { ok: true } | { ok: false; reason: string; outOfDate?: boolean };
  /**
   * The keyIdentifier of the AuthorityKeyIdentifier extension (RFC 5280 §4.2.1.1) of each certificate
   * of `chain` (DER) that has one, base64url, in chain order without repeats; for DCQL
   * `trusted_authorities` of type `aki`. Unreadable certificates are skipped; never throws.
   */
  authorityKeyIds?(chain: readonly Uint8Array[]): string[];
}
