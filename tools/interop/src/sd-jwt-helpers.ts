// What the SD-JWT VC interop suites hand @sd-jwt/sd-jwt-vc and read back: an ES256 signer over a
// node:crypto key (r‖s, base64url), the SHA-256 hasher, and the verify API's answer.
import { createHash, type KeyObject, sign } from 'node:crypto';

/** An ES256 signer for @sd-jwt's `signer` option. */
export const es256 = (key: KeyObject) => (data: string) => sign('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');

/** SHA-256 for @sd-jwt's `hasher` option. */
export const hasher = (data: string | ArrayBuffer) =>
  createHash('sha256')
    .update(typeof data === 'string' ? data : new Uint8Array(data))
    .digest();

/** The verify API's answer (`POST /v2/credentials/{profile}/verify`), as the suites read it. */
export type VerifyResult = {
  verified: boolean;
  status?: string;
  issuer?: { trusted: boolean };
  claims: Record<string, any>;
  checks: Array<{ check: string; ok: boolean; reason?: string }>;
};
