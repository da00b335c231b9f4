// Verifying an SD-JWT VC (IETF SD-JWT VC, RFC 9901 SD-JWT) in compact form:
// `<issuer-jwt>~<disclosure>~…~[<kb-jwt>]`. Signatures go through the JwtProofVerifier port and
// digests through Digests, so the core stays pure. Every check is listed in the result; nothing here
// throws for bad input (docs/decisions.md "Verifying SD-JWT VC (issue 31)").

import { parseDidKey } from '../dids/did-key.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { JwtProofVerifier } from '../oauth/jwt-proofs.ts';
import { base64UrlToBytes, bytesToBase64Url } from '../shared/encoding.ts';
import type { Digests } from '../shared/ports.ts';
import type { CertificateChainValidator } from './mdoc-ports.ts';
import { jwtStatusListClaims, refuse, type StatusListDecoder, type StatusListLookup, statusListReferenceOf } from '../shared/token-status-lists.ts';
import type { FormatVerifier, IssuerAnchor, VerificationCheck, VerificationResult, VerifyOptions } from './model.ts';
import { credentialStatus } from './status.ts';

export interface SdJwtVcVerifierDeps {
  /** Issuer signatures (x5c chains, DID keys) and the key binding JWT's signature by `cnf.jwk`. */
  jwtProofs: Pick<JwtProofVerifier, 'verifyWithX5c' | 'verifyWithKey'>;
  /** SHA-256 of disclosures and of the presentation for `sd_hash` (RFC 9901 §4.2.3, §4.3.1). */
  digests: Pick<Digests, 'sha256'>;
  /** Token Status Lists (shared/token-status-lists.ts); without it a credential naming a status fails the status check. */
  statusLists?: StatusListLookup;
  /** Reads the AuthorityKeyIdentifiers of the `x5c` chain (VerificationResult.issuer.authorityKeyIds); without it they are not reported. */
  certificates?: Pick<CertificateChainValidator, 'authorityKeyIds'>;
}

const ALGORITHMS = ['ES256', 'EdDSA'] as const;
/** `dc+sd-jwt` (SD-JWT VC §3.2.1); `vc+sd-jwt` is the type earlier drafts used, still met in the field. */
const ISSUER_TYPES = ['dc+sd-jwt', 'vc+sd-jwt'];
/** Clock skew allowed on `iat`, `nbf` and `exp`. */
const SKEW_SECONDS = 60;
/** How old a key binding JWT may be (its `iat`), and how far ahead of our clock. */
const KB_MAX_AGE_SECONDS = 300;
const KB_MAX_AHEAD_SECONDS = 60;
/** Bounds against hostile input: the number of disclosures and the nesting depth walked. */
const MAX_DISCLOSURES = 1000;
const MAX_DEPTH = 32;

/**
 * Registered claims left out of `claims`: they are reported in `issuer`, `credentialType`, `validity`
 * and `status`, or (`cnf`, `_sd_alg`) are the mechanism rather than anything about the subject.
 * `iss` and `vct` stay, as a presentation request may name them.
 */
const NOT_CLAIMS = ['_sd', '_sd_alg', 'cnf', 'iat', 'nbf', 'exp', 'status', 'vct#integrity'];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function utf8OfBase64Url(text: string): string | undefined {
  const bytes = base64UrlToBytes(text);
  if (!bytes) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function jsonOfBase64Url(text: string): unknown {
  const decoded = utf8OfBase64Url(text);
  if (decoded === undefined) return undefined;
  try {
    return JSON.parse(decoded);
  } catch {
    return undefined;
  }
}

/** The header and payload of a compact JWS, unverified; undefined when it is not one. */
function decodeJwt(jwt: string): { header: Json; payload: Json } | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return undefined;
  const header = jsonOfBase64Url(parts[0] as string);
  const payload = jsonOfBase64Url(parts[1] as string);
  return isObject(header) && isObject(payload) ? { header, payload } : undefined;
}

