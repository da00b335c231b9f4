// Issue 16 acceptance: key attestations in key proofs (OpenID4VCI 1.0 App. D), against the real
// server over TLS. A wallet provider, whose certificate authority is built here from DER with
// node:crypto (no Vellum code), vouches for a wallet's key in a key attestation JWT; the wallet
// library we did not write (@openid4vc/openid4vci) makes that attestation and the jwt proof that
// carries it in its key_attestation header. The library's metadata resolver reads the levels a
// configuration requires; a proof with a good attestation gets an mDoc whose device key is the
// attested key, which @auth0/mdl (another team's verifier) checks through a device signature made
// with that key; each way an attestation can fail is answered 400 invalid_proof; a configuration
// without the requirement issues without any attestation. (Pre-authorized offers issue mDocs only.)
import { generateKeyPairSync, type KeyObject, randomBytes, sign, X509Certificate } from 'node:crypto';
import type { Jwk, JwtSigner } from '@openid4vc/oauth2';
import { createKeyAttestationJwt, type IssuerMetadataResult, Openid4vciRetrieveCredentialsError, Openid4vciWalletProvider } from '@openid4vc/openid4vci';
import { importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeIaca, type IssuerServer, startIssuerServer } from './issuer-server.ts';
import { libraryWallet, preAuthorizedToken } from './library-wallet.ts';
import { presentAndVerify } from './mdoc-verify.ts';

const DOC_TYPE = 'com.example.attested-membership.1';
const PLAIN_DOC_TYPE = 'com.example.plain-membership.1';
const DAY = 24 * 60 * 60 * 1000;

// --- A wallet provider's certificate authority, in DER (RFC 5280 §4.1) -------------------------

