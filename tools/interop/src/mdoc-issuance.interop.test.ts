// Issue 4 acceptance: an mDoc issued through the core use case, under a managed IACA created and
// activated over HTTP on the real server, verifies with @auth0/mdl (another team's verifier)
// against the IACA certificate that the server's PUBLIC IACA list serves: issuer signature,
// certificate chain, digests, validity, device key, element values and types.
//
// The server runs as a child process on SQLite; the test opens a second runtime in this process on
// the same database file and master key (as a second server would) and issues through
// `vellum.mdocIssuance`, since no wallet-facing endpoint issues mDocs yet.
import { randomBytes, X509Certificate } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Verifier } from '@auth0/mdl';
import type { MdocConfiguration, Tenant } from '@vellum/core';
import { createLogger, loadConfig, openRuntime, type Runtime } from '@vellum/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, freePort, http, type RunningServer, serverEnv, startServer, tempDir } from '../../../apps/server/test/process.ts';
import { deviceResponse, holder, readerTranscript } from './mdoc-device.ts';
import { expectFullDates } from './mdoc-verify.ts';

const PLATFORM = 'vellum.test';
const HOST = `acme.eu01.${PLATFORM}`;
const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const IACAS = '/v2/credentials/mobile/iacas';
const NO_IACA = 'No active IACA: create or activate one at /v2/credentials/mobile/iacas';

type Check = { status: string; id: string; check: string; reason?: string | undefined; category: string };

/** An mDL configuration with ten claims of every mapping type (docs/decisions.md "Credential configurations"). */
function configuration(tenantId: string): MdocConfiguration {
  const now = new Date().toISOString();
  return {
    id: crypto.randomUUID(),
    tenantId,
    format: 'mso_mdoc',
    type: DOC_TYPE,
    name: 'Mobile driving licence',
    expiresIn: { days: 365 },
    includeStatus: false,
    claimMappings: {
      [NS]: {
        family_name: { mapFrom: 'claims.familyName', required: true },
        given_name: { mapFrom: 'claims.givenName', required: true },
        birth_date: { mapFrom: 'claims.birthDate', type: 'date', required: true },
        issue_date: { mapFrom: 'claims.issuedOn', type: 'date' },
        expiry_date: { mapFrom: 'claims.expiresOn', type: 'date' },
        issuing_country: { defaultValue: 'US' },
        issuing_authority: { defaultValue: 'Acme DMV' },
        document_number: { mapFrom: 'claims.documentNumber' },
        age_over_18: { mapFrom: 'claims.adult', type: 'boolean' },
        height: { mapFrom: 'claims.height', type: 'number' },
      },
      'org.example.acme.1': {
        verified_at: { mapFrom: 'claims.verifiedAt', type: 'dateTime' },
      },
    },
    createdAt: now,
    updatedAt: now,
  };
}

const subject = {
  claims: {
    familyName: 'Turner',
    givenName: 'Susan',
    birthDate: '1990-05-15',
    issuedOn: '2026-01-10',
    expiresOn: '2031-01-10',
    documentNumber: 'DL-1234-5678',
    adult: true,
    height: 172,
    verifiedAt: '2026-03-01T10:20:30+02:00',
  },
};

