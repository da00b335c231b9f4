// The SD-JWT VC verifier (issue 31) with the real adapters (@vellum/crypto's JwtProofVerifier and
// Digests) on credentials from two issuers: a second issuer and holder built here with
// @sd-jwt/sd-jwt-vc and node:crypto (an x5c chain made with openssl), and Vellum's own signer
// (@vellum/formats, a P-256 did:key, nested and array disclosures).
import { createHash, generateKeyPairSync, type JsonWebKey, type KeyObject, sign } from 'node:crypto';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createSdJwtVcVerifier, didKeyOf, evaluateDcql, type IssuerAnchor, keyFingerprint, type PublicJwk, type VerifyOptions } from '@vellum/core';
import {
  createCertificateChainValidator,
  createDigests,
  createDocumentSignerCertificate,
  createIacaCertificate,
  createJwtProofVerifier,
  managedSigningKey,
} from '@vellum/crypto';
import { createSdJwtSigner } from '@vellum/formats';
import { describe, expect, it } from 'vitest';
import { memoryKeyManager } from '../../../packages/crypto/test/key-manager.ts';
import { makeWalletProviderCa } from './attestation-ca.ts';
import { opensslAuthorityKeyId } from './openssl-key-ids.ts';

const VCT = 'https://credentials.example/pid';
const NONCE = 'n-0S6_WzA2Mj';
const AUDIENCE = 'x509_hash:verifier.example';

const verify = createSdJwtVcVerifier({ jwtProofs: createJwtProofVerifier(), digests: createDigests(new Uint8Array(32)) });

const es256 = (key: KeyObject) => (data: string) => sign('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
const hasher = (data: string | ArrayBuffer) =>
  createHash('sha256')
    .update(typeof data === 'string' ? data : new Uint8Array(data))
    .digest();
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

function holder() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as JsonWebKey;
  return { privateKey, jwk: { kty, crv, x, y } as PublicJwk };
}

/** The holder's side: @sd-jwt/sd-jwt-vc presents the chosen claims with a KB-JWT signed by `key`. */
function wallet(key: KeyObject) {
  return new SDJwtVcInstance({ hasher, saltGenerator: () => crypto.randomUUID(), kbSigner: es256(key), kbSignAlg: 'ES256' });
}

const present = (credential: string, key: KeyObject, frame: Record<string, unknown>, kb: { nonce?: string; aud?: string; iat?: number } = {}) =>
  wallet(key).present(credential, frame as never, {
    kb: { payload: { iat: kb.iat ?? seconds(new Date()), aud: kb.aud ?? AUDIENCE, nonce: kb.nonce ?? NONCE } },
  });

const failed = (result: { checks: Array<{ check: string; ok: boolean }> }) => result.checks.filter((c) => !c.ok).map((c) => c.check);

/** A second issuer: @sd-jwt/sd-jwt-vc signing with the leaf of an openssl-made root → intermediate → leaf chain. */
function secondIssuer() {
  const ca = makeWalletProviderCa('Second Issuer');
  const issuer = new SDJwtVcInstance({ hasher, hashAlg: 'sha-256', saltGenerator: () => crypto.randomUUID(), signer: es256(ca.signingKey), signAlg: 'ES256' });
  const anchor: IssuerAnchor = { kind: 'x509', trustedIssuerId: 'ti-second', certificatePem: ca.rootPem, formats: ['dc+sd-jwt'] };
  const issue = (cnf: PublicJwk, over: Record<string, unknown> = {}) => {
    const now = seconds(new Date());
    return issuer.issue(
      {
        iss: 'https://second.example',
        iat: now,
        exp: now + 3600,
        vct: VCT,
        cnf: { jwk: cnf },
        given_name: 'Erika',
        family_name: 'Mustermann',
        age_over_18: true,
        ...over,
      } as never,
      { _sd: ['given_name', 'family_name', 'age_over_18'] } as never,
      { header: { typ: 'dc+sd-jwt', x5c: ca.x5c } },
    );
  };
  return { anchor, issue, x5c: ca.x5c };
}

const options = (anchors: IssuerAnchor[], over: Partial<VerifyOptions> = {}): VerifyOptions => ({
  anchors,
  now: new Date(),
  nonce: NONCE,
  audience: AUDIENCE,
  ...over,
});

