// Issue 26, point 4: claims do not linger in plaintext. The real runtime runs whole Pre-authorized
// flows on SQLite (a file in WAL mode) and on PostgreSQL; then the test reads what an attacker with
// the disk or a dump would read: the raw bytes of the SQLite file and its WAL, or every row of every
// table as text. A claim the offer did not persist (claimsToPersist) must be nowhere in them, while
// a persisted one is there (so the search is shown to find what is stored). Also: the transaction
// code's digest is not the bare SHA-256 of the code (point 5), and the offers' claims are erased
// once used up, locked or deleted.
import { createHash, randomBytes } from 'node:crypto';
import { proofJwt, walletKey } from '@vellum/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend, storedText } from '../test/backends.ts';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { openRuntime, type Runtime } from './runtime.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const NS = 'org.iso.18013.5.1';

const backends: Array<[string, () => Backend, boolean]> = [
  ['SQLite', () => sqliteBackend(), false],
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['PostgreSQL', () => postgresBackend('vellum_claims'), pgAdminUrl === undefined],
];

describe.each(backends)('claims at rest on %s (issue 26 points 4 and 5; docs/decisions.md "Claims at rest")', (name, make, skip) => {
  const host = 'acme.eu01.vellum.test';
  // Markers no other value in the database can contain by chance.
  const run = randomBytes(6).toString('hex');
  const persisted = `Persisted${run}`;
  const secret = (what: string) => `Secret${what}${run}`;
  let backend: Backend;
  let env: Record<string, string>;
  let runtime: Runtime;
  let app: FastifyInstance;
  let admin = '';
  let configurationId = '';

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) => {
    const res = await app.inject({ method, url, headers: { host, authorization: admin }, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, text: res.body, json: () => res.json() };
  };
  const form = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url,
      headers: { host, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(fields).toString(),
    });

  beforeAll(async () => {
    if (skip) return;
    backend = make();
    env = { ...(await backend.env()), VELLUM_MASTER_KEY: randomBytes(32).toString('base64'), VELLUM_PLATFORM_DOMAIN: 'vellum.test', VELLUM_DEFAULT_TENANT: '' };
    const config = loadConfig({ ...env, VELLUM_LOG_LEVEL: 'silent' });
    const logger = createLogger('silent');
    runtime = await openRuntime(config, logger);
    app = await buildApp(runtime, config, logger);
    const { client, clientSecret } = await runtime.vellum.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    const token = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { host },
      payload: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret, audience: `https://${host}` },
    });
    admin = `Bearer ${token.json().access_token}`;
    const iaca = await call('POST', '/v2/credentials/mobile/iacas', { country: 'US' });
    expect(iaca.status, iaca.text).toBe(201);
    expect((await call('PUT', `/v2/credentials/mobile/iacas/${iaca.json().id}`, { active: true })).status).toBe(200);
    // The secret claim goes into the credential too: the wallet must get it, the database must not keep it.
    const configuration = await call('POST', '/v2/credentials/mobile/configurations', {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 30 },
      claimMappings: { [NS]: { family_name: { mapFrom: 'claims.familyName', required: true }, document_number: { mapFrom: 'claims.ssn', required: true } } },
    });
    expect(configuration.status, configuration.text).toBe(201);
    configurationId = configuration.json().id;
  });

  afterAll(async () => {
    if (skip) return;
    await app?.close();
    await runtime?.close();
    await backend?.cleanup();
  });

  async function offer(ssn: string) {
    const res = await call('POST', '/v1/openid/offers/pre-authorized', {
      credentials: [configurationId],
      claims: { familyName: persisted, ssn },
      claimsToPersist: ['familyName'],
      transactionCodeConfiguration: { inputMode: 'numeric', length: 6 },
    });
    expect(res.status, res.text).toBe(200);
    const created = res.json() as { id: string; uri: string; transactionCode: string };
    const code = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[GRANT]['pre-authorized_code'] as string;
    return { ...created, code, wrong: created.transactionCode === '000000' ? '111111' : '000000' };
  }

  it.skipIf(skip)('after flows that issue, lock, delete and leave offers open, no claim that was not persisted is in the database', async () => {
    // Issued: offer, token with the transaction code, nonce, credential.
    const issued = await offer(secret('Issued'));
    const token = await form('/v1/oauth/token', { grant_type: GRANT, 'pre-authorized_code': issued.code, tx_code: issued.transactionCode });
    expect(token.statusCode, token.body).toBe(200);
    const nonce = await app.inject({ method: 'POST', url: '/v1/openid/nonce', headers: { host } });
    const jwt = proofJwt(walletKey(), { audience: `https://${host}`, nonce: nonce.json().c_nonce });
    const credential = await app.inject({
      method: 'POST',
      url: '/v1/openid/credential',
      headers: { host, authorization: `Bearer ${token.json().access_token}` },
      payload: { credential_configuration_id: configurationId, proofs: { jwt: [jwt] } },
    });
    expect(credential.statusCode, credential.body).toBe(200);
    // The wallet got the claim (base64url of the mDoc's CBOR holds it as text).
    expect(Buffer.from(credential.json().credentials[0].credential, 'base64url').toString('latin1')).toContain(secret('Issued'));
    // Locked by three wrong codes, deleted, and left open.
    const locked = await offer(secret('Locked'));
    for (let i = 0; i < 3; i++) await form('/v1/oauth/token', { grant_type: GRANT, 'pre-authorized_code': locked.code, tx_code: locked.wrong });
    const deleted = await offer(secret('Deleted'));
    expect((await call('DELETE', `/v1/openid/offers/pre-authorized/${deleted.id}`)).status).toBe(204);
    const open = await offer(secret('Open'));

    const store = runtime.store;
    const tenantId = (await store.tenants.findBySubdomain('acme'))?.id as string;
    // Erased where they can no longer be used, sealed where they still may be.
    for (const gone of [issued, locked, deleted]) expect(await store.offers.get(tenantId, gone.id)).not.toHaveProperty('sealedClaims');
    expect((await store.offers.get(tenantId, open.id))?.sealedClaims).toMatch(/^v1\./);
    // The transaction code's digest is keyed, not the bare SHA-256 anyone can recompute (point 5).
    const txDigest = (await store.offers.get(tenantId, open.id))?.txCode?.digest as string;
    expect(txDigest).toMatch(/^k1\./);
    expect(txDigest).not.toContain(createHash('sha256').update(open.transactionCode).digest('base64url'));

    const { text: stored, files } = await storedText(env);
    // On SQLite: the file and its WAL, which holds the latest pages while the server runs.
    if (name === 'SQLite') expect(files.map((f) => f.endsWith('-wal'))).toEqual([false, true]);
    expect(stored).toContain(persisted);
    for (const what of ['Issued', 'Locked', 'Deleted', 'Open']) expect(stored, what).not.toContain(secret(what));
  });
});