describe('mDocs issued through the core use case, verified by @auth0/mdl against the public IACA list (issue 4)', () => {
  let dir: string;
  let server: RunningServer;
  let runtime: Runtime;
  let auth: Record<string, string>;
  let acme: Tenant;
  let other: Tenant;
  let iacaId: string;
  let publicIacaPem: string;

  const call = (method: string, path: string, body?: unknown, host = HOST) =>
    http(server.port, method, path, { host, headers: auth, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    dir = tempDir();
    const env = serverEnv({
      VELLUM_DATA_DIR: dir,
      VELLUM_PORT: String(await freePort()),
      VELLUM_PLATFORM_DOMAIN: PLATFORM,
      VELLUM_DEFAULT_TENANT: '',
      VELLUM_MASTER_KEY: randomBytes(32).toString('base64'),
    });
    const created = JSON.parse(cli(['tenants', 'create', '--subdomain', 'acme', '--region', 'eu01', '--name', 'Acme'], env).stdout);
    expect(cli(['tenants', 'create', '--subdomain', 'other', '--region', 'eu01'], env).status).toBe(0);
    server = await startServer(env);
    const token = await http(server.port, 'POST', '/oauth/token', {
      host: HOST,
      body: { grant_type: 'client_credentials', client_id: created.clientId, client_secret: created.clientSecret, audience: created.audience },
    });
    auth = { authorization: `Bearer ${token.json().access_token}` };

    // Over HTTP: a managed IACA, activated.
    const iaca = await call('POST', IACAS, { country: 'US', stateOrProvinceName: 'US-CA' });
    expect(iaca.status, iaca.text).toBe(201);
    iacaId = iaca.json().id;
    const activated = await call('PUT', `${IACAS}/${iacaId}`, { active: true });
    expect(activated.status, activated.text).toBe(200);

    // Over HTTP, without a token: the public IACA list the issuer metadata points wallets and verifiers to.
    const list = await http(server.port, 'GET', IACAS, { host: HOST });
    expect(list.status, list.text).toBe(200);
    const data = list.json().data as Array<{ id: string; active: boolean; certificatePem: string }>;
    expect(data.map((i) => [i.id, i.active])).toEqual([[iacaId, true]]);
    publicIacaPem = (data[0] as { certificatePem: string }).certificatePem;

    // A second runtime on the same database and master key: what the core use case runs on.
    runtime = await openRuntime(loadConfig(env), createLogger('silent'));
    acme = (await runtime.store.tenants.findBySubdomain('acme')) as Tenant;
    other = (await runtime.store.tenants.findBySubdomain('other')) as Tenant;
  });

  afterAll(async () => {
    await runtime?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function issueAndVerify() {
    const device = holder();
    const issued = await runtime.vellum.mdocIssuance.issue({ tenant: acme, configuration: configuration(acme.id), subject, holderKey: device.publicJwk });
    const presented = deviceResponse({
      docType: DOC_TYPE,
      issuerSigned: Buffer.from(issued.credential, 'base64url'),
      sessionTranscript: readerTranscript,
      devicePrivateKey: device.privateKey,
    });
    const checks: Check[] = [];
    const verified = await new Verifier([publicIacaPem]).verify(presented.deviceResponse, {
      encodedSessionTranscript: presented.sessionTranscriptBytes,
      onCheck: (check) => checks.push(check as Check),
    });
    return { issued, device, checks, verified, presented };
  }

  it('passes every check of the verifier: chain to the public IACA, issuer signature, validity, digests, device signature', async () => {
    const { issued, checks } = await issueAndVerify();
    expect(issued).toMatchObject({ docType: DOC_TYPE, iacaId });
    expect(checks.filter((c) => c.status !== 'PASSED')).toEqual([]);
    const passed = (id: string) => checks.filter((c) => c.id === id && c.status === 'PASSED').length;
    expect(passed('ISSUER_CERTIFICATE_VALIDITY')).toBe(1); // the document signer chains to the IACA from the public list
    expect(passed('ISSUER_SIGNATURE_VALIDITY')).toBe(1);
    expect(passed('MSO_SIGNED_DATE_WITHIN_CERTIFICATE_VALIDITY')).toBe(1);
    expect(passed('MSO_VALIDITY_AT_VERIFICATION_TIME')).toBe(1);
    expect(passed('ISSUER_SUBJECT_COUNTRY_NAME_PRESENCE')).toBe(1);
    expect(passed('DEVICE_SIGNATURE_VALIDITY')).toBe(1);
    expect(passed('ISSUER_AUTH_NAMESPACE_DIGEST_PRESENCE')).toBe(2); // one per namespace
    expect(passed('ATTRIBUTE_DIGEST_MATCH')).toBe(11); // one per element
    expect(passed('ISSUING_COUNTRY_MATCHES_CERTIFICATE')).toBe(1);
  });

  it('binds the holder key and carries the validity the use case reports', async () => {
    const { issued, device, presented } = await issueAndVerify();
    const diagnostic = await new Verifier([publicIacaPem]).getDiagnosticInformation(Buffer.from(presented.deviceResponse), {
      encodedSessionTranscript: Buffer.from(presented.sessionTranscriptBytes),
    });
    expect(diagnostic.deviceKey.jwk).toMatchObject(device.publicJwk);
    expect(new Date(diagnostic.validityInfo.validFrom).toISOString()).toBe(issued.validFrom);
    expect(new Date(diagnostic.validityInfo.validUntil).toISOString()).toBe(issued.validUntil);
    expect(Date.parse(issued.validUntil) - Date.parse(issued.validFrom)).toBe(365 * 86_400_000);
    // The document signer Vellum created for the managed IACA: issued by the IACA on the public list.
    const signer = new X509Certificate(diagnostic.issuerCertificate!.pem);
    expect(signer.checkIssued(new X509Certificate(publicIacaPem))).toBe(true);
    expect(signer.keyUsage).toEqual(['1.0.18013.5.1.2']);
    // The credential ends before its document signer's certificate does: verifiers that check the chain
    // when they verify (as @auth0/mdl does, through pkijs) keep accepting it for its whole life.
    expect(Date.parse(issued.validUntil)).toBeLessThanOrEqual(signer.validToDate.getTime());
  });

  it('hands back every element with its value and CBOR type', async () => {
    const { verified } = await issueAndVerify();
    const document = verified.documents[0]!;
    expect(document.docType).toBe(DOC_TYPE);
    const values = document.getIssuerNameSpace(NS);
    expect(values).toMatchObject({
      family_name: 'Turner',
      given_name: 'Susan',
      issuing_country: 'US',
      issuing_authority: 'Acme DMV',
      document_number: 'DL-1234-5678',
      age_over_18: true,
      height: 172,
    });
    expectFullDates(values, { birth_date: '1990-05-15', issue_date: '2026-01-10', expiry_date: '2031-01-10' });
    const verifiedAt = document.getIssuerNameSpace('org.example.acme.1').verified_at;
    expect(verifiedAt).toBeInstanceOf(Date);
    expect((verifiedAt as Date).toISOString()).toBe('2026-03-01T08:20:30.000Z');
  });

  it('fails the chain under an IACA that is not the one the list serves', async () => {
    const { presented } = await issueAndVerify();
    const stranger = await call('POST', IACAS, { country: 'US' });
    expect(stranger.status).toBe(201);
    const checks: Check[] = [];
    await new Verifier([stranger.json().certificatePem])
      .verify(presented.deviceResponse, { encodedSessionTranscript: presented.sessionTranscriptBytes, onCheck: (c) => checks.push(c as Check) })
      .catch(() => undefined);
    expect(checks.filter((c) => c.status !== 'PASSED').map((c) => c.id)).toEqual(['ISSUER_CERTIFICATE_VALIDITY']);
    expect((await call('DELETE', `${IACAS}/${stranger.json().id}`)).status).toBe(204);
  });

  it('refuses to issue with no active IACA, with a 400 that says so', async () => {
    await expect(
      runtime.vellum.mdocIssuance.issue({ tenant: other, configuration: configuration(other.id), subject, holderKey: holder().publicJwk }),
    ).rejects.toMatchObject({
      code: 'BadRequest',
      message: NO_IACA,
    });
    // Deactivated over HTTP on the server, the IACA stops signing in this runtime too, within the cache bound (1 s).
    expect((await call('PUT', `${IACAS}/${iacaId}`, { active: false })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await expect(
      runtime.vellum.mdocIssuance.issue({ tenant: acme, configuration: configuration(acme.id), subject, holderKey: holder().publicJwk }),
    ).rejects.toMatchObject({
      code: 'BadRequest',
      message: NO_IACA,
    });
    expect((await http(server.port, 'GET', IACAS, { host: HOST })).json()).toEqual({ data: [] });
  });
});
