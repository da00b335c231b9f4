import type { StatusListFormat } from './model.ts';

/** What a status list token says and who signs it. */
export interface StatusListTokenInput {
  tenantId: string;
  format: StatusListFormat;
  /** The URI the token is served at: its `sub` (IETF Token Status List §5.2). */
  uri: string;
  issuedAt: Date;
  expiresAt: Date;
  /** How long a verifier may cache it, in seconds (`ttl`). */
  ttlSeconds: number;
  bits: 1 | 2;
  /**
   * The uncompressed statuses: entry i's `bits` bits at byte floor(i·bits/8), starting at bit
   * (i·bits) mod 8, least significant first (IETF Token Status List §4.1).
   */
  statuses: Uint8Array;
  /** The document signer that signs: its KeyManager key and the x5chain (its certificate first). */
  signer: { keyId: string; x5chain: readonly Uint8Array[] };
}

/**
 * Signs mDoc status list tokens as CWTs in a COSE_Sign1 (ES256): draft 14 with `typ`
 * `application/statuslist+cwt` and claims 65533 (status_list `{ bits, lst }`) and 65534 (ttl);
 * legacy with `typ` `mattr-statuslist+cwt` and claims -65538 and -65539. `lst` is the statuses
 * compressed with DEFLATE in the ZLIB format (RFC 1950).
 */
export interface StatusListTokenSigner {
  sign(input: StatusListTokenInput): Promise<Uint8Array>;
}