/** A DER certificate from `x5c` (standard base64) as PEM, for the port's root list. */
function pemOf(base64Der: string): string {
  const lines = base64Der.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

// P-256 (SEC 2 §2.4.2): a compressed point's y is the square root of x³ − 3x + b; p ≡ 3 (mod 4), so
// the root is (x³ − 3x + b)^((p+1)/4).
const P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const P256_B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

const bigintOf = (bytes: Uint8Array) => bytes.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
function bytesOf(n: bigint): Uint8Array {
  const bytes = new Uint8Array(32);
  let rest = n;
  for (let i = 31; i >= 0; i--) {
    bytes[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return bytes;
}

/** The public JWK a did:key names; undefined for a DID that is not a did:key of P-256 or Ed25519, or a point off the curve. */
export function jwkOfDidKey(did: string): PublicJwk | undefined {
  const decoded = parseDidKey(did);
  if (!decoded) return undefined;
  if (decoded.algorithm === 'Ed25519') return { kty: 'OKP', crv: 'Ed25519', x: bytesToBase64Url(decoded.publicKey) };
  const x = bigintOf(decoded.publicKey.slice(1));
  if (x >= P256_P) return undefined;
  const rhs = (((x * x * x - 3n * x + P256_B) % P256_P) + P256_P) % P256_P;
  let y = modPow(rhs, (P256_P + 1n) / 4n, P256_P);
  if ((y * y) % P256_P !== rhs) return undefined;
  if ((y & 1n) !== BigInt((decoded.publicKey[0] as number) & 1)) y = P256_P - y;
  return { kty: 'EC', crv: 'P-256', x: bytesToBase64Url(bytesOf(x)), y: bytesToBase64Url(bytesOf(y)) };
}

interface Disclosure {
  encoded: string;
  digest: string;
  salt: string;
  /** Absent for an array element's disclosure (RFC 9901 §4.2.2). */
  name?: string;
  value: unknown;
  used: boolean;
}

/** RFC 9901 §4.2.1–4.2.2: a base64url JSON array of [salt, name, value] or [salt, value]. */
function decodeDisclosure(encoded: string, digest: string): Disclosure | string {
  const array = jsonOfBase64Url(encoded);
  if (!Array.isArray(array) || (array.length !== 2 && array.length !== 3) || typeof array[0] !== 'string')
    return 'A disclosure is not an array of salt, optional name and value';
  if (array.length === 2) return { encoded, digest, salt: array[0], value: array[1], used: false };
  const name = array[1];
  if (typeof name !== 'string' || name === '_sd' || name === '...') return 'A disclosure names no claim or a reserved one';
  return { encoded, digest, salt: array[0], name, value: array[2], used: false };
}

class Refused extends Error {}

/** Sets an own member, so that a claim named `__proto__` stays a claim rather than changing the object's prototype. */
function put(object: Json, name: string, value: unknown): void {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * RFC 9901 §7.1 step 3: replaces every digest the payload holds with its disclosure, recursively
 * (nested objects, array elements, and disclosures inside disclosed values). Unknown digests are
 * decoys and are dropped; a digest met twice, a name clash or a disclosure of the wrong shape is refused.
 */
function reconstruct(value: unknown, byDigest: Map<string, Disclosure>, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new Refused('The credential nests deeper than Vellum reads');
  const take = (digest: unknown): Disclosure | undefined => {
    if (typeof digest !== 'string') throw new Refused('A digest is not a string');
    const disclosure = byDigest.get(digest);
    if (!disclosure) return undefined;
    if (disclosure.used) throw new Refused('A disclosure digest appears more than once in the credential');
    disclosure.used = true;
    return disclosure;
  };
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const element of value) {
      if (isObject(element) && Object.keys(element).length === 1 && Object.hasOwn(element, '...')) {
        const disclosure = take(element['...']);
        if (!disclosure) continue;
        if (disclosure.name !== undefined) throw new Refused('An array element digest points at a named disclosure');
        out.push(reconstruct(disclosure.value, byDigest, depth + 1));
      } else out.push(reconstruct(element, byDigest, depth + 1));
    }
    return out;
  }
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [name, member] of Object.entries(value)) {
    if (name === '_sd') continue;
    put(out, name, reconstruct(member, byDigest, depth + 1));
  }
  if (value._sd !== undefined) {
    if (!Array.isArray(value._sd)) throw new Refused('An _sd member is not an array');
    for (const digest of value._sd) {
      const disclosure = take(digest);
      if (!disclosure) continue;
      if (disclosure.name === undefined) throw new Refused('An _sd digest points at an array element disclosure');
      if (Object.hasOwn(out, disclosure.name)) throw new Refused(`The disclosed claim ${disclosure.name.slice(0, 60)} is already in the object`);
      put(out, disclosure.name, reconstruct(disclosure.value, byDigest, depth + 1));
    }
  }
  return out;
}

const numericDate = (value: unknown): number | undefined | 'bad' =>
  value === undefined ? undefined : typeof value === 'number' && Number.isFinite(value) ? value : 'bad';
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** An anchor for this format whose types (when listed) include the vct. */
const covers = (anchor: IssuerAnchor) => anchor.formats.includes('dc+sd-jwt');
const typeAllowed = (anchor: IssuerAnchor, vct: unknown) => !anchor.types || (typeof vct === 'string' && anchor.types.includes(vct));

/**
 * Verifies a fetched status list JWT (typ statuslist+jwt): signed under the trusted issuer that
 * vouches for the credential, by an x5c chain to one of its certificates or by its did:key.
 */
function statusListDecoder(deps: SdJwtVcVerifierDeps, issuer: NonNullable<VerificationResult['issuer']>, options: VerifyOptions): StatusListDecoder {
  return async (body) => {
    const token = new TextDecoder().decode(body).trim();
    const decoded = decodeJwt(token);
    if (!decoded) return refuse('The status list is not a JWT');
    let verified: Awaited<ReturnType<SdJwtVcVerifierDeps['jwtProofs']['verifyWithKey']>> | undefined;
    if (issuer.kind === 'x509' && Array.isArray(decoded.header.x5c)) {
      for (const anchor of options.anchors) {
        if (anchor.kind !== 'x509' || anchor.trustedIssuerId !== issuer.trustedIssuerId) continue;
        verified = await deps.jwtProofs.verifyWithX5c(token, [anchor.certificatePem], ALGORITHMS, options.now);
        if (verified.ok) break;
      }
    } else if (issuer.kind === 'did') {
      const jwk = jwkOfDidKey(issuer.id);
      const kid = typeof decoded.header.kid === 'string' ? decoded.header.kid.split('#')[0] : undefined;
      if (jwk && kid === issuer.id) verified = await deps.jwtProofs.verifyWithKey(token, jwk, ALGORITHMS);
    }
    if (!verified) return refuse('The status list is not signed by the credential’s issuer');
    if (!verified.ok) return refuse(`The status list is not signed by the credential’s issuer: ${verified.reason}`);
    if (verified.header.typ !== 'statuslist+jwt') return refuse('The status list must have typ statuslist+jwt');
    return jwtStatusListClaims(verified.payload);
  };
}

/** Creates the dc+sd-jwt FormatVerifier. */
export function createSdJwtVcVerifier(deps: SdJwtVcVerifierDeps): FormatVerifier {
  return async (credential: string, options: VerifyOptions): Promise<VerificationResult> => {
    const checks: VerificationCheck[] = [];
    const check = (name: string, ok: boolean, reason?: string) => {
      checks.push(ok ? { check: name, ok } : { check: name, ok, reason: (reason ?? 'Failed').slice(0, 200) });
      return ok;
    };
    const result = (extra: Partial<VerificationResult> = {}): VerificationResult => ({
      verified: checks.every((c) => c.ok) && extra.issuer?.trusted === true,
      format: 'dc+sd-jwt',
      claims: {},
      ...extra,
      checks,
    });

    // RFC 9901 §4: the issuer-signed JWT, its disclosures, then a key binding JWT or nothing after the last `~`.
    const parts = typeof credential === 'string' ? credential.split('~') : [];
    const issuerJwt = parts[0] ?? '';
    const decoded = parts.length >= 2 ? decodeJwt(issuerJwt) : undefined;
    const encodedDisclosures = parts.slice(1, -1);
    if (!decoded || encodedDisclosures.some((d) => d === '') || encodedDisclosures.length > MAX_DISCLOSURES) {
      check('format', false, 'Not an SD-JWT in compact form (issuer JWT, disclosures, each followed by ~, then an optional key binding JWT)');
      return result();
    }
    check('format', true);
    const kbJwt = parts[parts.length - 1] as string;
    const { header, payload } = decoded;
    const now = Math.floor(options.now.getTime() / 1000);

    check('typ', typeof header.typ === 'string' && ISSUER_TYPES.includes(header.typ), 'The issuer JWT typ is not dc+sd-jwt');
    check('alg', typeof header.alg === 'string' && (ALGORITHMS as readonly string[]).includes(header.alg), 'The issuer JWT alg is not ES256 or EdDSA');

    const vct = payload.vct;
    check('vct', typeof vct === 'string' && vct !== '', 'The credential has no vct');

    // The issuer: an x5c chain to an x509 anchor (SD-JWT VC §3.5), or a DID key matched to a did anchor.
    let issuer: VerificationResult['issuer'];
    let signatureOk = false;
    let signatureReason = 'The issuer signature could not be checked';
    let trustReason = 'No trusted issuer of this tenant covers the credential issuer';
    const iss = typeof payload.iss === 'string' ? payload.iss : undefined;
    if (Array.isArray(header.x5c) && header.x5c.length > 0 && header.x5c.every((c) => typeof c === 'string')) {
      const id = iss ?? 'x5c';
      for (const anchor of options.anchors) {
        if (anchor.kind !== 'x509' || !covers(anchor)) continue;
        const verified = await deps.jwtProofs.verifyWithX5c(issuerJwt, [anchor.certificatePem], ALGORITHMS, options.now);
        if (!verified.ok) continue;
        signatureOk = true;
        if (typeAllowed(anchor, vct)) {
          issuer = { kind: 'x509', id, trusted: true, trustedIssuerId: anchor.trustedIssuerId };
          break;
        }
        trustReason = 'The trusted issuer may not issue this vct';
      }
      if (!issuer) {
        // No anchor: the chain's own last certificate as the root still checks the signature and the chain.
        const alone = await deps.jwtProofs.verifyWithX5c(issuerJwt, [pemOf(header.x5c[header.x5c.length - 1] as string)], ALGORITHMS, options.now);
        signatureOk = alone.ok;
        if (!alone.ok) signatureReason = alone.reason;
        issuer = { kind: 'x509', id, trusted: false };
      }
      const ders = header.x5c.map((c) => base64UrlToBytes((c as string).replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_')));
      const authorityKeyIds = deps.certificates?.authorityKeyIds?.(ders.filter((der): der is Uint8Array => der !== undefined));
      if (authorityKeyIds) issuer = { ...issuer, authorityKeyIds };
    } else {
      const kid = typeof header.kid === 'string' ? header.kid : undefined;
      const did = kid?.startsWith('did:') ? (kid.split('#')[0] as string) : iss?.startsWith('did:') ? iss : undefined;
      if (!did) signatureReason = 'The issuer JWT names its key neither by x5c nor by a DID';
      else if (iss?.startsWith('did:') && iss !== did) signatureReason = 'The issuer JWT kid names another DID than iss';
      else {
        const jwk = jwkOfDidKey(did);
        if (!jwk) signatureReason = did.startsWith('did:key:') ? 'The did:key is not a P-256 or Ed25519 key' : 'Only did:key issuers can be resolved';
        else {
          const verified = await deps.jwtProofs.verifyWithKey(issuerJwt, jwk, ALGORITHMS);
          signatureOk = verified.ok;
          if (!verified.ok) signatureReason = verified.reason;
        }
        const anchors = options.anchors.filter((a) => a.kind === 'did' && covers(a) && a.did === did);
        const anchor = anchors.find((a) => typeAllowed(a, vct));
        if (anchors.length > 0 && !anchor) trustReason = 'The trusted issuer may not issue this vct';
        issuer = anchor ? { kind: 'did', id: did, trusted: true, trustedIssuerId: anchor.trustedIssuerId } : { kind: 'did', id: did, trusted: false };
      }
    }
    check('signature', signatureOk, signatureReason);
    check('trusted-issuer', issuer?.trusted === true, trustReason);

    // Validity (RFC 7519 §4.1.4–4.1.6, SD-JWT VC §3.2.2.2), with a small skew.
    const iat = numericDate(payload.iat);
    const nbf = numericDate(payload.nbf);
    const exp = numericDate(payload.exp);
    if (Number.isNaN(now)) check('validity', false, 'No valid time to check against');
    else if (iat === 'bad' || nbf === 'bad' || exp === 'bad') check('validity', false, 'iat, nbf or exp is not a number');
    else if (exp !== undefined && exp <= now - SKEW_SECONDS) check('validity', false, 'The credential has expired');
    else if (nbf !== undefined && nbf > now + SKEW_SECONDS) check('validity', false, 'The credential is not valid yet');
    else if (iat !== undefined && iat > now + SKEW_SECONDS) check('validity', false, 'The credential was issued in the future');
    else check('validity', true);
    const from = typeof nbf === 'number' ? nbf : typeof iat === 'number' ? iat : undefined;
    const validity =
      from !== undefined || typeof exp === 'number'
        ? { ...(from !== undefined ? { validFrom: iso(from) } : {}), ...(typeof exp === 'number' ? { validUntil: iso(exp) } : {}) }
        : undefined;

    // Disclosures (RFC 9901 §7.1): sha-256 only, each digest once, each disclosure referenced.
    let claims: Json = {};
    const sdAlg = payload._sd_alg ?? 'sha-256';
    if (sdAlg !== 'sha-256') check('disclosures', false, 'The _sd_alg is not sha-256');
    else {
      const byDigest = new Map<string, Disclosure>();
      let problem: string | undefined;
      for (const encoded of encodedDisclosures) {
        const digest = deps.digests.sha256(encoded);
        const disclosure = decodeDisclosure(encoded, digest);
        if (typeof disclosure === 'string') problem ??= disclosure;
        else if (byDigest.has(digest)) problem ??= 'The same disclosure is presented twice';
        else byDigest.set(digest, disclosure);
      }
      if (!problem) {
        try {
          const rebuilt = reconstruct(payload, byDigest, 0) as Json;
          if ([...byDigest.values()].some((d) => !d.used)) problem = 'A disclosure is not referenced by any digest in the credential';
          else claims = Object.fromEntries(Object.entries(rebuilt).filter(([name]) => !NOT_CLAIMS.includes(name)));
        } catch (error) {
          problem = error instanceof Refused ? error.message : 'The disclosures could not be read';
        }
      }
      check('disclosures', !problem, problem);
    }

    // Key binding (RFC 9901 §4.3, §7.3): signed by cnf.jwk, over this presentation, fresh, for this verifier.
    if (kbJwt !== '') {
      const cnf = isObject(payload.cnf) && isObject(payload.cnf.jwk) ? payload.cnf.jwk : undefined;
      const verified = cnf ? await deps.jwtProofs.verifyWithKey(kbJwt, cnf, ALGORITHMS) : undefined;
      if (!cnf) check('key-binding', false, 'A key binding JWT for a credential with no cnf.jwk');
      else if (!verified?.ok) check('key-binding', false, verified?.reason ?? 'The key binding JWT is not signed by cnf.jwk');
      else {
        const kb = verified.payload;
        const presented = credential.slice(0, credential.length - kbJwt.length);
        const kbIat = typeof kb.iat === 'number' && Number.isFinite(kb.iat) ? kb.iat : undefined;
        if (verified.header.typ !== 'kb+jwt') check('key-binding', false, 'The key binding JWT typ is not kb+jwt');
        else if (kb.sd_hash !== deps.digests.sha256(presented)) check('key-binding', false, 'The key binding JWT sd_hash does not match the presentation');
        else if (kbIat === undefined) check('key-binding', false, 'The key binding JWT has no iat');
        else if (kbIat < now - KB_MAX_AGE_SECONDS || kbIat > now + KB_MAX_AHEAD_SECONDS)
          check('key-binding', false, 'The key binding JWT iat is outside the accepted window');
        else check('key-binding', true);
        // Not applicable when the caller expects no nonce or audience (a verify API call without a session).
        if (options.nonce !== undefined) check('nonce', kb.nonce === options.nonce, 'The key binding JWT nonce is not the expected one');
        if (options.audience !== undefined) check('audience', kb.aud === options.audience, 'The key binding JWT aud is not this verifier');
      }
    } else if (options.nonce !== undefined || options.audience !== undefined) check('key-binding', false, 'A key binding JWT is required');

    // Holder binding holds when a key binding JWT verified, and its nonce and audience when expected.
    const binding = checks.filter((c) => c.check === 'key-binding' || c.check === 'nonce' || c.check === 'audience');
    const holderBound = binding.some((c) => c.check === 'key-binding') && binding.every((c) => c.ok);

    // Token Status List (draft-ietf-oauth-status-list §6.1): read only for a trusted issuer's sound
    // credential, so an untrusted one cannot make the server fetch what it names.
    let status: VerificationResult['status'];
    const reference = payload.status === undefined ? undefined : statusListReferenceOf(payload.status);
    if (reference && 'ok' in reference) check('status', false, reference.reason);
    else if (reference) {
      status = 'not-checked';
      if (issuer?.trusted && checks.every((c) => c.ok)) {
        const checked = await credentialStatus(deps.statusLists, reference, {
          accept: 'application/statuslist+jwt',
          cacheKey: issuer.trustedIssuerId ?? issuer.id,
          decode: statusListDecoder(deps, issuer, options),
          at: options.now,
        });
        status = checked.status;
        checks.push(checked.check);
      }
    } else if (payload.status !== undefined) status = 'not-checked';

    return result({
      issuer,
      ...(typeof vct === 'string' ? { credentialType: vct } : {}),
      claims,
      ...(validity ? { validity } : {}),
      ...(status ? { status } : {}),
      holderBound,
    });
  };
}
