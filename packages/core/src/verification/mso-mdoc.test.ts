import { describe, expect, it } from 'vitest';
import type { CertificateChainValidator, MdocDocumentView, MdocReader, MdocReading } from './mdoc-ports.ts';
import type { IssuerAnchor, VerificationResult } from './model.ts';
import type { HttpClient } from '../shared/ports.ts';
import { createStatusListLookup } from '../shared/token-status-lists.ts';
import { createMdocVerifier } from './mso-mdoc.ts';

const NOW = new Date('2026-06-01T12:00:00Z');
const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const DIGEST = Uint8Array.of(1, 2, 3);
const SIGNER = Uint8Array.of(0x30, 1);
const IACA_PEM = 'IACA';

function document(overrides: Partial<MdocDocumentView> = {}, mso: Partial<MdocDocumentView['mso']> = {}): MdocDocumentView {
  return {
    docType: DOC_TYPE,
    x5chain: [SIGNER],
    issuerSignature: { valid: true },
    signerFingerprint: 'ab'.repeat(32),
    mso: {
      docType: DOC_TYPE,
      digestAlgorithm: 'SHA-256',
      valueDigests: { [NS]: new Map([[7, DIGEST]]) },
      validityInfo: { signed: new Date('2026-01-01T00:00:00Z'), validFrom: new Date('2026-01-01T00:00:00Z'), validUntil: new Date('2027-01-01T00:00:00Z') },
      hasStatus: false,
      ...mso,
    },
    items: [{ namespace: NS, digestId: 7, elementIdentifier: 'family_name', elementValue: 'Turner', digest: DIGEST }],
    deviceAuth: { kind: 'signature', valid: true },
    ...overrides,
  };
}

const reading = (doc: MdocDocumentView, kind: 'device-response' | 'issuer-signed' = 'device-response'): MdocReading => ({ ok: true, kind, documents: [doc] });

function verifierWith(
  result: MdocReading,
  chainOk: CertificateChainValidator['validate'] = (_c, pem) => (pem === IACA_PEM ? { ok: true } : { ok: false, reason: 'Not issued by it' }),
) {
  const seen: { transcript?: Uint8Array | undefined } = {};
  const reader: MdocReader = {
    read: (_bytes, options) => {
      seen.transcript = options.sessionTranscript;
      return result;
    },
    readStatusList: () => ({ ok: false, reason: 'No status list in this test' }),
  };
  return { verify: createMdocVerifier({ reader, chains: { validate: chainOk } }), seen };
}

const anchor = (types?: string[], formats: IssuerAnchor['formats'] = ['mso_mdoc']): IssuerAnchor => ({
  kind: 'x509',
  trustedIssuerId: 'ti-1',
  certificatePem: IACA_PEM,
  formats,
  ...(types ? { types } : {}),
});
const CREDENTIAL = 'oWR0ZXN0AQ';
const failed = (result: VerificationResult) => result.checks.filter((c) => !c.ok).map((c) => c.check);

