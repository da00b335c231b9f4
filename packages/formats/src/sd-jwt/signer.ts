import { createHash, randomBytes } from 'node:crypto';
import { Jwt, pack, SDJwt } from '@sd-jwt/core';
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

const sha256 = (data: string | ArrayBuffer, alg: string): Uint8Array => {
  if (alg !== SD_ALG) throw new Error(`Unsupported disclosure hash ${alg}`);
  return createHash('sha256')
    .update(typeof data === 'string' ? data : new Uint8Array(data))
    .digest();
};

/** Random bytes drawn from the CSPRNG 4 KB at a time (256 salts), as node's randomUUID does: one call per salt cost a sixth of the build. */
const POOL_BYTES = 4096;

function checkDisclosable(payload: Record<string, unknown>, disclosable: readonly string[]): void {
  for (const name of disclosable) {
    if (NEVER_DISCLOSED.has(name)) throw new Error(`The claim ${name} may not be selectively disclosable`);
    if (!Object.hasOwn(payload, name)) throw new Error(`The disclosable claim ${name} is not in the payload`);
  }
}

/**
 * The core's SdJwtSigner port: an SD-JWT VC (draft-ietf-oauth-sd-jwt-vc §3) built with @sd-jwt/core.
 * Each `disclosable` top-level claim becomes a Disclosure `[salt, name, value]` whose SHA-256 digest
 * goes into the payload's `_sd` (RFC 9901 §4.2); the rest stays in the payload as it is. The
 * Issuer-signed JWT is a JWS (RFC 7515) whose signature the KeyManager makes over the ASCII signing
 * input: r‖s for ES256 (RFC 7518 §3.4), the raw Ed25519 signature for EdDSA (RFC 8037 §3.1). The
 * result is the compact form with no Key Binding JWT: the JWT, each Disclosure, each followed by `~`.
 */
export function createSdJwtSigner(options: SdJwtSignerOptions): SdJwtSigner {
  const { keys } = options;
  const hash = { hasher: sha256, alg: SD_ALG };
  let pool = Buffer.alloc(0);
  let used = 0;
  // RFC 9901 §9.3: every salt is at least 128 bits of fresh randomness (here 16 bytes), so no one
  // can recover a concealed value by hashing guesses. Each pooled byte is handed out once.
  const salt = (length: number): string => {
    if (used + length > pool.length) {
      pool = randomBytes(Math.max(POOL_BYTES, length));
      used = 0;
    }
    const drawn = pool.subarray(used, used + length).toString('base64url');
    used += length;
    return drawn;
  };
  return {
    async issue(input) {
      const { tenantId, keyId, payload, disclosable } = input;
      checkDisclosable(payload, disclosable);
      // The frame names the top-level members to conceal; nothing nested is concealed on its own.
      const frame = { _sd: [...disclosable] } as Parameters<typeof pack>[1];
      const { packedClaims, disclosures } = await pack(payload, frame, hash, salt);
      const jwt = new Jwt({
        header: { typ: TYP, alg: input.alg, kid: input.kid },
        payload: { ...(packedClaims as Record<string, unknown>), _sd_alg: SD_ALG },
      });
      await jwt.sign(async (signingInput) => {
        const signature = await keys.sign(tenantId, keyId, Buffer.from(signingInput, 'utf8'));
        return Buffer.from(signature).toString('base64url');
      });
      return new SDJwt({ jwt, disclosures }).encodeSDJwt();
    },
  };
}
