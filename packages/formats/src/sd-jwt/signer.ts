import { hash, randomBytes, randomInt } from 'node:crypto';
import type { KeyManager, SdJwtDisclosureRule, SdJwtSigner } from '@vellum/core';

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

/** A place in the payload the rules name: whether its claim is disclosed, its decoys, and the places under it (null: every array element). */
interface Place {
  disclose: boolean;
  decoys: number;
  under?: Map<string | null, Place>;
}

const placeUnder = (parent: Place, step: string | null): Place => {
  parent.under ??= new Map();
  let place = parent.under.get(step);
  if (!place) {
    place = { disclose: false, decoys: 0 };
    parent.under.set(step, place);
  }
  return place;
};

/** The rules as a tree from the payload down; the top-level disclosable names are rules of one step. */
function placesOf(disclosable: readonly string[], rules: readonly SdJwtDisclosureRule[]): Place {
  const top: Place = { disclose: false, decoys: 0 };
  for (const name of disclosable) placeUnder(top, name).disclose = true;
  for (const rule of rules) {
    const [first] = rule.path;
    if (typeof first !== 'string') throw new Error('A disclosure rule starts with a claim name');
    if (NEVER_DISCLOSED.has(first)) throw new Error(`The claim ${first} may not be selectively disclosable`);
    let place = top;
    for (const step of rule.path) place = placeUnder(place, step);
    place.disclose = true;
    place.decoys += rule.decoys ?? 0;
  }
  return top;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The core's SdJwtSigner port: an SD-JWT VC (draft-ietf-oauth-sd-jwt-vc §3), built here rather
 * than with a library (docs/decisions.md says why). Each `disclosable` top-level claim becomes a
 * Disclosure, the base64url of the JSON array `[salt, name, value]` (RFC 9901 §4.2.1), whose
 * SHA-256 digest over those base64url characters goes into the payload's `_sd` (§4.2.3). The
 * digests are sorted, so the order of `_sd` says nothing about the order of the claims (§4.2.4.1).
 * The rest of the payload stays as it is. `rules` go deeper: members of nested objects get their own
 * `_sd`, array elements become `{"...": digest}` with the disclosure `[salt, value]` (§4.2.2), and
 * decoy digests join them (§4.2.5); a disclosed value carries its own concealed parts (§6.3 order
 * does not matter to a verifier). The Issuer-signed JWT is a JWS (RFC 7515) whose
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
  // A decoy is the digest of fresh random bytes, so nothing tells it from a real one (RFC 9901 §4.2.5).
  const decoy = (): string => hash('sha256', salt(), 'base64url');
  /** Adds a disclosure of `parts` (`[salt, name, value]` or `[salt, value]`) and returns its digest. */
  const disclose = (disclosures: string[], parts: unknown[]): string => {
    const disclosure = base64url(JSON.stringify(parts));
    disclosures.push(disclosure);
    return hash('sha256', disclosure, 'base64url');
  };
  /** A value with the rules under `place` applied; a value whose shape the rules do not fit is left as it is. */
  const conceal = (value: unknown, place: Place, disclosures: string[]): unknown => {
    const under = place.under;
    if (!under) return value;
    const element = under.get(null);
    if (element && Array.isArray(value)) return concealArray(value, element, disclosures);
    return isObject(value) ? concealObject(value, under, disclosures) : value;
  };
  // An array's disclosed elements become {"...": digest} where they were (RFC 9901 §4.2.4.2); decoys go in at random places.
  const concealArray = (values: unknown[], element: Place, disclosures: string[]): unknown[] => {
    const out = values.map((item) => {
      const value = conceal(item, element, disclosures);
      return element.disclose ? { '...': disclose(disclosures, [salt(), value]) } : value;
    });
    for (let i = 0; i < element.decoys; i++) out.splice(randomInt(out.length + 1), 0, { '...': decoy() });
    return out;
  };
  // An object's disclosed members leave it for its sorted `_sd`, with the decoys of every rule that names a member of it.
  const concealObject = (object: Record<string, unknown>, under: Map<string | null, Place>, disclosures: string[]): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const digests: string[] = [];
    for (const name of Object.keys(object)) {
      const place = under.get(name);
      const value = place ? conceal(object[name], place, disclosures) : object[name];
      if (place?.disclose) digests.push(disclose(disclosures, [salt(), name, value]));
      else out[name] = value;
    }
    for (const [step, place] of under) if (step !== null) for (let i = 0; i < place.decoys; i++) digests.push(decoy());
    if (digests.length > 0) out._sd = digests.sort();
    return out;
  };
  return {
    async issue(input) {
      const { tenantId, keyId, payload, disclosable } = input;
      checkDisclosable(payload, disclosable);
      let signed: Record<string, unknown>;
      const disclosures: string[] = [];
      if (input.rules && input.rules.length > 0) {
        const top = placesOf(disclosable, input.rules);
        signed = top.under ? concealObject(payload, top.under, disclosures) : { ...payload };
      } else {
        // No rules: the top-level claims alone, without building the tree (the issuance hot path).
        const concealed = new Set(disclosable);
        signed = {};
        const digests: string[] = [];
        for (const name of Object.keys(payload)) {
          const value = payload[name];
          if (!concealed.has(name)) {
            signed[name] = value;
            continue;
          }
          digests.push(disclose(disclosures, [salt(), name, value]));
        }
        if (digests.length > 0) signed._sd = digests.sort();
      }
      signed._sd_alg = SD_ALG;
      const header = input.x5c ? { typ: TYP, alg: input.alg, kid: input.kid, x5c: input.x5c } : { typ: TYP, alg: input.alg, kid: input.kid };
      const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(signed))}`;
      const signature = await keys.sign(tenantId, keyId, Buffer.from(signingInput, 'ascii'));
      const jwt = `${signingInput}.${Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength).toString('base64url')}`;
      return disclosures.length > 0 ? `${jwt}~${disclosures.join('~')}~` : `${jwt}~`;
    },
  };
}