describe('createMdocVerifier', () => {
  it('verifies a document every check of which passes, with the claims by namespace and the trusted issuer', async () => {
    const { verify, seen } = verifierWith(reading(document()));
    const transcript = Uint8Array.of(0x83, 0xf6, 0xf6, 0xf6);
    const result = await verify(CREDENTIAL, { anchors: [anchor([DOC_TYPE])], now: NOW, sessionTranscript: transcript });
    expect(seen.transcript).toBe(transcript);
    expect(result).toEqual({
      verified: true,
      format: 'mso_mdoc',
      issuer: { kind: 'x509', id: 'ab'.repeat(32), trusted: true, trustedIssuerId: 'ti-1' },
      credentialType: DOC_TYPE,
      claims: { [NS]: { family_name: 'Turner' } },
      validity: { validFrom: '2026-01-01T00:00:00.000Z', validUntil: '2027-01-01T00:00:00.000Z' },
      status: 'not-checked',
      holderBound: true,
      checks: ['decode', 'issuer-signature', 'trusted-issuer', 'doc-type', 'digest-algorithm', 'value-digests', 'validity', 'signed', 'device-auth'].map(
        (check) => ({ check, ok: true }),
      ),
    });
  });

  it('fails decode for input that is not base64url, or that the reader refuses, without throwing', async () => {
    const { verify } = verifierWith({ ok: false, reason: 'Neither a DeviceResponse nor an IssuerSigned' });
    expect((await verify('', { anchors: [], now: NOW })).checks).toEqual([{ check: 'decode', ok: false, reason: 'The credential is not base64url' }]);
    const refused = await verify(CREDENTIAL, { anchors: [], now: NOW });
    expect(refused).toMatchObject({
      verified: false,
      claims: {},
      checks: [{ check: 'decode', ok: false, reason: 'Neither a DeviceResponse nor an IssuerSigned' }],
    });
    const throwing = createMdocVerifier({
      reader: {
        readStatusList: () => ({ ok: false, reason: 'unused' }),
        read: () => {
          throw new Error('boom');
        },
      },
      chains: { validate: () => ({ ok: true }) },
    });
    expect((await throwing(CREDENTIAL, { anchors: [], now: NOW })).checks[0]).toMatchObject({ check: 'decode', ok: false });
  });

  it('refuses a DeviceResponse with no document or several', async () => {
    const none = await verifierWith({ ok: true, kind: 'device-response', documents: [] }).verify(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(none.checks).toEqual([{ check: 'decode', ok: false, reason: 'The DeviceResponse holds no document' }]);
    const two = await verifierWith({ ok: true, kind: 'device-response', documents: [document(), document()] }).verify(CREDENTIAL, {
      anchors: [anchor()],
      now: NOW,
    });
    expect(two.verified).toBe(false);
    expect(two.checks[0]?.reason).toContain('several documents');
  });

  it('reports an issuer no anchor covers as untrusted, and ignores anchors of other kinds or formats', async () => {
    const { verify } = verifierWith(reading(document()), () => ({ ok: false, reason: 'Not issued by it' }));
    const result = await verify(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(result.verified).toBe(false);
    expect(result.issuer).toEqual({ kind: 'x509', id: 'ab'.repeat(32), trusted: false });
    expect(failed(result)).toEqual(['trusted-issuer']);
    const others = await verifierWith(reading(document())).verify(CREDENTIAL, {
      anchors: [anchor(undefined, ['dc+sd-jwt']), { kind: 'did', trustedIssuerId: 'ti-2', did: 'did:web:example.org', formats: ['mso_mdoc'] }],
      now: NOW,
    });
    expect(others.issuer?.trusted).toBe(false);
  });

  it('refuses a docType outside the anchor types, and says when the chain fails only on dates', async () => {
    const excluded = await verifierWith(reading(document())).verify(CREDENTIAL, { anchors: [anchor(['eu.europa.ec.eudi.pid.1'])], now: NOW });
    expect(excluded.checks.find((c) => c.check === 'trusted-issuer')).toEqual({
      check: 'trusted-issuer',
      ok: false,
      reason: `The trusted IACA may not issue ${DOC_TYPE}`,
    });
    const outOfDate = await verifierWith(reading(document()), () => ({ ok: false, reason: 'Certificate DS is not valid at now', outOfDate: true })).verify(
      CREDENTIAL,
      {
        anchors: [anchor()],
        now: NOW,
      },
    );
    expect(outOfDate.checks.find((c) => c.check === 'trusted-issuer')?.reason).toBe('Certificate DS is not valid at now');
  });

  it('fails the issuer signature, the MSO docType, an unknown digest algorithm and a digest mismatch each on its own check', async () => {
    const badSignature = await verifierWith(reading(document({ issuerSignature: { valid: false } }))).verify(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(failed(badSignature)).toEqual(['issuer-signature']);
    const otherType = await verifierWith(reading(document({}, { docType: 'org.example.other' }))).verify(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(failed(otherType)).toEqual(['doc-type']);
    const md5 = await verifierWith(reading(document({}, { digestAlgorithm: 'MD5' }))).verify(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(failed(md5)).toEqual(['digest-algorithm']);
    const mismatch = document();
    mismatch.items = [{ ...(mismatch.items[0] as MdocDocumentView['items'][number]), digest: Uint8Array.of(9, 9, 9) }];
    const tampered = await verifierWith(reading(mismatch)).verify(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(failed(tampered)).toEqual(['value-digests']);
    expect(tampered.verified).toBe(false);
    const unlisted = document();
    unlisted.items = [{ ...(unlisted.items[0] as MdocDocumentView['items'][number]), digestId: 8 }];
    expect(failed(await verifierWith(reading(unlisted)).verify(CREDENTIAL, { anchors: [anchor()], now: NOW }))).toEqual(['value-digests']);
  });

  it('checks validFrom, validUntil and signed against now', async () => {
    const run = (mso: Partial<MdocDocumentView['mso']>, now = NOW) => verifierWith(reading(document({}, mso))).verify(CREDENTIAL, { anchors: [anchor()], now });
    const expired = await run({}, new Date('2027-02-01T00:00:00Z'));
    expect(expired.checks.find((c) => c.check === 'validity')).toEqual({ check: 'validity', ok: false, reason: 'Expired at 2027-01-01T00:00:00.000Z' });
    const early = await run({}, new Date('2025-12-31T00:00:00Z'));
    expect(failed(early)).toEqual(['validity', 'signed']);
    const future = await run({
      validityInfo: { signed: new Date('2026-07-01T00:00:00Z'), validFrom: new Date('2026-01-01T00:00:00Z'), validUntil: new Date('2027-01-01T00:00:00Z') },
    });
    expect(failed(future)).toEqual(['signed']);
    const missing = await run({ validityInfo: {} });
    expect(failed(missing)).toEqual(['validity', 'signed']);
  });

  it('device authentication: a bad signature and deviceMac fail, no transcript is recorded as not checked, a bare IssuerSigned has none', async () => {
    const options = { anchors: [anchor()], now: NOW, sessionTranscript: Uint8Array.of(0x80) };
    const bad = await verifierWith(reading(document({ deviceAuth: { kind: 'signature', valid: false } }))).verify(CREDENTIAL, options);
    expect(bad.checks.at(-1)).toEqual({ check: 'device-auth', ok: false, reason: 'The device signature does not verify over the session transcript' });
    expect(bad.verified).toBe(false);
    const mac = await verifierWith(reading(document({ deviceAuth: { kind: 'mac' } }))).verify(CREDENTIAL, options);
    expect(mac.checks.at(-1)).toEqual({ check: 'device-auth', ok: false, reason: 'deviceMac is not supported; only deviceSignature' });
    const missing = await verifierWith(reading(document({ deviceAuth: { kind: 'missing' } }))).verify(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(failed(missing)).toEqual(['device-auth']);
    const unchecked = await verifierWith(reading(document({ deviceAuth: { kind: 'signature' } }))).verify(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(unchecked.verified).toBe(true);
    expect(unchecked.checks.at(-1)).toEqual({ check: 'device-auth', ok: true, reason: 'Not checked: no session transcript given' });
    const bare = await verifierWith(reading(document({ deviceAuth: undefined } as Partial<MdocDocumentView>), 'issuer-signed')).verify(CREDENTIAL, options);
    expect(bare.verified).toBe(true);
    expect(bare.checks.map((c) => c.check)).not.toContain('device-auth');
    // Holder binding only for a device signature verified over a given transcript.
    expect([bad, mac, missing, unchecked, bare].map((r) => r.holderBound)).toEqual([false, false, false, false, false]);
  });

  it('reports the AuthorityKeyIdentifiers of the x5chain when the chain port reads them, trusted or not', async () => {
    const x5chain = [Uint8Array.of(0x30, 1), Uint8Array.of(0x30, 2)];
    const seen: Uint8Array[][] = [];
    const reader: MdocReader = { read: () => reading(document({ x5chain })), readStatusList: () => ({ ok: false, reason: 'unused' }) };
    const chains: CertificateChainValidator = {
      validate: () => ({ ok: false, reason: 'Not issued by it' }),
      authorityKeyIds: (chain) => {
        seen.push([...chain]);
        return ['aki-of-signer'];
      },
    };
    const result = await createMdocVerifier({ reader, chains })(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(seen).toEqual([x5chain]);
    expect(result.issuer).toEqual({ kind: 'x509', id: 'ab'.repeat(32), trusted: false, authorityKeyIds: ['aki-of-signer'] });
    // Without the port's method the result names none, as before.
    const without = await verifierWith(reading(document())).verify(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(without.issuer).not.toHaveProperty('authorityKeyIds');
  });
});

describe('createMdocVerifier: status (docs/verification.md "Status while verifying")', () => {
  const URI = 'https://issuer.example/status/1';
  const LIST_SIGNER = Uint8Array.of(0x30, 2);
  // Bits 1 per entry; entry 3 set (revoked) in the second list.
  const VALID = Uint8Array.of(0b0000_0000);
  const REVOKED = Uint8Array.of(0b0000_1000);
  const inflater = { inflate: (data: Uint8Array) => data };

  function setup(options: { statuses?: Uint8Array; typ?: string; signatureValid?: boolean; chainTo?: string; sub?: string; ttl?: number } = {}) {
    let fetches = 0;
    let clockMs = NOW.getTime();
    const http = {
      send: async () => ({ ok: true as const, status: 200 }),
      fetch: async (request: { url: string; headers?: Record<string, string> }) => {
        fetches += 1;
        expect(request.url).toBe(URI);
        expect(request.headers?.accept).toBe('application/statuslist+cwt');
        return { status: 200, headers: { 'content-type': 'application/statuslist+cwt' }, body: Uint8Array.of(9) };
      },
    };
    const reader: MdocReader = {
      read: () => reading(document({}, { hasStatus: true, status: { idx: 3, uri: URI } })),
      readStatusList: () => ({
        ok: true,
        typ: options.typ ?? 'application/statuslist+cwt',
        x5chain: [LIST_SIGNER],
        signature: { valid: options.signatureValid ?? true },
        claims: { sub: options.sub ?? URI, bits: 1, lst: options.statuses ?? VALID, ttl: options.ttl ?? 120 },
      }),
    };
    const chains: CertificateChainValidator = {
      validate: (chain, pem) =>
        pem === IACA_PEM && (chain[0] === SIGNER || (chain[0] === LIST_SIGNER && (options.chainTo ?? IACA_PEM) === IACA_PEM))
          ? { ok: true }
          : { ok: false, reason: 'Not issued by it' },
    };
    const clock = { now: () => new Date(clockMs) };
    const statusLists = createStatusListLookup({ http: http as unknown as HttpClient, inflater, clock });
    const verify = createMdocVerifier({ reader, chains, statusLists });
    return {
      verify: () => verify(CREDENTIAL, { anchors: [anchor()], now: clock.now() }),
      fetches: () => fetches,
      advance: (ms: number) => {
        clockMs += ms;
      },
    };
  }

  it('reads the entry of a trusted mDoc: valid, then the same list from the cache until its ttl ends', async () => {
    const s = setup();
    const first = await s.verify();
    expect(first.verified).toBe(true);
    expect(first.status).toBe('valid');
    expect(first.checks.at(-1)).toEqual({ check: 'status', ok: true });
    await s.verify();
    expect(s.fetches()).toBe(1);
    s.advance(119_000);
    await s.verify();
    expect(s.fetches()).toBe(1);
    s.advance(2000);
    await s.verify();
    expect(s.fetches()).toBe(2);
  });

  it('reports a revoked mDoc as revoked, with verified false and the reason', async () => {
    const result = await setup({ statuses: REVOKED }).verify();
    expect(result.verified).toBe(false);
    expect(result.status).toBe('revoked');
    expect(result.checks.at(-1)).toEqual({ check: 'status', ok: false, reason: 'The issuer has revoked the credential' });
  });

  it.each([
    ['a list signed under another CA', { chainTo: 'OTHER' }, 'The status list is not signed under the mDoc’s trusted IACA'],
    ['a list whose signature fails', { signatureValid: false }, 'The status list signature does not verify'],
    ['a list of another type', { typ: 'application/cwt' }, 'The status list must have typ application/statuslist+cwt'],
    ['a list that names another URI', { sub: 'https://issuer.example/status/2' }, 'The status list names another URI (sub)'],
  ])('fails the status check for %s, never reporting it valid', async (_name, options, reason) => {
    const result = await setup(options).verify();
    expect(result.verified).toBe(false);
    expect(result.status).toBe('not-checked');
    expect(result.checks.at(-1)).toEqual({ check: 'status', ok: false, reason });
  });

  it('fetches nothing for an mDoc from an untrusted issuer, and fails the check when no status lists can be read', async () => {
    const s = setup();
    const untrusted = await createMdocVerifier({
      reader: { read: () => reading(document({}, { hasStatus: true, status: { idx: 3, uri: URI } })), readStatusList: () => ({ ok: false, reason: 'x' }) },
      chains: { validate: () => ({ ok: false, reason: 'Not issued by it' }) },
      statusLists: createStatusListLookup({ clock: { now: () => NOW } }),
    })(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(untrusted.status).toBe('not-checked');
    expect(failed(untrusted)).toEqual(['trusted-issuer']);
    expect(s.fetches()).toBe(0);
    const without = await createMdocVerifier({
      reader: { read: () => reading(document({}, { hasStatus: true, status: { idx: 3, uri: URI } })), readStatusList: () => ({ ok: false, reason: 'x' }) },
      chains: { validate: () => ({ ok: true }) },
    })(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(without.verified).toBe(false);
    expect(without.checks.at(-1)).toEqual({ check: 'status', ok: false, reason: 'This server cannot read status lists' });
  });

  it('fails the status check of an MSO whose reference is malformed', async () => {
    const result = await createMdocVerifier({
      reader: {
        read: () => reading(document({}, { hasStatus: true, status: { invalid: 'status.status_list must have an integer idx and an https uri' } })),
        readStatusList: () => ({ ok: false, reason: 'x' }),
      },
      chains: { validate: () => ({ ok: true }) },
    })(CREDENTIAL, { anchors: [anchor()], now: NOW });
    expect(result.verified).toBe(false);
    expect(failed(result)).toEqual(['status']);
  });
});
