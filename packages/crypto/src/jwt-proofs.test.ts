// Before @peculiar/x509: it cannot load without the Reflect metadata API.
import 'reflect-metadata';
import { generateKeyPairSync, sign, webcrypto } from 'node:crypto';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  type Extension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectKeyIdentifierExtension,
  type X509Certificate,
  X509CertificateGenerator,
} from '@peculiar/x509';
import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJwtProofVerifier } from './jwt-proofs.ts';

// Tokens are made with jose and certificates with @peculiar/x509, never with the module under test
// or the jws.ts it builds on, so a shared mistake cannot make both sides agree.

const verifier = createJwtProofVerifier();
const BOTH = ['ES256', 'EdDSA'] as const;
const claims = { iss: 'wallet-provider', sub: 'client-1', iat: 1_780_000_000 };

const SIGNATURE = "The JWT's signature does not verify";
const EXPIRED = 'A certificate in x5c has expired or is not yet valid';
const UNTRUSTED = "The attestation's certificate chain does not lead to a trusted root";
const NOT_CA = 'A certificate in x5c that issues another is not a CA certificate';
const BROKEN = 'A certificate in x5c is not issued by the one after it';
const NOT_BASE64 = "The JWT's x5c holds something that is not a base64 certificate";

/** The same token with one character of its signature changed (to another base64url character). */
function tamperSignature(jwt: string): string {
  const i = jwt.lastIndexOf('.') + 5;
  return jwt.slice(0, i) + (jwt[i] === 'A' ? 'B' : 'A') + jwt.slice(i + 1);
}

async function selfSigned(alg: 'ES256' | 'EdDSA', header: Record<string, unknown> = {}) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const jwt = await new SignJWT(claims).setProtectedHeader({ alg, typ: 'dpop+jwt', jwk, ...header }).sign(privateKey);
  return { jwt, jwk, privateKey, publicKey };
}