const derLength = (n: number): Buffer => {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const tlv = (tag: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
};
const sequence = (...parts: Buffer[]) => tlv(0x30, ...parts);
const set = (...parts: Buffer[]) => tlv(0x31, ...parts);
const explicit = (n: number, inner: Buffer) => tlv(0xa0 + n, inner);
const positiveInteger = (bytes: Buffer) => tlv(0x02, (bytes[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
const bitString = (bytes: Buffer, unusedBits = 0) => tlv(0x03, Buffer.from([unusedBits]), bytes);
const octetString = (bytes: Buffer) => tlv(0x04, bytes);
const TRUE = tlv(0x01, Buffer.from([0xff]));

function objectIdentifier(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let r = arc >> 7; r > 0; r >>= 7) groups.unshift((r & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime (RFC 5280 §4.1.2.5.1): YYMMDDHHMMSSZ, enough for the years these tests use. */
const utcTime = (at: Date) => tlv(0x17, Buffer.from(`${at.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`, 'ascii'));
/** A distinguished name with only a common name. */
const commonName = (cn: string) => sequence(set(sequence(objectIdentifier('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));
const ECDSA_WITH_SHA256 = sequence(objectIdentifier('1.2.840.10045.4.3.2'));

interface Issued {
  name: string;
  der: Buffer;
  pem: string;
  /** Standard base64 of the DER, as an x5c entry holds it (RFC 7515 §4.1.6). */
  x5c: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/**
 * A P-256 certificate: a CA (basicConstraints cA, keyUsage keyCertSign and cRLSign) or an
 * attestation signer (keyUsage digitalSignature), signed by `issuer` or by itself.
 */
function issueCertificate(name: string, options: { issuer?: Issued; ca: boolean; notBefore: Date; notAfter: Date }): Issued {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serial = randomBytes(16);
  serial[0] = (serial[0] as number) & 0x7f;
  const basicConstraints = options.ca ? sequence(TRUE) : sequence();
  const keyUsage = options.ca ? bitString(Buffer.from([0x06]), 1) : bitString(Buffer.from([0x80]), 7);
  const extensions = sequence(
    sequence(objectIdentifier('2.5.29.19'), TRUE, octetString(basicConstraints)),
    sequence(objectIdentifier('2.5.29.15'), TRUE, octetString(keyUsage)),
  );
  const tbs = sequence(
    explicit(0, tlv(0x02, Buffer.from([2]))),
    positiveInteger(serial),
    ECDSA_WITH_SHA256,
    commonName(options.issuer?.name ?? name),
    sequence(utcTime(options.notBefore), utcTime(options.notAfter)),
    commonName(name),
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, { key: options.issuer?.privateKey ?? privateKey, dsaEncoding: 'der' });
  const der = sequence(tbs, ECDSA_WITH_SHA256, bitString(signature));
  const base64 = der.toString('base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)?.join('\n')}\n-----END CERTIFICATE-----\n`;
  return { name, der, pem, x5c: base64, privateKey, publicKey };
}

interface WalletProviderCa {
  root: Issued;
  intermediate: Issued;
  signer: Issued;
  /** A second signer under the same intermediate whose certificate expired yesterday. */
  expiredSigner: Issued;
}

/** A root, an intermediate it issues and attestation signers the intermediate issues. */
function walletProviderCa(name: string): WalletProviderCa {
  const now = Date.now();
  const valid = { notBefore: new Date(now - DAY), notAfter: new Date(now + 30 * DAY) };
  const root = issueCertificate(`${name} Root CA`, { ca: true, ...valid });
  const intermediate = issueCertificate(`${name} Key Attestation CA`, { issuer: root, ca: true, ...valid });
  const signer = issueCertificate(`${name} Key Attestation Signer`, { issuer: intermediate, ca: false, ...valid });
  const expiredSigner = issueCertificate(`${name} Retired Key Attestation Signer`, {
    issuer: intermediate,
    ca: false,
    notBefore: new Date(now - 30 * DAY),
    notAfter: new Date(now - DAY),
  });
  return { root, intermediate, signer, expiredSigner };
}

// --- The suite ----------------------------------------------------------------------------------

type Refusal = { status: number; error?: string; description?: string };

describe('Key attestations in key proofs, made by a wallet library we did not write (issue 16)', () => {
  let server: IssuerServer;
  let iacaPem: string;
  let attestedId: string;
  let plainId: string;
  let provider: WalletProviderCa;
  let stranger: WalletProviderCa;

  beforeAll(async () => {
    provider = walletProviderCa('Acme Wallet');
    stranger = walletProviderCa('Unknown Wallet');
    // The certificates are what node:crypto (OpenSSL) reads as a chain: each issued by the next.
    const [signer, intermediate, root] = [provider.signer, provider.intermediate, provider.root].map((c) => new X509Certificate(c.der)) as X509Certificate[];
    expect(signer?.checkIssued(intermediate as X509Certificate) && signer.verify((intermediate as X509Certificate).publicKey)).toBe(true);
    expect(intermediate?.checkIssued(root as X509Certificate) && intermediate.verify((root as X509Certificate).publicKey)).toBe(true);
    expect([root?.ca, intermediate?.ca, signer?.ca]).toEqual([true, true, false]);

    server = await startIssuerServer();
    iacaPem = await activeIaca(server);
    const members = { given_name: { mapFrom: 'claims.givenName', required: true }, member_number: { mapFrom: 'claims.memberNumber' } };
    const attested = await server.call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      name: 'Attested membership',
      expiresIn: { days: 30 },
      claimMappings: { [DOC_TYPE]: members },
      keyAttestationsRequired: {
        keyStorage: ['iso_18045_high', 'iso_18045_moderate'],
        userAuthentication: ['iso_18045_high'],
        rootCertificates: [provider.root.pem],
      },
    });
    expect(attested.status, attested.text).toBe(201);
    attestedId = attested.json().id;
    const plain = await server.call('POST', '/v2/credentials/mobile/configurations', {
      type: PLAIN_DOC_TYPE,
      name: 'Plain membership',
      expiresIn: { days: 30 },
      claimMappings: { [PLAIN_DOC_TYPE]: members },
    });
    expect(plain.status, plain.text).toBe(201);
    plainId = plain.json().id;
  });

  afterAll(async () => {
    await server?.stop();
  });

  /** ES256 with jose over a node:crypto private key, under the given header (alg set to ES256). */
  async function es256(privateKey: KeyObject, header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
    const key = await importJWK(privateKey.export({ format: 'jwk' }), 'ES256');
    return new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(key);
  }

  const wallet = () => libraryWallet(server.tlsFetch);
  type Wallet = ReturnType<typeof wallet>;

  /** The wallet provider's side: the library's key attestation, signed by a certificate of `ca`. */
  function attestationsBy(ca: WalletProviderCa, signer: Issued = ca.signer) {
    const walletProvider = new Openid4vciWalletProvider({
      callbacks: {
        signJwt: async (_signer, { header, payload }) => ({
          jwt: await es256(signer.privateKey, header, payload),
          signerJwk: signer.publicKey.export({ format: 'jwk' }) as Jwk,
        }),
      },
    });
    const x5c: JwtSigner = { method: 'x5c', alg: 'ES256', x5c: [signer.x5c, ca.intermediate.x5c] };
    return (options: Omit<Parameters<Openid4vciWalletProvider['createKeyAttestationJwt']>[0], 'signer'>) =>
      walletProvider.createKeyAttestationJwt({ signer: x5c, use: 'proof_type.jwt', ...options });
  }

  /** The usual attestation: the wallet's key kept and unlocked at iso_18045_high, valid for an hour. */
  const goodAttestation = (keys: Jwk[], extra: { nonce?: string } = {}) =>
    attestationsBy(provider)({
      attestedKeys: keys,
      keyStorage: ['iso_18045_high'],
      userAuthentication: ['iso_18045_high'],
      expiresAt: new Date(Date.now() + 60 * 60 * 1000),
      ...extra,
    });

  /** A pre-authorized offer for one configuration, redeemed by the wallet, and a fresh c_nonce. */
  async function session(device: Wallet, configurationId: string) {
    const created = await server.call('POST', '/v1/openid/offers/pre-authorized', {
      credentials: [configurationId],
      claims: { givenName: 'Ada', memberNumber: 'M-1042' },
    });
    expect(created.status, created.text).toBe(200);
    const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(device.client, created.json().uri);
    const { c_nonce } = await device.client.requestNonce({ issuerMetadata });
    return { issuerMetadata, accessToken: accessTokenResponse.access_token, cNonce: c_nonce, configurationId };
  }
  type Session = Awaited<ReturnType<typeof session>>;

  /** The library's jwt proof, signed with the wallet's key, carrying the attestation when given. */
  async function proof(device: Wallet, s: Session, keyAttestationJwt?: string): Promise<string> {
    const { jwt } = await device.client.createCredentialRequestJwtProof({
      issuerMetadata: s.issuerMetadata,
      credentialConfigurationId: s.configurationId,
      signer: device.signer,
      nonce: s.cNonce,
      ...(keyAttestationJwt === undefined ? {} : { keyAttestationJwt }),
    });
    return jwt;
  }

  /**
   * A jwt proof (OpenID4VCI 1.0 App. F.1) made by hand with jose, for a wallet that does what the
   * library will not: leave out the attestation it needs, or sign with a key the attestation omits.
   */
  const handmadeProof = (device: Wallet, s: Session, header: Record<string, unknown> = {}) =>
    es256(
      device.privateKey,
      { typ: 'openid4vci-proof+jwt', jwk: device.publicJwk, ...header },
      { aud: server.origin, iat: Math.floor(Date.now() / 1000), nonce: s.cNonce },
    );

  /** The credential request by the library: the issued mDoc (IssuerSigned, base64url), or the refusal as the library read it. */
  async function request(device: Wallet, s: Session, jwt: string): Promise<{ credential: string } | Refusal> {
    try {
      const response = await device.client.retrieveCredentials({
        issuerMetadata: s.issuerMetadata,
        accessToken: s.accessToken,
        credentialConfigurationId: s.configurationId,
        proofs: { jwt: [jwt] },
      });
      expect(response.response.status).toBe(200);
      const credentials = (response.credentialResponse as { credentials?: Array<{ credential: string }> }).credentials;
      expect(credentials).toHaveLength(1);
      return { credential: credentials?.[0]?.credential as string };
    } catch (error) {
      if (!(error instanceof Openid4vciRetrieveCredentialsError)) throw error;
      const body = error.response.credentialErrorResponseResult?.data as { error?: string; error_description?: string } | undefined;
      return { status: error.response.response.status, error: body?.error, description: body?.error_description };
    }
  }

  /**
   * The issued mDoc presented by the wallet, as @auth0/mdl verifies it against the IACA: issuer
   * signature, digests and a device signature made with the wallet's private key. Returns the
   * device key the MSO holds and the element values.
   */
  async function verifiedMdoc(credential: string, device: Wallet, docType: string) {
    const { document, deviceKey } = await presentAndVerify(credential, docType, device.privateKey, iacaPem);
    const values = document?.getIssuerNameSpace(docType) ?? {};
    return { deviceKey, values: values as Record<string, unknown> };
  }

  /** The issued credential, or a failed test that shows the refusal. */
  const credentialOf = (answer: { credential: string } | Refusal): string => {
    expect(answer).toHaveProperty('credential');
    return (answer as { credential: string }).credential;
  };

  const expectRefused = (answer: { credential: string } | Refusal, reason: RegExp) => {
    expect(answer).toMatchObject({ status: 400, error: 'invalid_proof' });
    expect((answer as Refusal).description).toMatch(reason);
  };

  function entryOf(metadata: IssuerMetadataResult, id: string) {
    return metadata.credentialIssuer.credential_configurations_supported[id] as Record<string, any>;
  }

  it('publishes key_attestations_required with the configured levels, and never the roots, as the library’s metadata resolver reads them', async () => {
    const metadata = await wallet().client.resolveIssuerMetadata(server.origin);
    expect(entryOf(metadata, attestedId).proof_types_supported.jwt).toEqual({
      proof_signing_alg_values_supported: expect.arrayContaining(['ES256']),
      key_attestations_required: { key_storage: ['iso_18045_high', 'iso_18045_moderate'], user_authentication: ['iso_18045_high'] },
    });
    expect(entryOf(metadata, plainId).proof_types_supported.jwt).not.toHaveProperty('key_attestations_required');
    const raw = await server.call('GET', '/.well-known/openid-credential-issuer', undefined, {});
    expect(raw.status).toBe(200);
    expect(raw.text).not.toContain('BEGIN CERTIFICATE');
    expect(raw.text).not.toContain(provider.root.x5c.slice(0, 40));
    expect(raw.text).not.toMatch(/rootCertificates|root_certificates/);
  });

  it('issues a credential bound to the attested key when the proof carries a good attestation', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    const answer = await request(device, s, await proof(device, s, await goodAttestation([device.publicJwk])));
    const { deviceKey, values } = await verifiedMdoc(credentialOf(answer), device, DOC_TYPE);
    expect(deviceKey).toMatchObject({ kty: 'EC', crv: 'P-256', x: device.publicJwk.x, y: device.publicJwk.y });
    expect(values).toMatchObject({ given_name: 'Ada', member_number: 'M-1042' });
  });

  it('binds the credential to the key the proof is signed with when the attestation vouches for several, and takes a nonce equal to the c_nonce', async () => {
    const device = wallet();
    const sibling = wallet();
    const s = await session(device, attestedId);
    const attestation = await goodAttestation([sibling.publicJwk, device.publicJwk], { nonce: s.cNonce });
    const answer = await request(device, s, await proof(device, s, attestation));
    const { deviceKey } = await verifiedMdoc(credentialOf(answer), device, DOC_TYPE);
    expect(deviceKey).toMatchObject({ x: device.publicJwk.x, y: device.publicJwk.y });
    expect(deviceKey.x).not.toBe(sibling.publicJwk.x);
  });

  it('takes an attestation with the type OpenID4VCI 1.0 names (key-attestation+jwt), made with the library’s standalone function and a callback that sets that typ', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    const attestation = await createKeyAttestationJwt({
      signer: { method: 'x5c', alg: 'ES256', x5c: [provider.signer.x5c, provider.intermediate.x5c] },
      use: 'proof_type.jwt',
      attestedKeys: [device.publicJwk],
      keyStorage: ['iso_18045_moderate'],
      userAuthentication: ['iso_18045_high'],
      expiresAt: new Date(Date.now() + 60 * 60 * 1000),
      callbacks: {
        signJwt: async (_signer, { header, payload }) => ({
          jwt: await es256(provider.signer.privateKey, { ...header, typ: 'key-attestation+jwt' }, payload),
          signerJwk: provider.signer.publicKey.export({ format: 'jwk' }) as Jwk,
        }),
      },
    });
    expect(JSON.parse(Buffer.from(attestation.split('.')[0] as string, 'base64url').toString()).typ).toBe('key-attestation+jwt');
    const answer = await request(device, s, await proof(device, s, attestation));
    expect((await verifiedMdoc(credentialOf(answer), device, DOC_TYPE)).deviceKey).toMatchObject({ x: device.publicJwk.x, y: device.publicJwk.y });
  });

  it('refuses a proof without a key_attestation header with 400 invalid_proof (the library, having read the metadata, will not even make one)', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    await expect(proof(device, s)).rejects.toThrow(/requires key attestations/);
    expectRefused(await request(device, s, await handmadeProof(device, s)), /key attestation/i);
  });

  it('refuses an attestation whose chain leads to a root the configuration does not trust', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    const attestation = await attestationsBy(stranger)({
      attestedKeys: [device.publicJwk],
      keyStorage: ['iso_18045_high'],
      userAuthentication: ['iso_18045_high'],
      expiresAt: new Date(Date.now() + 60 * 60 * 1000),
    });
    expectRefused(await request(device, s, await proof(device, s, attestation)), /trusted root/);
  });

  it('refuses an attestation signed under the trusted root by a signer certificate that has expired', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    const attestation = await attestationsBy(
      provider,
      provider.expiredSigner,
    )({
      attestedKeys: [device.publicJwk],
      keyStorage: ['iso_18045_high'],
      userAuthentication: ['iso_18045_high'],
      expiresAt: new Date(Date.now() + 60 * 60 * 1000),
    });
    expectRefused(await request(device, s, await proof(device, s, attestation)), /expired/);
  });

  it('refuses an attestation whose exp has passed', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    const attestation = await attestationsBy(provider)({
      attestedKeys: [device.publicJwk],
      keyStorage: ['iso_18045_high'],
      userAuthentication: ['iso_18045_high'],
      issuedAt: new Date(Date.now() - 2 * 60 * 60 * 1000),
      expiresAt: new Date(Date.now() - 60 * 60 * 1000),
    });
    expectRefused(await request(device, s, await proof(device, s, attestation)), /expired/);
  });

  it('refuses an attestation without exp, which a jwt proof’s attestation must carry', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    const attestation = await attestationsBy(provider)({
      use: undefined,
      attestedKeys: [device.publicJwk],
      keyStorage: ['iso_18045_high'],
      userAuthentication: ['iso_18045_high'],
    });
    expect(JSON.parse(Buffer.from(attestation.split('.')[1] as string, 'base64url').toString())).not.toHaveProperty('exp');
    expectRefused(await request(device, s, await proof(device, s, attestation)), /exp/);
  });

  it('refuses a proof signed with a key the attestation does not list (a wallet that bypasses the library’s own check)', async () => {
    const device = wallet();
    const attestedElsewhere = wallet();
    const s = await session(device, attestedId);
    const attestation = await goodAttestation([attestedElsewhere.publicJwk]);
    // The library will not make this proof; the wallet signs it by hand.
    await expect(proof(device, s, attestation)).rejects.toThrow(/attested_keys/);
    expectRefused(await request(device, s, await handmadeProof(device, s, { key_attestation: attestation })), /attested_keys/);
  });

  it.each([
    ['key_storage', { keyStorage: ['iso_18045_basic'], userAuthentication: ['iso_18045_high'] }],
    ['key_storage (absent)', { userAuthentication: ['iso_18045_high'] }],
    ['user_authentication', { keyStorage: ['iso_18045_high'], userAuthentication: ['iso_18045_enhanced-basic', 'iso_18045_moderate'] }],
  ])('refuses an attestation whose %s level is not one the configuration accepts', async (level, levels) => {
    const device = wallet();
    const s = await session(device, attestedId);
    const attestation = await attestationsBy(provider)({ attestedKeys: [device.publicJwk], expiresAt: new Date(Date.now() + 60 * 60 * 1000), ...levels });
    expectRefused(await request(device, s, await proof(device, s, attestation)), new RegExp(level.split(' ')[0] as string));
  });

  it('refuses an attestation whose nonce is not the proof’s c_nonce', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    const attestation = await goodAttestation([device.publicJwk], { nonce: 'a-nonce-of-some-other-issuer' });
    expectRefused(await request(device, s, await proof(device, s, attestation)), /nonce/);
  });

  it.each([
    ['not a JWT', 'not-a-jwt'],
    ['a number', 42],
    ['a JWT without x5c', 'x5c'],
  ])('refuses a key_attestation header that is %s with 400, never a server error', async (_what, value) => {
    const device = wallet();
    const s = await session(device, attestedId);
    const header =
      value === 'x5c'
        ? await es256(
            provider.signer.privateKey,
            { typ: 'keyattestation+jwt' },
            { iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 3600, attested_keys: [device.publicJwk] },
          )
        : value;
    expect(await request(device, s, await handmadeProof(device, s, { key_attestation: header }))).toMatchObject({ status: 400, error: 'invalid_proof' });
  });

  it('still issues after refusals: the refused requests spent neither the access token nor the c_nonce', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    expectRefused(await request(device, s, await handmadeProof(device, s)), /key attestation/i);
    const answer = await request(device, s, await proof(device, s, await goodAttestation([device.publicJwk])));
    expect((await verifiedMdoc(credentialOf(answer), device, DOC_TYPE)).deviceKey).toMatchObject({ x: device.publicJwk.x, y: device.publicJwk.y });
  });

  it('holds the deprecated draft-13 request (a single proof) to the same requirement', async () => {
    const device = wallet();
    const s = await session(device, attestedId);
    const legacy = (jwt: string) =>
      server.call(
        'POST',
        '/v1/openid/credential',
        { format: 'mso_mdoc', doctype: DOC_TYPE, proof: { proof_type: 'jwt', jwt } },
        { authorization: `Bearer ${s.accessToken}` },
      );
    const bare = await legacy(await handmadeProof(device, s));
    expect(bare.status, bare.text).toBe(400);
    expect(bare.json()).toMatchObject({ error: 'invalid_proof' });
    const attested = await legacy(await proof(device, s, await goodAttestation([device.publicJwk])));
    expect(attested.status, attested.text).toBe(200);
    expect((await verifiedMdoc(attested.json().credential, device, DOC_TYPE)).deviceKey).toMatchObject({ x: device.publicJwk.x, y: device.publicJwk.y });
  });

  it('issues a configuration without the requirement with no attestation at all, and ignores one that is sent', async () => {
    const device = wallet();
    const s = await session(device, plainId);
    const answer = await request(device, s, await proof(device, s));
    const { deviceKey, values } = await verifiedMdoc(credentialOf(answer), device, PLAIN_DOC_TYPE);
    expect(deviceKey).toMatchObject({ x: device.publicJwk.x, y: device.publicJwk.y });
    expect(values).toMatchObject({ given_name: 'Ada' });

    const other = wallet();
    const t = await session(other, plainId);
    const untrusted = await attestationsBy(stranger)({ attestedKeys: [other.publicJwk], expiresAt: new Date(Date.now() + 60 * 60 * 1000) });
    const second = await request(other, t, await proof(other, t, untrusted));
    expect((await verifiedMdoc(credentialOf(second), other, PLAIN_DOC_TYPE)).deviceKey).toMatchObject({ x: other.publicJwk.x, y: other.publicJwk.y });
  });
});
