import { X509Certificate as NodeX509Certificate } from 'node:crypto';
import { Verifier } from '@auth0/mdl';
import { createDocumentSignerCertificate, createIacaCertificate, createKeyManager, createSealer, managedSigningKey, verifyIssuedBy } from '@vellum/crypto';
import { issueMdoc, type MdocValue } from '@vellum/formats';
import { createMemoryStore } from '@vellum/storage-memory';
import { fakeClock, makeTenant } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { deviceResponse, holder, readerTranscript } from './mdoc-device.ts';
import { expectFullDates } from './mdoc-verify.ts';

// mDocs issued by Vellum, verified by @auth0/mdl (another team's verifier) the way a reader would:
// a DeviceResponse with our IssuerSigned and a device signature, checked against the IACA as the
// trusted root (ISO/IEC 18013-5 §9.3: issuer data authentication, mdoc authentication).

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const DAY = 86_400_000;

type Check = { status: string; id: string; check: string; reason?: string | undefined; category: string };
type Verification = Awaited<ReturnType<Verifier['verify']>>;

const portrait = Buffer.from('ffd8ffe000104a46494600010101004800480000ffdb004300', 'hex');
const elements: Record<string, MdocValue> = {
  family_name: 'Turner',
  given_name: 'Susan',
  birth_date: { type: 'date', value: '1990-05-15' },
  issue_date: { type: 'date', value: '2026-01-10' },
  expiry_date: { type: 'date', value: '2031-01-10' },
  issuing_country: 'US',
  document_number: 'DL-1234-5678',
  portrait,
  driving_privileges: [
    { vehicle_category_code: 'B', issue_date: { type: 'date', value: '2015-06-01' }, expiry_date: { type: 'date', value: '2031-01-10' } },
    { vehicle_category_code: 'A', issue_date: { type: 'date', value: '2018-02-03' }, expiry_date: { type: 'date', value: '2031-01-10' } },
  ],
  age_over_18: true,
};

async function issuerWithPki() {
  const store = createMemoryStore();
  const keys = createKeyManager({
    keys: store.keys,
    sealer: createSealer(new Uint8Array(32).fill(9)),
    ids: { uuid: () => crypto.randomUUID(), token: () => 'unused', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) },
    clock: fakeClock(),
  });
  const tenant = makeTenant();
  await store.tenants.insert(tenant);
  const now = Date.now();
  const iacaKey = managedSigningKey(keys, await keys.create(tenant.id, 'P-256'));
  const iaca = await createIacaCertificate({
    key: iacaKey,
    commonName: 'Vellum Interop IACA',
    country: 'US',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 5 * 365 * DAY),
    issuerAlternativeName: 'https://issuer.example.com',
    crlDistributionPointUri: 'https://issuer.example.com/v2/credentials/mobile/iacas/1/crl',
  });
  const signerKey = managedSigningKey(keys, await keys.create(tenant.id, 'P-256'));
  const ds = await createDocumentSignerCertificate({
    iaca: { certificateDer: iaca.der, key: iacaKey },
    subjectPublicJwk: signerKey.publicJwk,
    commonName: 'Vellum Interop Document Signer',
    country: 'US',
    notBefore: new Date(now - DAY / 2),
    notAfter: new Date(now + 365 * DAY),
    crlDistributionPointUri: 'https://issuer.example.com/v2/credentials/mobile/iacas/1/crl',
    issuerAlternativeName: 'https://issuer.example.com',
  });
  return { iaca, ds, signerKey, keys, tenant };
}

async function issueAndPresent(over: { status?: { uri: string; idx: number } } = {}) {
  const pki = await issuerWithPki();
  const device = holder();
  const now = new Date();
  const issued = await issueMdoc({
    docType: DOC_TYPE,
    namespaces: { [NS]: elements },
    deviceKey: device.publicJwk,
    validity: { signed: now, validFrom: now, validUntil: new Date(now.getTime() + 365 * DAY) },
    signer: { sign: pki.signerKey.sign, x5chain: [pki.ds.der] },
    ...over,
  });
  const presented = deviceResponse({
    docType: DOC_TYPE,
    issuerSigned: issued.issuerSigned,
    sessionTranscript: readerTranscript,
    devicePrivateKey: device.privateKey,
  });
  return { ...pki, device, issued, ...presented };
}