describe('verifySelfSigned (RFC 9449 §4.2: a jwk header)', () => {
  it('verifies a jose-made ES256 JWT and returns header, payload, the bare public jwk and its RFC 7638 thumbprint', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const exported = await exportJWK(publicKey);
    // Members beyond the key's own are carried in the header but are no part of the key.
    const jwk = { ...exported, kid: 'k-1', use: 'sig', alg: 'ES256' };
    const jwt = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).sign(privateKey);
    const result = await verifier.verifySelfSigned(jwt, BOTH);
    expect(result).toEqual({
      ok: true,
      header: { alg: 'ES256', typ: 'dpop+jwt', jwk },
      payload: claims,
      jwk: { kty: 'EC', crv: 'P-256', x: exported.x, y: exported.y },
      thumbprint: await calculateJwkThumbprint(exported, 'sha256'),
    });
  });

  it("verifies an EdDSA JWT with an Ed25519 jwk, with jose's thumbprint", async () => {
    const { jwt, jwk } = await selfSigned('EdDSA');
    const result = await verifier.verifySelfSigned(jwt, BOTH);
    expect(result).toEqual({
      ok: true,
      header: { alg: 'EdDSA', typ: 'dpop+jwt', jwk },
      payload: claims,
      jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x },
      thumbprint: await calculateJwkThumbprint(jwk, 'sha256'),
    });
  });

  it('refuses a jwk that carries its private key, even when the signature is good', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    expect(jwk.d).toBeTypeOf('string');
    const jwt = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', jwk }).sign(privateKey);
    expect(await verifier.verifySelfSigned(jwt, BOTH)).toEqual({ ok: false, reason: "The JWT's jwk holds private key material" });
  });

  it('refuses an alg the caller does not allow, though the key and signature are good', async () => {
    const { jwt } = await selfSigned('EdDSA');
    expect(await verifier.verifySelfSigned(jwt, ['ES256'])).toEqual({ ok: false, reason: "The JWT's alg must be one of ES256" });
    expect((await verifier.verifySelfSigned(jwt, ['EdDSA'])).ok).toBe(true);
  });

  it("refuses a header alg that does not match the jwk's key type", async () => {
    const keys = generateKeyPairSync('ed25519');
    const jwk = keys.publicKey.export({ format: 'jwk' });
    const input = `${Buffer.from(JSON.stringify({ alg: 'ES256', jwk })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const jwt = `${input}.${sign(null, Buffer.from(input), keys.privateKey).toString('base64url')}`;
    expect(await verifier.verifySelfSigned(jwt, BOTH)).toEqual({ ok: false, reason: "The JWT's key cannot be used with ES256" });
  });

  it('refuses a tampered signature and a tampered payload', async () => {
    for (const alg of BOTH) {
      const { jwt } = await selfSigned(alg);
      expect((await verifier.verifySelfSigned(jwt, BOTH)).ok, alg).toBe(true);
      expect(await verifier.verifySelfSigned(tamperSignature(jwt), BOTH), alg).toEqual({ ok: false, reason: SIGNATURE });
      const [h, , s] = jwt.split('.');
      const otherPayload = Buffer.from(JSON.stringify({ ...claims, sub: 'client-2' })).toString('base64url');
      expect(await verifier.verifySelfSigned(`${h}.${otherPayload}.${s}`, BOTH), alg).toEqual({ ok: false, reason: SIGNATURE });
    }
  });

  it('refuses a JWT with no jwk, with a key of another type, and a payload that is not a JSON object', async () => {
    const { privateKey, jwk } = await selfSigned('ES256');
    const noJwk = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    expect(await verifier.verifySelfSigned(noJwk, BOTH)).toEqual({ ok: false, reason: 'The JWT carries no jwk header' });

    const rsa = await generateKeyPair('RS256', { extractable: true });
    const rsaJwt = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', jwk: await exportJWK(rsa.publicKey) }).sign(rsa.privateKey);
    expect(await verifier.verifySelfSigned(rsaJwt, [...BOTH, 'RS256'])).toEqual({
      ok: false,
      reason: "The JWT's jwk must be a P-256 (EC) or Ed25519 (OKP) public key",
    });

    const array = await new CompactSign(Buffer.from('[1,2]')).setProtectedHeader({ alg: 'ES256', jwk }).sign(privateKey);
    expect(await verifier.verifySelfSigned(array, BOTH)).toEqual({ ok: false, reason: "The JWT's payload is not a JSON object" });
  });

  it('refuses a JWT longer than 32 KB before looking at it', async () => {
    const { privateKey, jwk } = await generateKeyPair('ES256', { extractable: true }).then(async (k) => ({ ...k, jwk: await exportJWK(k.publicKey) }));
    const big = await new SignJWT({ ...claims, pad: 'x'.repeat(25_000) }).setProtectedHeader({ alg: 'ES256', jwk }).sign(privateKey);
    expect(big.length).toBeGreaterThan(32 * 1024);
    expect(await verifier.verifySelfSigned(big, BOTH)).toEqual({ ok: false, reason: 'The JWT is longer than 32768 characters' });
    const fits = await new SignJWT({ ...claims, pad: 'x'.repeat(20_000) }).setProtectedHeader({ alg: 'ES256', jwk }).sign(privateKey);
    expect(fits.length).toBeLessThan(32 * 1024);
    expect((await verifier.verifySelfSigned(fits, BOTH)).ok).toBe(true);
  });

  it('never throws, whatever it is given', async () => {
    const odd: unknown[] = [undefined, null, 42, '', 'a.b', 'a.b.c', '...', { jwt: 'x' }, `${'e30'}.e30.`];
    for (const input of odd) {
      expect((await verifier.verifySelfSigned(input as string, BOTH)).ok, String(input)).toBe(false);
      expect((await verifier.verifyWithKey(input as string, input, BOTH)).ok, String(input)).toBe(false);
      expect((await verifier.verifyWithX5c(input as string, [input as string], BOTH, new Date())).ok, String(input)).toBe(false);
      expect(verifier.thumbprint(input), String(input)).toBeUndefined();
    }
    const { jwt } = await selfSigned('ES256');
    expect((await verifier.verifySelfSigned(jwt, null as unknown as string[])).ok).toBe(false);
    // An object that throws when asked which members it has.
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('no');
        },
      },
    );
    expect(verifier.thumbprint(hostile)).toBeUndefined();
    expect((await verifier.verifyWithKey(jwt, hostile, BOTH)).ok).toBe(false);
  });
});

describe('thumbprint (RFC 7638, SHA-256)', () => {
  it("agrees with jose for P-256 and Ed25519 public keys, ignoring members that are not the key's", async () => {
    for (const alg of BOTH) {
      const { jwk } = await selfSigned(alg);
      expect(verifier.thumbprint({ ...jwk, kid: 'x', alg }), alg).toBe(await calculateJwkThumbprint(jwk, 'sha256'));
    }
  });

  it('has none for private, RSA, other-curve or malformed JWKs', async () => {
    const ec = (await selfSigned('ES256')).jwk;
    const cases: Record<string, unknown> = {
      private: await exportJWK((await generateKeyPair('EdDSA', { extractable: true })).privateKey),
      rsa: await exportJWK((await generateKeyPair('RS256', { extractable: true })).publicKey),
      p384: await exportJWK((await generateKeyPair('ES384', { extractable: true })).publicKey),
      noY: { kty: 'EC', crv: 'P-256', x: ec.x },
      padded: { ...ec, x: `${ec.x}=` },
      symmetric: { kty: 'oct', k: 'AAAA' },
      string: JSON.stringify(ec),
    };
    for (const [name, jwk] of Object.entries(cases)) expect(verifier.thumbprint(jwk), name).toBeUndefined();
  });
});

describe("verifyWithKey (an attestation's proof of possession, signed by its cnf.jwk)", () => {
  it('verifies with the given key and refuses the same JWT under another key', async () => {
    for (const alg of BOTH) {
      const signer = await generateKeyPair(alg, { extractable: true });
      const other = await generateKeyPair(alg, { extractable: true });
      const jwt = await new SignJWT(claims).setProtectedHeader({ alg, typ: 'oauth-client-attestation-pop+jwt' }).sign(signer.privateKey);
      expect(await verifier.verifyWithKey(jwt, await exportJWK(signer.publicKey), BOTH), alg).toEqual({
        ok: true,
        header: { alg, typ: 'oauth-client-attestation-pop+jwt' },
        payload: claims,
      });
      expect(await verifier.verifyWithKey(jwt, await exportJWK(other.publicKey), BOTH), alg).toEqual({ ok: false, reason: SIGNATURE });
    }
  });

  it('refuses a key that cannot be used: private members, RSA, not an object, or of the other type', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwt = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    const unusable = 'The key the JWT must be signed with is not a P-256 (EC) or Ed25519 (OKP) public key';
    expect(await verifier.verifyWithKey(jwt, await exportJWK(privateKey), BOTH)).toEqual({ ok: false, reason: unusable });
    expect(await verifier.verifyWithKey(jwt, await exportJWK((await generateKeyPair('RS256')).publicKey), BOTH)).toEqual({ ok: false, reason: unusable });
    expect(await verifier.verifyWithKey(jwt, 'not a jwk', BOTH)).toEqual({ ok: false, reason: unusable });
    const ed = await exportJWK((await generateKeyPair('EdDSA')).publicKey);
    expect(await verifier.verifyWithKey(jwt, ed, BOTH)).toEqual({ ok: false, reason: "The JWT's key cannot be used with ES256" });
    expect(await verifier.verifyWithKey(jwt, await exportJWK(publicKey), ['EdDSA'])).toEqual({ ok: false, reason: "The JWT's alg must be one of EdDSA" });
  });
});

// ---------------------------------------------------------------------------------------------
// x5c (RFC 7515 §4.1.6): key attestations (OpenID4VCI 1.0 App. D) and client attestations.

const subtle = webcrypto.subtle;
const x509Crypto = webcrypto as unknown as webcrypto.Crypto;
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ES256_SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const NOT_BEFORE = new Date('2026-01-01T00:00:00Z');
const NOT_AFTER = new Date('2031-01-01T00:00:00Z');
const AT = new Date('2027-06-01T00:00:00Z');

interface Issued {
  certificate: X509Certificate;
  keys: webcrypto.CryptoKeyPair;
  name: string;
}

let serial = 0;

/** A certificate for `keys` (fresh P-256 ones by default), issued by `issuer` or self-signed. */
async function issue(options: {
  name: string;
  issuer?: Issued;
  /** Signs under the issuer's name with this key instead of the issuer's: a forgery. */
  forgeWith?: webcrypto.CryptoKey;
  /** Names this issuer instead of the one that signs. */
  issuerName?: string;
  keys?: webcrypto.CryptoKeyPair;
  ca: boolean;
  /** keyCertSign without cA, so that only the cA flag tells it is no CA. */
  keyCertSignWithoutCa?: boolean;
  authorityKeyId?: boolean;
  notBefore?: Date;
  notAfter?: Date;
}): Promise<Issued> {
  const keys = options.keys ?? ((await subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair);
  const issuer = options.issuer;
  const extensions: Extension[] = [
    new BasicConstraintsExtension(options.ca, undefined, true),
    new KeyUsagesExtension(
      options.ca || options.keyCertSignWithoutCa ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign : KeyUsageFlags.digitalSignature,
      true,
    ),
    await SubjectKeyIdentifierExtension.create(keys.publicKey, false, x509Crypto),
  ];
  if (issuer && options.authorityKeyId !== false) extensions.push(await AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey, false, x509Crypto));
  const signingKey = options.forgeWith ?? issuer?.keys.privateKey ?? keys.privateKey;
  const certificate = await X509CertificateGenerator.create(
    {
      serialNumber: (++serial).toString(16).padStart(2, '0'),
      subject: `CN=${options.name}`,
      issuer: `CN=${options.issuerName ?? issuer?.name ?? options.name}`,
      notBefore: options.notBefore ?? NOT_BEFORE,
      notAfter: options.notAfter ?? NOT_AFTER,
      publicKey: keys.publicKey,
      signingKey,
      signingAlgorithm: signingKey.algorithm.name === 'Ed25519' ? { name: 'Ed25519' } : ES256_SIGNING,
      extensions,
    },
    x509Crypto,
  );
  return { certificate, keys, name: options.name };
}

const b64 = (issued: Issued) => Buffer.from(issued.certificate.rawData).toString('base64');
const pem = (issued: Issued) => issued.certificate.toString('pem');

/** A key attestation signed by the leaf's key, carrying `x5c` as given. */
async function attestation(leaf: Issued, x5c: unknown, alg = 'ES256') {
  return new SignJWT({ ...claims, attested_keys: [] }).setProtectedHeader({ alg, typ: 'key-attestation+jwt', x5c: x5c as string[] }).sign(leaf.keys.privateKey);
}

let pki: { root: Issued; intermediate: Issued; leaf: Issued; otherRoot: Issued };

beforeAll(async () => {
  const root = await issue({ name: 'Wallet Provider Root', ca: true });
  const intermediate = await issue({ name: 'Wallet Provider CA', issuer: root, ca: true });
  const leaf = await issue({ name: 'Wallet Attestation Signer', issuer: intermediate, ca: false });
  const otherRoot = await issue({ name: "Someone Else's Root", ca: true });
  pki = { root, intermediate, leaf, otherRoot };
});

describe('verifyWithX5c (RFC 7515 §4.1.6 chains to configured roots)', () => {
  it('verifies leaf → intermediate with the root given as PEM, and returns header and payload', async () => {
    const { root, intermediate, leaf } = pki;
    const x5c = [b64(leaf), b64(intermediate)];
    const jwt = await attestation(leaf, x5c);
    expect(await verifier.verifyWithX5c(jwt, [pem(root)], BOTH, AT)).toEqual({
      ok: true,
      header: { alg: 'ES256', typ: 'key-attestation+jwt', x5c },
      payload: { ...claims, attested_keys: [] },
    });
    // The root may travel in x5c too: it is then matched by its DER.
    expect((await verifier.verifyWithX5c(await attestation(leaf, [...x5c, b64(root)]), [pem(root)], BOTH, AT)).ok).toBe(true);
    // A root PEM that cannot be read is left out, not fatal.
    expect((await verifier.verifyWithX5c(jwt, ['not a certificate', '', pem(root)], BOTH, AT)).ok).toBe(true);
  });

  it('takes a configured certificate that is not self-signed as a trust anchor when x5c ends with it', async () => {
    const { root, intermediate, leaf } = pki;
    const jwt = await attestation(leaf, [b64(leaf), b64(intermediate)]);
    expect((await verifier.verifyWithX5c(jwt, [pem(intermediate)], BOTH, AT)).ok).toBe(true);
    expect((await verifier.verifyWithX5c(jwt, [pem(root)], BOTH, AT)).ok).toBe(true);
  });

  it('verifies a leaf issued directly by a root, and an Ed25519 leaf signing with EdDSA', async () => {
    const { root } = pki;
    const direct = await issue({ name: 'Direct Signer', issuer: root, ca: false });
    expect((await verifier.verifyWithX5c(await attestation(direct, [b64(direct)]), [pem(root)], BOTH, AT)).ok).toBe(true);
    const edKeys = (await subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as unknown as webcrypto.CryptoKeyPair;
    const edLeaf = await issue({ name: 'Ed25519 Signer', issuer: root, ca: false, keys: edKeys });
    const edJwt = await attestation(edLeaf, [b64(edLeaf)], 'EdDSA');
    expect((await verifier.verifyWithX5c(edJwt, [pem(root)], BOTH, AT)).ok).toBe(true);
    expect(await verifier.verifyWithX5c(edJwt, [pem(root)], ['ES256'], AT)).toEqual({ ok: false, reason: "The JWT's alg must be one of ES256" });
  });

  it('refuses a chain whose root is not configured, even when x5c carries that (self-signed) root', async () => {
    const { root, intermediate, leaf, otherRoot } = pki;
    for (const x5c of [
      [b64(leaf), b64(intermediate)],
      [b64(leaf), b64(intermediate), b64(root)],
    ]) {
      expect(await verifier.verifyWithX5c(await attestation(leaf, x5c), [pem(otherRoot)], BOTH, AT), String(x5c.length)).toEqual({
        ok: false,
        reason: UNTRUSTED,
      });
      expect(await verifier.verifyWithX5c(await attestation(leaf, x5c), [], BOTH, AT), String(x5c.length)).toEqual({ ok: false, reason: UNTRUSTED });
    }
  });

  it("refuses a chain ending under an impostor root with the trusted root's name but another key", async () => {
    const { root } = pki;
    const impostor = await issue({ name: root.name, ca: true });
    // No authority key identifier, so only the signature tells the two roots apart.
    const intermediate = await issue({ name: 'Impostor CA', issuer: impostor, ca: true, authorityKeyId: false });
    const leaf = await issue({ name: 'Impostor Signer', issuer: intermediate, ca: false });
    const jwt = await attestation(leaf, [b64(leaf), b64(intermediate)]);
    expect(await verifier.verifyWithX5c(jwt, [pem(root)], BOTH, AT)).toEqual({ ok: false, reason: UNTRUSTED });
    expect((await verifier.verifyWithX5c(jwt, [pem(impostor)], BOTH, AT)).ok).toBe(true);
  });

  it('refuses an expired leaf and a leaf not yet valid', async () => {
    const { root, intermediate } = pki;
    const expired = await issue({ name: 'Expired Signer', issuer: intermediate, ca: false, notAfter: new Date('2027-01-01T00:00:00Z') });
    const early = await issue({ name: 'Early Signer', issuer: intermediate, ca: false, notBefore: new Date('2028-01-01T00:00:00Z') });
    for (const leaf of [expired, early]) {
      const jwt = await attestation(leaf, [b64(leaf), b64(intermediate)]);
      expect(await verifier.verifyWithX5c(jwt, [pem(root)], BOTH, AT), leaf.name).toEqual({ ok: false, reason: EXPIRED });
      // Later, the early leaf has become valid; the expired one has not.
      expect((await verifier.verifyWithX5c(jwt, [pem(root)], BOTH, new Date('2028-06-01T00:00:00Z'))).ok, leaf.name).toBe(leaf === early);
    }
  });

  it('refuses an expired intermediate, and a configured root that has expired', async () => {
    const { root } = pki;
    const oldCa = await issue({ name: 'Old CA', issuer: root, ca: true, notAfter: new Date('2027-01-01T00:00:00Z') });
    const leaf = await issue({ name: 'Under Old CA', issuer: oldCa, ca: false });
    expect(await verifier.verifyWithX5c(await attestation(leaf, [b64(leaf), b64(oldCa)]), [pem(root)], BOTH, AT)).toEqual({ ok: false, reason: EXPIRED });

    const shortRoot = await issue({ name: 'Short Root', ca: true, notAfter: new Date('2027-01-01T00:00:00Z') });
    const ca = await issue({ name: 'Under Short Root', issuer: shortRoot, ca: true });
    const signer = await issue({ name: 'Signer Under Short Root', issuer: ca, ca: false });
    const jwt = await attestation(signer, [b64(signer), b64(ca)]);
    expect(await verifier.verifyWithX5c(jwt, [pem(shortRoot)], BOTH, AT)).toEqual({ ok: false, reason: EXPIRED });
    expect((await verifier.verifyWithX5c(jwt, [pem(shortRoot)], BOTH, new Date('2026-06-01T00:00:00Z'))).ok).toBe(true);
  });

  it('refuses an intermediate that is not a CA certificate, though it may sign certificates', async () => {
    const { root } = pki;
    const notCa = await issue({ name: 'Not A CA', issuer: root, ca: false, keyCertSignWithoutCa: true });
    const leaf = await issue({ name: 'Under Not A CA', issuer: notCa, ca: false });
    expect(await verifier.verifyWithX5c(await attestation(leaf, [b64(leaf), b64(notCa)]), [pem(root)], BOTH, AT)).toEqual({ ok: false, reason: NOT_CA });
  });

  it('refuses a configured root used as issuer that is not a CA certificate', async () => {
    const notCaRoot = await issue({ name: 'Not A CA Root', ca: false, keyCertSignWithoutCa: true });
    const leaf = await issue({ name: 'Under Not A CA Root', issuer: notCaRoot, ca: false });
    expect(await verifier.verifyWithX5c(await attestation(leaf, [b64(leaf)]), [pem(notCaRoot)], BOTH, AT)).toEqual({ ok: false, reason: UNTRUSTED });
  });

  it('refuses x5c in the wrong order, and a link whose signature does not verify', async () => {
    const { root, intermediate, leaf } = pki;
    const jwt = await attestation(leaf, [b64(leaf), b64(root), b64(intermediate)]);
    expect(await verifier.verifyWithX5c(jwt, [pem(root)], BOTH, AT)).toEqual({ ok: false, reason: BROKEN });

    // Same issuer name as the intermediate and no key identifier, but signed by another key.
    const stranger = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const forged = await issue({ name: 'Forged Signer', issuer: intermediate, forgeWith: stranger.privateKey, ca: false, authorityKeyId: false });
    expect(await verifier.verifyWithX5c(await attestation(forged, [b64(forged), b64(intermediate)]), [pem(root)], BOTH, AT)).toEqual({
      ok: false,
      reason: BROKEN,
    });

    // Signed by the intermediate's key, but naming another issuer: the names must chain too.
    const misnamed = await issue({ name: 'Misnamed Signer', issuer: intermediate, issuerName: 'Some Other CA', ca: false, authorityKeyId: false });
    expect(await verifier.verifyWithX5c(await attestation(misnamed, [b64(misnamed), b64(intermediate)]), [pem(root)], BOTH, AT)).toEqual({
      ok: false,
      reason: BROKEN,
    });
  });

  it('refuses an x5c that is not a non-empty array of base64 DER certificates, or holds more than 10', async () => {
    const { root, intermediate, leaf } = pki;
    // Certificates vary in length (ECDSA signatures do), so pick one whose base64 ends in padding
    // and one that uses + or /: only for those are unpadded and base64url spellings different.
    const leafWhere = async (test: (base64: string) => boolean): Promise<Issued> => {
      for (let i = 0; i < 100; i += 1) {
        const candidate = await issue({ name: 'Spelled Signer', issuer: intermediate, ca: false });
        if (test(b64(candidate))) return candidate;
      }
      throw new Error('No certificate with that spelling');
    };
    const padded = await leafWhere((base64) => base64.endsWith('='));
    const urlUnsafe = await leafWhere((base64) => /[+/]/.test(base64));
    // The same bytes with a stray bit set in the last character before the padding.
    const paddedBase64 = b64(padded);
    const last = paddedBase64.search(/=+$/) - 1;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const stray = `${paddedBase64.slice(0, last)}${alphabet[alphabet.indexOf(paddedBase64[last] as string) + 1]}${paddedBase64.slice(last + 1)}`;
    expect(Buffer.from(stray, 'base64').equals(Buffer.from(padded.certificate.rawData))).toBe(true);
    const notArray = "The JWT's x5c header must be a non-empty array of certificates";
    const cases: [Issued, unknown, string][] = [
      [leaf, undefined, notArray],
      [leaf, b64(leaf), notArray],
      [leaf, [], notArray],
      [leaf, { 0: b64(leaf), 1: b64(intermediate) }, notArray],
      [padded, [b64(padded).replaceAll('=', ''), b64(intermediate)], NOT_BASE64],
      [urlUnsafe, [Buffer.from(urlUnsafe.certificate.rawData).toString('base64url'), b64(intermediate)], NOT_BASE64],
      [leaf, [`${b64(leaf)}\n`, b64(intermediate)], NOT_BASE64],
      [padded, [stray, b64(intermediate)], NOT_BASE64],
      [leaf, [b64(leaf), ''], NOT_BASE64],
      [leaf, [b64(leaf), '!!!!'], NOT_BASE64],
      [leaf, [b64(leaf), 'AAAA'], NOT_BASE64],
      [leaf, [b64(leaf), 42], NOT_BASE64],
      [leaf, [b64(leaf), ...Array.from({ length: 10 }, () => b64(intermediate))], "The JWT's x5c header may hold at most 10 certificates"],
    ];
    for (const [signer, x5c, reason] of cases) {
      const jwt = await attestation(signer, x5c);
      expect(await verifier.verifyWithX5c(jwt, [pem(root)], BOTH, AT), JSON.stringify(x5c)?.slice(0, 40)).toEqual({ ok: false, reason });
    }
    // Spelled properly, the same certificates make a good chain.
    for (const signer of [padded, urlUnsafe])
      expect((await verifier.verifyWithX5c(await attestation(signer, [b64(signer), b64(intermediate)]), [pem(root)], BOTH, AT)).ok).toBe(true);
  });

  it('refuses a leaf whose key is RSA, even for an RS256 JWT the caller would allow', async () => {
    const { root, intermediate } = pki;
    const rsa = (await subtle.generateKey(
      { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
      true,
      ['sign', 'verify'],
    )) as webcrypto.CryptoKeyPair;
    const leaf = await issue({ name: 'RSA Signer', issuer: intermediate, ca: false, keys: rsa });
    const jwt = await attestation(leaf, [b64(leaf), b64(intermediate)], 'RS256');
    expect(await verifier.verifyWithX5c(jwt, [pem(root)], [...BOTH, 'RS256'], AT)).toEqual({
      ok: false,
      reason: 'The key of the first certificate in x5c must be a P-256 or Ed25519 key',
    });
  });

  it("refuses a tampered JWT and one signed by a key other than the leaf's", async () => {
    const { root, intermediate, leaf } = pki;
    const x5c = [b64(leaf), b64(intermediate)];
    const jwt = await attestation(leaf, x5c);
    expect(await verifier.verifyWithX5c(tamperSignature(jwt), [pem(root)], BOTH, AT)).toEqual({ ok: false, reason: SIGNATURE });
    const [h, , s] = jwt.split('.');
    const other = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    expect(await verifier.verifyWithX5c(`${h}.${other}.${s}`, [pem(root)], BOTH, AT)).toEqual({ ok: false, reason: SIGNATURE });
    const stranger = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const byStranger = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', x5c }).sign(stranger.privateKey);
    expect(await verifier.verifyWithX5c(byStranger, [pem(root)], BOTH, AT)).toEqual({ ok: false, reason: SIGNATURE });
  });

  it('refuses an invalid instant rather than checking nothing', async () => {
    const { root, intermediate, leaf } = pki;
    const jwt = await attestation(leaf, [b64(leaf), b64(intermediate)]);
    expect(await verifier.verifyWithX5c(jwt, [pem(root)], BOTH, new Date(Number.NaN))).toEqual({ ok: false, reason: 'The JWT could not be verified' });
  });
});
