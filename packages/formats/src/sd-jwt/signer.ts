import { hash, randomBytes } from 'node:crypto';
import type { KeyManager, SdJwtSigner } from '@vellum/core';

export interface SdJwtSignerOptions {
  /** Where the issuer keys live; the signature is made inside it. */
  keys: Pick<KeyManager, 'sign'>;
}

/** The hash the disclosure digests use (RFC 9901 §4.1.1: SHA-256 is the one every party must support). */
const SD_ALG = 'sha-256';

/** The JOSE `typ` of an SD-JWT VC (draft-ietf-oauth-sd-jwt-vc §3.2.1). */
const TYP = 'dc+sd-jwt';

/**
 * Claims an SD-JWT VC keeps in the signed payload and never puts in a disclosure
 * (draft-ietf-oauth-sd-jwt-vc §3.2.2.2), and the names SD-JWT itself uses in a payload
 * (RFC 9901 §4.1.1, §4.2.4).
 */
const NEVER_DISCLOSED = new Set(['iss', 'nbf', 'exp', 'cnf', 'vct', 'vct#integrity', 'status', '_sd', '_sd_alg', '...']);

/** Random bytes drawn from the CSPRNG 4 KB at a time (256 salts), as node's randomUUID does: one call per salt cost a sixth of the build. */
const POOL_BYTES = 4096;

/** RFC 9901 §9.3: every salt is at least 128 bits of fresh randomness. */
const SALT_BYTES = 16;

const base64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

function checkDisclosable(payload: Record<string, unknown>, disclosable: readonly string[]): void {
  for (const name of disclosable) {
    if (NEVER_DISCLOSED.has(name)) throw new Error(`The claim ${name} may not be selectively disclosable`);
    if (!Object.hasOwn(payload, name)) throw new Error(`The disclosable claim ${name} is not in the payload`);
  }
}

/**
 * The core's SdJwtSigner port: an SD-JWT VC (draft-ietf-oauth-sd-jwt-vc §3), built here rather
 * than with a library (docs/decisions.md says why). Each `disclosable` top-level claim becomes a
 * Disclosure, the base64url of the JSON array `[salt, name, value]` (RFC 9901 §4.2.1), whose
 * SHA-256 digest over those base64url characters goes into the payload's `_sd` (§4.2.3). The
 * digests are sorted, so the order of `_sd` says nothing about the order of the claims (§4.2.4.1).
 * The rest of the payload stays as it is. The Issuer-signed JWT is a JWS (RFC 7515) whose
 * signature the KeyManager makes over the ASCII signing input: r‖s for ES256 (RFC 7518 §3.4), the
 * raw Ed25519 signature for EdDSA (RFC 8037 §3.1). The result is the compact form with no Key
 * Binding JWT: the JWT, each Disclosure, each followed by `~` (§4).
 */
export function createSdJwtSigner(options: SdJwtSignerOptions): SdJwtSigner {
  const { keys } = options;
  let pool = Buffer.alloc(0);
  let used = 0;
  // Each pooled byte is handed out once.
  const salt = (): string => {
    if (used + SALT_BYTES > pool.length) {
      pool = randomBytes(POOL_BYTES);
      used = 0;
    }
    const drawn = pool.toString('base64url', used, used + SALT_BYTES);
    used += SALT_BYTES;
    return drawn;
  };
  return {
    async issue(input) {
      const { tenantId, keyId, payload, disclosable } = input;
      checkDisclosable(payload, disclosable);
      const concealed = new Set(disclosable);
      const signed: Record<string, unknown> = {};
      const disclosures: string[] = [];
      const digests: string[] = [];
      for (const name of Object.keys(payload)) {
        const value = payload[name];
        if (!concealed.has(name)) {
          signed[name] = value;
          continue;
        }
        const disclosure = base64url(JSON.stringify([salt(), name, value]));
        disclosures.push(disclosure);
        digests.push(hash('sha256', disclosure, 'base64url'));
      }
      if (digests.length > 0) signed._sd = digests.sort();
      signed._sd_alg = SD_ALG;
      const header = input.x5c ? { typ: TYP, alg: input.alg, kid: input.kid, x5c: input.x5c } : { typ: TYP, alg: input.alg, kid: input.kid };
      const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(signed))}`;
      const signature = await keys.sign(tenantId, keyId, Buffer.from(signingInput, 'ascii'));
      const jwt = `${signingInput}.${Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength).toString('base64url')}`;
      return disclosures.length > 0 ? `${jwt}~${disclosures.join('~')}~` : `${jwt}~`;
    },
  };
}