/** Swaps one character in the middle of a base64url segment, keeping it base64url. */
const tamper = (segment: string) => {
  const at = Math.floor(segment.length / 2);
  return segment.slice(0, at) + (segment[at] === 'A' ? 'B' : 'A') + segment.slice(at + 1);
};

describe('SD-JWT VC verification with the real adapters (issue 31)', () => {
  it('verifies a second issuer’s x5c credential presented by @sd-jwt/sd-jwt-vc, disclosing only what the holder chose', async () => {
    const { anchor, issue } = secondIssuer();
    const h = holder();
    const presentation = await present(await issue(h.jwk), h.privateKey, { given_name: true, age_over_18: true });
    const result = await verify(presentation, options([anchor]));
    expect(failed(result)).toEqual([]);
    expect(result.verified).toBe(true);
    expect(result.issuer).toEqual({ kind: 'x509', id: 'https://second.example', trusted: true, trustedIssuerId: 'ti-second' });
    expect(result.credentialType).toBe(VCT);
    expect(result.claims).toEqual({ iss: 'https://second.example', vct: VCT, given_name: 'Erika', age_over_18: true });
    expect(result.checks.map((c) => c.check)).toEqual([
      'format',
      'typ',
      'alg',
      'vct',
      'signature',
      'trusted-issuer',
      'validity',
      'disclosures',
      'key-binding',
      'nonce',
      'audience',
    ]);
  });

  it('names the AuthorityKeyIdentifiers of the x5c chain, as openssl reads them, and answers a DCQL aki query for the root', async () => {
    const { anchor, issue, x5c } = secondIssuer();
    const withKeyIds = createSdJwtVcVerifier({
      jwtProofs: createJwtProofVerifier(),
      digests: createDigests(new Uint8Array(32)),
      certificates: createCertificateChainValidator(),
    });
    const h = holder();
    const presentation = await present(await issue(h.jwk), h.privateKey, { given_name: true, age_over_18: true });
    const result = await withKeyIds(presentation, options([anchor]));
    // The signer's AKI names the intermediate, the intermediate's names the root.
    const [signerAki, intermediateAki] = x5c.map((entry) => opensslAuthorityKeyId(Buffer.from(entry, 'base64')));
    expect(signerAki).toBeDefined();
    expect(result.issuer?.authorityKeyIds).toEqual([signerAki, intermediateAki]);
    expect(result.holderBound).toBe(true);
    const query = (values: string[]) => ({
      credentials: [
        { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [VCT] }, claims: [{ path: ['age_over_18'] }], trusted_authorities: [{ type: 'aki', values }] },
      ],
    });
    const answered = evaluateDcql(query([intermediateAki as string]), { pid: [result] });
    expect(answered).toMatchObject({ satisfied: true, credentials: { pid: { claims: [{ age_over_18: true }] } } });
    expect(evaluateDcql(query(['AAAA']), { pid: [result] }).satisfied).toBe(false);
    // Presented without a key binding JWT: not holder bound, so a query that requires it (the default) is not answered.
    const bare = await withKeyIds(presentation.slice(0, presentation.lastIndexOf('~') + 1), { anchors: [anchor], now: new Date() });
    expect(bare.holderBound).toBe(false);
  });

  it('reports an issuer no anchor covers as untrusted, with its signature still checked from x5c alone', async () => {
    const { issue } = secondIssuer();
    const other = secondIssuer().anchor;
    const h = holder();
    const presentation = await present(await issue(h.jwk), h.privateKey, { given_name: true });
    const result = await verify(presentation, options([other]));
    expect(result.verified).toBe(false);
    expect(result.issuer).toEqual({ kind: 'x509', id: 'https://second.example', trusted: false });
    expect(failed(result)).toEqual(['trusted-issuer']);
  });

  it('refuses a vct the anchor’s types do not list', async () => {
    const { anchor, issue } = secondIssuer();
    const h = holder();
    const presentation = await present(await issue(h.jwk), h.privateKey, { given_name: true });
    const result = await verify(presentation, options([{ ...anchor, types: ['https://credentials.example/other'] }]));
    expect(result.verified).toBe(false);
    expect(result.checks.find((c) => c.check === 'trusted-issuer')).toEqual({
      check: 'trusted-issuer',
      ok: false,
      reason: 'The trusted issuer may not issue this vct',
    });
  });

  it('refuses an issuer JWT whose payload was changed after signing', async () => {
    const { anchor, issue } = secondIssuer();
    const h = holder();
    const [jwt = '', ...rest] = (await issue(h.jwk)).split('~');
    const [header, payload, signature] = jwt.split('.');
    const original = JSON.parse(Buffer.from(payload as string, 'base64url').toString('utf8'));
    const changed = { ...original, exp: original.exp + 86_400 };
    const forged = [`${header}.${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`, ...rest].join('~');
    const result = await verify(forged, options([anchor], { nonce: undefined, audience: undefined }));
    expect(result.verified).toBe(false);
    expect(failed(result)).toEqual(['signature', 'trusted-issuer']);
  });

  it('refuses an expired credential', async () => {
    const { anchor, issue } = secondIssuer();
    const h = holder();
    const past = seconds(new Date()) - 7200;
    const presentation = await present(await issue(h.jwk, { iat: past, exp: past + 3600 }), h.privateKey, { given_name: true });
    const result = await verify(presentation, options([anchor]));
    expect(failed(result)).toEqual(['validity']);
    expect(result.verified).toBe(false);
  });

  it('refuses a tampered disclosure, and a disclosure the credential has no digest for', async () => {
    const { anchor, issue } = secondIssuer();
    const h = holder();
    const credential = await issue(h.jwk);
    const [jwt, first, ...rest] = credential.split('~');
    // No KB-JWT (none expected), so only the disclosure check can fail.
    const t = await verify([jwt, tamper(first as string), ...rest].join('~'), options([anchor], { nonce: undefined, audience: undefined }));
    expect(failed(t)).toEqual(['disclosures']);

    const foreign = (await issue(h.jwk)).split('~')[1] as string;
    const extra = `${jwt}~${foreign}~`;
    const e = await verify(extra, options([anchor], { nonce: undefined, audience: undefined }));
    expect(e.checks.find((c) => c.check === 'disclosures')).toEqual({
      check: 'disclosures',
      ok: false,
      reason: 'A disclosure is not referenced by any digest in the credential',
    });
  });

  it('refuses a wrong nonce, a wrong audience, a stale KB-JWT, a KB-JWT by another key, and none when a nonce is expected', async () => {
    const { anchor, issue } = secondIssuer();
    const h = holder();
    const credential = await issue(h.jwk);
    const check = async (presentation: string) => failed(await verify(presentation, options([anchor])));
    expect(await check(await present(credential, h.privateKey, { given_name: true }, { nonce: 'another' }))).toEqual(['nonce']);
    expect(await check(await present(credential, h.privateKey, { given_name: true }, { aud: 'x509_hash:someone.else' }))).toEqual(['audience']);
    expect(await check(await present(credential, h.privateKey, { given_name: true }, { iat: seconds(new Date()) - 600 }))).toEqual(['key-binding']);
    expect(await check(await present(credential, holder().privateKey, { given_name: true }))).toEqual(['key-binding']);
    const bare = await wallet(h.privateKey).present(credential, { given_name: true } as never);
    expect(await check(bare)).toEqual(['key-binding']);
    // Without a nonce or audience expected, a bare SD-JWT is checked without key binding.
    expect(failed(await verify(bare, options([anchor], { nonce: undefined, audience: undefined })))).toEqual([]);
  });

  it('verifies a credential from Vellum’s own signer (P-256 did:key, nested and array disclosures) against a did anchor', async () => {
    const { keys, tenant } = await memoryKeyManager();
    const key = await keys.create(tenant.id, 'P-256');
    const did = didKeyOf(key.publicJwk);
    const h = holder();
    const now = seconds(new Date());
    const credential = await createSdJwtSigner({ keys }).issue({
      tenantId: tenant.id,
      keyId: key.id,
      alg: 'ES256',
      kid: `${did}#${keyFingerprint(key.publicJwk)}`,
      payload: {
        iss: did,
        iat: now,
        nbf: now,
        exp: now + 3600,
        vct: VCT,
        cnf: { jwk: h.jwk },
        status: { status_list: { idx: 3, uri: 'https://issuer.example/status/1' } },
        given_name: 'Erika',
        address: { locality: 'Köln', postal_code: '51147' },
        nationalities: ['DE', 'FR'],
      },
      disclosable: ['given_name', 'address', 'nationalities'],
      rules: [{ path: ['address', 'locality'], decoys: 2 }, { path: ['nationalities', null] }],
    });
    const anchor: IssuerAnchor = { kind: 'did', trustedIssuerId: 'ti-vellum', did, formats: ['dc+sd-jwt'], types: [VCT] };
    const presentation = await present(credential, h.privateKey, { address: { locality: true }, nationalities: { 1: true } });
    const result = await verify(presentation, options([anchor]));
    expect(failed(result)).toEqual([]);
    expect(result.verified).toBe(true);
    expect(result.issuer).toEqual({ kind: 'did', id: did, trusted: true, trustedIssuerId: 'ti-vellum' });
    expect(result.claims).toEqual({ iss: did, vct: VCT, address: { locality: 'Köln', postal_code: '51147' }, nationalities: ['FR'] });
    expect(result.status).toBe('not-checked');
    expect(result.validity).toEqual({ validFrom: new Date(now * 1000).toISOString(), validUntil: new Date((now + 3600) * 1000).toISOString() });

    // The same credential with no anchor for its DID: the signature holds, the issuer is untrusted.
    const untrusted = await verify(presentation, options([]));
    expect(untrusted.issuer).toEqual({ kind: 'did', id: did, trusted: false });
    expect(failed(untrusted)).toEqual(['trusted-issuer']);
  });

  it('verifies Vellum’s signer with an issuer CA leaf its certificate tooling made, presented with an Ed25519 holder key', async () => {
    const { keys, tenant } = await memoryKeyManager();
    const day = 86_400_000;
    const at = Date.now();
    const caKey = managedSigningKey(keys, await keys.create(tenant.id, 'P-256'));
    const ca = await createIacaCertificate({
      key: caKey,
      commonName: 'Vellum Verify CA',
      country: 'DE',
      notBefore: new Date(at - day),
      notAfter: new Date(at + 365 * day),
      issuerAlternativeName: 'https://issuer.example.com',
      crlDistributionPointUri: 'https://issuer.example.com/crl',
    });
    const leafKey = await keys.create(tenant.id, 'P-256');
    const leaf = await createDocumentSignerCertificate({
      iaca: { certificateDer: ca.der, key: caKey },
      subjectPublicJwk: leafKey.publicJwk,
      commonName: 'Vellum Verify Signer',
      country: 'DE',
      notBefore: new Date(at - day),
      notAfter: new Date(at + 30 * day),
      issuerAlternativeName: 'https://issuer.example.com',
      crlDistributionPointUri: 'https://issuer.example.com/crl',
      // An issuer CA's leaf, as Vellum makes for x5c-signed SD-JWT VCs (docs/decisions.md "Issuer certificates").
      subjectAltNames: ['https://issuer.example.com'],
    });
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const { kty, crv, x } = publicKey.export({ format: 'jwk' }) as JsonWebKey;
    const now = seconds(new Date());
    const credential = await createSdJwtSigner({ keys }).issue({
      tenantId: tenant.id,
      keyId: leafKey.id,
      alg: 'ES256',
      x5c: [Buffer.from(leaf.der).toString('base64')],
      payload: { iss: 'https://issuer.example.com', iat: now, exp: now + 600, vct: VCT, cnf: { jwk: { kty, crv, x } }, given_name: 'Erika' },
      disclosable: ['given_name'],
    });
    const edWallet = new SDJwtVcInstance({
      hasher,
      kbSignAlg: 'EdDSA',
      kbSigner: (data: string) => sign(null, Buffer.from(data), privateKey).toString('base64url'),
    });
    const presentation = await edWallet.present(credential, { given_name: true } as never, { kb: { payload: { iat: now, aud: AUDIENCE, nonce: NONCE } } });
    const anchor: IssuerAnchor = { kind: 'x509', trustedIssuerId: 'ti-ca', certificatePem: ca.pem, formats: ['dc+sd-jwt'], types: [VCT] };
    const result = await verify(presentation, options([anchor]));
    expect(failed(result)).toEqual([]);
    expect(result.issuer).toEqual({ kind: 'x509', id: 'https://issuer.example.com', trusted: true, trustedIssuerId: 'ti-ca' });
    expect(result.claims).toEqual({ iss: 'https://issuer.example.com', vct: VCT, given_name: 'Erika' });
  });

  it('never throws on what is not an SD-JWT', async () => {
    for (const input of ['', '~', 'a.b.c~', 'not-a-jwt', `${'eyJ'.repeat(3)}~x~`, 42 as unknown as string]) {
      const result = await verify(input, options([]));
      expect(result.verified).toBe(false);
      expect(failed(result).length).toBeGreaterThan(0);
    }
  });
});