/** Runs @auth0/mdl's Verifier, collecting every check rather than stopping at the first failure. */
async function verifyWithAuth0(root: string, response: Uint8Array, sessionTranscriptBytes: Uint8Array) {
  const checks: Check[] = [];
  let mdoc: Verification | undefined;
  let error: unknown;
  try {
    mdoc = await new Verifier([root]).verify(response, { encodedSessionTranscript: sessionTranscriptBytes, onCheck: (check) => checks.push(check as Check) });
  } catch (e) {
    error = e;
  }
  return { checks, mdoc, error, failed: checks.filter((c) => c.status !== 'PASSED') };
}

describe('mso_mdoc issued by Vellum, verified by @auth0/mdl against the IACA (ISO/IEC 18013-5 §9.3)', () => {
  it('passes every check: certificate chain, issuer signature, validity, digests, device signature, issuing country', async () => {
    const { iaca, deviceResponse: response, sessionTranscriptBytes } = await issueAndPresent();
    const { checks, failed, error, mdoc } = await verifyWithAuth0(iaca.pem, response, sessionTranscriptBytes);
    expect(error).toBeUndefined();
    expect(failed).toEqual([]);
    expect(mdoc).toBeDefined();
    const passed = (id: string) => checks.filter((c) => c.id === id && c.status === 'PASSED').length;
    expect(passed('ISSUER_CERTIFICATE_VALIDITY')).toBe(1); // DS chains to the IACA root (pkijs)
    expect(passed('ISSUER_SIGNATURE_VALIDITY')).toBe(1); // COSE_Sign1 under the DS key
    expect(passed('MSO_SIGNED_DATE_WITHIN_CERTIFICATE_VALIDITY')).toBe(1);
    expect(passed('MSO_VALIDITY_AT_VERIFICATION_TIME')).toBe(1);
    expect(passed('ISSUER_SUBJECT_COUNTRY_NAME_PRESENCE')).toBe(1);
    expect(passed('DEVICE_SIGNATURE_VALIDITY')).toBe(1); // under the MSO's deviceKey
    expect(passed('ISSUER_AUTH_DIGEST_ALGORITHM_SUPPORTED')).toBe(1);
    expect(passed('ISSUER_AUTH_NAMESPACE_DIGEST_PRESENCE')).toBe(1);
    expect(passed('ATTRIBUTE_DIGEST_MATCH')).toBe(10); // one per element
    expect(passed('ISSUING_COUNTRY_MATCHES_CERTIFICATE')).toBe(1);
  });

  it('hands back every element with its value and CBOR type: tstr, full-date (1004), bstr, bool, arrays of maps', async () => {
    const { iaca, deviceResponse: response, sessionTranscriptBytes } = await issueAndPresent();
    const { mdoc } = await verifyWithAuth0(iaca.pem, response, sessionTranscriptBytes);
    const document = mdoc!.documents[0]!;
    expect(document.docType).toBe(DOC_TYPE);
    const values = document.getIssuerNameSpace(NS);
    expect(Object.keys(values).sort()).toEqual(Object.keys(elements).sort());
    expect(values.family_name).toBe('Turner');
    expect(values.given_name).toBe('Susan');
    expect(values.document_number).toBe('DL-1234-5678');
    expect(values.issuing_country).toBe('US');
    expect(values.age_over_18).toBe(true);
    expect(Buffer.from(values.portrait as Uint8Array).equals(portrait)).toBe(true);
    expectFullDates(values, { birth_date: '1990-05-15', issue_date: '2026-01-10', expiry_date: '2031-01-10' });
    const privileges = values.driving_privileges as Map<string, unknown>[];
    expect(privileges.map((p) => p.get('vehicle_category_code'))).toEqual(['B', 'A']);
    expect(Object.prototype.toString.call(privileges[0]!.get('issue_date'))).toBe('[object DateOnly]');
    expect(String(privileges[0]!.get('issue_date'))).toBe('2015-06-01');
  });

  it('binds the holder key: the MSO deviceKey is the holder’s JWK, and a signature by another key fails', async () => {
    const { iaca, issued, device, deviceResponse: response, sessionTranscriptBytes } = await issueAndPresent();
    const diagnostic = await new Verifier([iaca.pem]).getDiagnosticInformation(Buffer.from(response), {
      encodedSessionTranscript: Buffer.from(sessionTranscriptBytes),
    });
    expect(diagnostic.deviceKey.jwk).toMatchObject(device.publicJwk);
    expect(diagnostic.issuerCertificate?.subjectName).toContain('Vellum Interop Document Signer');

    const stranger = holder();
    const forged = deviceResponse({
      docType: DOC_TYPE,
      issuerSigned: issued.issuerSigned,
      sessionTranscript: readerTranscript,
      devicePrivateKey: stranger.privateKey,
    });
    const { failed } = await verifyWithAuth0(iaca.pem, forged.deviceResponse, forged.sessionTranscriptBytes);
    expect(failed.map((c) => c.id)).toEqual(['DEVICE_SIGNATURE_VALIDITY']);
  });

  it('fails the digest of an element changed after issuance, and the chain under another root', async () => {
    const { iaca, issued, device, deviceResponse: response, sessionTranscriptBytes } = await issueAndPresent();
    const tampered = Buffer.from(issued.issuerSigned);
    const at = tampered.indexOf(Buffer.from('Turner'));
    tampered.write('Tarner', at);
    const changed = deviceResponse({ docType: DOC_TYPE, issuerSigned: tampered, sessionTranscript: readerTranscript, devicePrivateKey: device.privateKey });
    const { failed } = await verifyWithAuth0(iaca.pem, changed.deviceResponse, changed.sessionTranscriptBytes);
    expect(failed.map((c) => c.id)).toEqual(['ATTRIBUTE_DIGEST_MATCH']);

    const other = await issuerWithPki();
    const { failed: untrusted } = await verifyWithAuth0(other.iaca.pem, response, sessionTranscriptBytes);
    expect(untrusted.map((c) => c.id)).toEqual(['ISSUER_CERTIFICATE_VALIDITY']);
  });

  // What @auth0/mdl does not look at, checked here by hand with node:crypto.
  it('meets what the verifier leaves unchecked: the Annex B document signer profile and the status entry', async () => {
    const {
      iaca,
      ds,
      deviceResponse: response,
      sessionTranscriptBytes,
    } = await issueAndPresent({ status: { uri: 'https://issuer.example.com/v2/credentials/mobile/status-lists/1/token', idx: 42 } });
    const { failed, mdoc } = await verifyWithAuth0(iaca.pem, response, sessionTranscriptBytes);
    expect(failed).toEqual([]);
    // @auth0/mdl's chain check (pkijs) ignores the mdlDS extended key usage and the key usage profile.
    const [root, leaf] = [new NodeX509Certificate(iaca.der), new NodeX509Certificate(ds.der)];
    expect(leaf.keyUsage).toEqual(['1.0.18013.5.1.2']);
    expect(root.ca).toBe(true);
    expect(leaf.checkIssued(root) && leaf.verify(root.publicKey)).toBe(true);
    expect(verifyIssuedBy(ds.der, iaca.pem)).toBe(true);
    // @auth0/mdl decodes the MSO but does not read `status` (Token Status List); it must be there as issued.
    const payload = (mdoc!.documents[0]!.issuerSigned.issuerAuth as unknown as { decodedPayload: Record<string, unknown> }).decodedPayload;
    const status = payload.status as Map<string, Map<string, unknown>>;
    expect(status.get('status_list')?.get('idx')).toBe(42);
    expect(status.get('status_list')?.get('uri')).toBe('https://issuer.example.com/v2/credentials/mobile/status-lists/1/token');
  });
});
