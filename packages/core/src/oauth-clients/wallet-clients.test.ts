import { describe, expect, it } from 'vitest';
import { recordedEvents } from '../../test/events.ts';
import { contextFor } from '../../test/harness.ts';
import { createMemoryStore, fakeClock, fakeHasher, fakeIds } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import { createEventRecorder } from '../events/recorder.ts';
import type { SecretHasher } from '../shared/ports.ts';
import { OAUTH_DESCRIPTION_CHARACTERS } from '../shared/errors.ts';
import type { Tenant } from '../tenancy/model.ts';
import { authenticateWalletClient, redirectUriRegistered } from './authenticate.ts';
import { checkWalletClientInput, redirectUriProblem } from './rules.ts';
import { createWalletClientService } from './service.ts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUb3Jn\nZ2VuZXJhdGVk\n-----END CERTIFICATE-----\n';

/** A hasher that counts its checks, so tests can see that every presented secret costs exactly one. */
function countingHasher(): SecretHasher & { verifies: number } {
  const inner = fakeHasher();
  const h = {
    verifies: 0,
    hash: inner.hash,
    async verify(secret: string, hash: string) {
      h.verifies += 1;
      return inner.verify(secret, hash);
    },
  };
  return h;
}

async function setup() {
  const store = createMemoryStore();
  const clock = fakeClock('2026-05-01T12:00:00.000Z');
  const ids = fakeIds();
  const hasher = countingHasher();
  const recorder = createEventRecorder({ events: store.events, clock, ids });
  const clients = createWalletClientService({ store, clock, ids, hasher, events: recorder });
  const tenant = (subdomain: string): Tenant => ({
    id: `tenant-${subdomain}`,
    subdomain,
    region: 'eu01',
    name: subdomain,
    loggingLevel: 3,
    createdAt: clock.now().toISOString(),
  });
  const acme = tenant('acme');
  const other = tenant('other');
  for (const t of [acme, other]) await store.tenants.insert(t);
  const auth = (tenantId: string, presented: Parameters<typeof authenticateWalletClient>[2]) =>
    authenticateWalletClient({ store, hasher }, tenantId, presented);
  const events = () => recordedEvents({ recorder, store }, acme.id);
  const ctx = contextFor(acme);
  /** Registers the client `clientId` of acme, named after its id, with `tokenEndpointAuthMethod`. */
  const register = (clientId: string, tokenEndpointAuthMethod: string) =>
    clients.create(ctx, { clientId, clientName: clientId, redirectUris: ['https://w.example/cb'], tokenEndpointAuthMethod });
  return { store, clock, hasher, clients, acme, other, ctx, auth, events, register };
}

const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;

describe('wallet client rules (docs/wallet-clients.md; RFC 6749 §3.1.2, RFC 8252 §7)', () => {
  it('accepts https, loopback http (RFC 8252 §7.3) and private-use schemes in reverse domain form (RFC 8252 §7.1)', () => {
    for (const uri of [
      'https://wallet.example.com/cb',
      'https://wallet.example.com:8443/cb?x=1',
      'http://127.0.0.1:8080/cb',
      'http://[::1]/cb',
      'http://localhost:3000/cb',
      'com.example.wallet:/cb',
      'com.example.wallet://callback',
    ]) {
      expect(redirectUriProblem(uri), uri).toBeUndefined();
    }
  });

  it('refuses fragments, relative URIs, plain http elsewhere, other schemes and malformed URIs', () => {
    for (const uri of [
      'https://wallet.example.com/cb#frag',
      '/cb',
      'wallet.example.com/cb',
      'http://wallet.example.com/cb',
      'http://127.0.0.2/cb',
      'http://localhost.example.com/cb',
      'myapp:/cb',
      'javascript:alert(1)',
      'data:text/html,x',
      'https:/wallet.example.com/cb',
      'https://user:pw@wallet.example.com/cb',
      'https://wallet.example.com/a b',
      'https://wallet.example.com/ü',
      ' https://wallet.example.com/cb',
      `https://wallet.example.com/${'a'.repeat(2000)}`,
      '',
    ]) {
      expect(redirectUriProblem(uri), uri).toEqual(expect.any(String));
    }
  });

  it('reports every problem of a body at once, each under its field', async () => {
    const error = await refusal(
      Promise.resolve().then(() =>
        checkWalletClientInput({
          clientId: 'has space',
          clientName: ' ',
          redirectUris: ['https://a.example/cb', 'http://evil.example/cb', 'https://a.example/cb'],
          grantTypes: ['implicit', 'authorization_code', 'authorization_code'],
          tokenEndpointAuthMethod: 'private_key_jwt',
          dpop: { required: 'yes' },
          clientAttestation: { rootCertificates: ['not a pem'], extra: 1 },
          credentialResponseEncryption: true,
          clientSecret: 'mine',
        }),
      ),
    );
    expect(error).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
    expect(error.details?.map((d) => d.param).sort()).toEqual(
      [
        'clientAttestation.extra',
        'clientAttestation.rootCertificates.0',
        'clientId',
        'clientName',
        'clientSecret',
        'credentialResponseEncryption',
        'dpop',
        'grantTypes.0',
        'grantTypes.2',
        'redirectUris.1',
        'redirectUris.2',
        'tokenEndpointAuthMethod',
      ].sort(),
    );
  });

  it('bounds the lists and the client id, and fills in the defaults', () => {
    const many = Array.from({ length: 21 }, (_, i) => `https://w.example/${i}`);
    expect(() => checkWalletClientInput({ clientName: 'W', redirectUris: many })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ param: 'redirectUris' })] }),
    );
    expect(() => checkWalletClientInput({ clientName: 'W', redirectUris: [] })).toThrow(expect.objectContaining({ code: 'BadRequest' }));
    expect(() => checkWalletClientInput({ clientId: 'x'.repeat(201), clientName: 'W', redirectUris: ['https://w.example/cb'] })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ param: 'clientId' })] }),
    );
    const roots = Array.from({ length: 11 }, () => PEM);
    expect(() => checkWalletClientInput({ clientName: 'W', redirectUris: ['https://w.example/cb'], clientAttestation: { rootCertificates: roots } })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ param: 'clientAttestation.rootCertificates' })] }),
    );
    expect(
      checkWalletClientInput({
        clientId: 'Wallet_1.x~-',
        clientName: 'W',
        redirectUris: ['https://w.example/cb'],
        clientAttestation: { rootCertificates: [PEM] },
      }),
    ).toEqual({
      clientId: 'Wallet_1.x~-',
      clientName: 'W',
      redirectUris: ['https://w.example/cb'],
      grantTypes: ['authorization_code'],
      tokenEndpointAuthMethod: 'none',
      clientAttestation: { rootCertificates: [PEM] },
    });
  });

  it('compares redirect URIs exactly: no case folding, no trailing slash, no normalising', () => {
    const client = { redirectUris: ['https://wallet.example.com/cb', 'http://127.0.0.1:8080/cb'] };
    expect(redirectUriRegistered(client, 'https://wallet.example.com/cb')).toBe(true);
    expect(redirectUriRegistered(client, 'https://wallet.example.com/cb/')).toBe(false);
    expect(redirectUriRegistered(client, 'https://WALLET.example.com/cb')).toBe(false);
    expect(redirectUriRegistered(client, 'https://wallet.example.com:443/cb')).toBe(false);
    expect(redirectUriRegistered(client, 'http://127.0.0.1:8081/cb')).toBe(false);
  });
});

describe('wallet clients (docs/wallet-clients.md)', () => {
  it('registers a public client with a client id Vellum makes and the defaults, reads, lists and deletes it', async () => {
    const { clients, ctx } = await setup();
    const made = await clients.create(ctx, { clientName: 'Wallet', redirectUris: ['https://wallet.example.com/cb'] });
    expect(made).toEqual({
      clientId: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      clientName: 'Wallet',
      redirectUris: ['https://wallet.example.com/cb'],
      grantTypes: ['authorization_code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: '2026-05-01T12:00:00.000Z',
      updatedAt: '2026-05-01T12:00:00.000Z',
    });
    const named = await clients.create(ctx, {
      clientId: 'my-wallet',
      clientName: 'Mine',
      redirectUris: ['com.example.wallet:/cb'],
      grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:pre-authorized_code'],
      dpop: { required: true },
      clientAttestation: { rootCertificates: [PEM], dpopRequired: true },
      credentialResponseEncryption: { required: false },
    });
    expect(named).toMatchObject({
      clientId: 'my-wallet',
      dpop: { required: true },
      clientAttestation: { rootCertificates: [PEM], dpopRequired: true },
      credentialResponseEncryption: { required: false },
    });
    expect(await clients.get(ctx, 'my-wallet')).toEqual(named);

    const first = await clients.list(ctx, { limit: 1 });
    expect(first).toEqual({ data: [made], nextCursor: expect.any(String) });
    expect((await clients.list(ctx, { cursor: first.nextCursor })).data).toEqual([named]);

    await clients.delete(ctx, 'my-wallet');
    expect(await refusal(clients.get(ctx, 'my-wallet'))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(clients.delete(ctx, 'my-wallet'))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(clients.get(ctx, 'bad id'))).toMatchObject({ code: 'BadRequest', details: [{ param: 'clientId', location: 'params' }] });
  });

  it('makes the secret of a confidential client, stores only its hash and shows it in the create answer only', async () => {
    const { clients, ctx, store, acme, register } = await setup();
    const made = await register('conf', 'client_secret_basic');
    expect(made.clientSecret).toEqual(expect.any(String));
    const secret = made.clientSecret as string;
    expect(secret.length).toBeGreaterThanOrEqual(43);
    const stored = await store.walletClients.get(acme.id, 'conf');
    expect(stored?.secretHash).toBe(`fake$${secret}`);
    const shown = JSON.stringify([await clients.get(ctx, 'conf'), await clients.list(ctx, {})]);
    expect(shown).not.toContain(secret);
    expect(shown).not.toMatch(/"(clientSecret|secretHash)"|fake\$/);
  });

  it('refuses a client id the tenant already has with 409; another tenant may use it', async () => {
    const { clients, ctx, other } = await setup();
    const body = { clientId: 'taken', clientName: 'W', redirectUris: ['https://w.example/cb'] };
    await clients.create(ctx, body);
    expect(await refusal(clients.create(ctx, body))).toMatchObject({ code: 'Conflict', details: [{ param: 'clientId' }] });
    await expect(clients.create(contextFor(other), body)).resolves.toMatchObject({ clientId: 'taken' });
  });

  it('replaces the settings; a secret appears when a public client becomes confidential, stays across methods, and goes with none', async () => {
    const { clients, ctx, store, acme, clock } = await setup();
    const made = await clients.create(ctx, { clientId: 'w', clientName: 'W', redirectUris: ['https://w.example/cb'], dpop: { required: true } });
    clock.advance(1000);
    const base = { clientName: 'W2', redirectUris: ['https://w.example/cb2'] };

    const confidential = await clients.update(ctx, 'w', { ...base, tokenEndpointAuthMethod: 'client_secret_post' });
    expect(confidential).toMatchObject({
      clientId: 'w',
      clientName: 'W2',
      tokenEndpointAuthMethod: 'client_secret_post',
      createdAt: made.createdAt,
      updatedAt: '2026-05-01T12:00:01.000Z',
    });
    expect(confidential).not.toHaveProperty('dpop');
    const secret = confidential.clientSecret as string;
    expect((await store.walletClients.get(acme.id, 'w'))?.secretHash).toBe(`fake$${secret}`);

    const basicNow = await clients.update(ctx, 'w', { ...base, clientId: 'w', tokenEndpointAuthMethod: 'client_secret_basic' });
    expect(basicNow).not.toHaveProperty('clientSecret');
    expect((await store.walletClients.get(acme.id, 'w'))?.secretHash).toBe(`fake$${secret}`);

    const publicAgain = await clients.update(ctx, 'w', base);
    expect(publicAgain).toMatchObject({ tokenEndpointAuthMethod: 'none' });
    expect(publicAgain).not.toHaveProperty('clientSecret');
    expect(await store.walletClients.get(acme.id, 'w')).not.toHaveProperty('secretHash');

    expect(await refusal(clients.update(ctx, 'w', { ...base, clientId: 'renamed' }))).toMatchObject({ code: 'BadRequest', details: [{ param: 'clientId' }] });
    expect(await refusal(clients.update(ctx, 'nobody', base))).toMatchObject({ code: 'NotFound' });
  });

  it('rotates a confidential client’s secret: the new one authenticates, the old one no longer does', async () => {
    const { clients, ctx, auth, acme, register } = await setup();
    const made = await register('rot', 'client_secret_post');
    const old = made.clientSecret as string;
    await expect(auth(acme.id, { clientId: 'rot', clientSecret: old })).resolves.toMatchObject({ clientId: 'rot' });
    const rotated = await clients.rotateSecret(ctx, 'rot');
    expect(rotated.clientSecret).not.toBe(old);
    await expect(auth(acme.id, { clientId: 'rot', clientSecret: rotated.clientSecret })).resolves.toMatchObject({ clientId: 'rot' });
    expect(await refusal(auth(acme.id, { clientId: 'rot', clientSecret: old }))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });

    await clients.create(ctx, { clientId: 'pub', clientName: 'P', redirectUris: ['https://p.example/cb'] });
    expect(await refusal(clients.rotateSecret(ctx, 'pub'))).toMatchObject({ code: 'Conflict' });
    expect(await refusal(clients.rotateSecret(ctx, 'nobody'))).toMatchObject({ code: 'NotFound' });
  });

  it('keeps tenants apart', async () => {
    const { clients, ctx, other, register } = await setup();
    await register('mine', 'client_secret_basic');
    const theirs = contextFor(other);
    expect(await refusal(clients.get(theirs, 'mine'))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(clients.update(theirs, 'mine', { clientName: 'X', redirectUris: ['https://x.example/cb'] }))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(clients.rotateSecret(theirs, 'mine'))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(clients.delete(theirs, 'mine'))).toMatchObject({ code: 'NotFound' });
    expect((await clients.list(theirs, {})).data).toEqual([]);
    await expect(clients.get(ctx, 'mine')).resolves.toMatchObject({ clientId: 'mine' });
  });

  it('needs the issuance-setup permission', async () => {
    const { clients, acme } = await setup();
    for (const role of ['auditor', 'verifier'] as const) {
      const ctx = contextFor(acme, role);
      expect(await refusal(clients.list(ctx, {}))).toMatchObject({ code: 'Forbidden' });
      expect(await refusal(clients.create(ctx, { clientName: 'W', redirectUris: ['https://w.example/cb'] }))).toMatchObject({ code: 'Forbidden' });
    }
    await expect(clients.list(contextFor(acme, 'managed-issuer'), {})).resolves.toEqual({ data: [] });
  });

  it('records OPENID_CLIENT_* events and never the secret, even at logging level 3', async () => {
    const { clients, ctx, events, register } = await setup();
    const made = await register('ev', 'client_secret_basic');
    await clients.get(ctx, 'ev');
    await clients.list(ctx, {});
    const updated = await clients.update(ctx, 'ev', {
      clientName: 'E2',
      redirectUris: ['https://e.example/cb'],
      tokenEndpointAuthMethod: 'client_secret_post',
    });
    const rotated = await clients.rotateSecret(ctx, 'ev');
    await clients.update(ctx, 'ev', { clientName: 'E3', redirectUris: ['https://e.example/cb'] });
    const again = await clients.update(ctx, 'ev', { clientName: 'E4', redirectUris: ['https://e.example/cb'], tokenEndpointAuthMethod: 'client_secret_basic' });
    await clients.delete(ctx, 'ev');
    await refusal(clients.get(ctx, 'ev'));
    const all = await events();
    const types = all.map((e) => e.type);
    for (const op of ['CREATE', 'RETRIEVE', 'LIST', 'UPDATE', 'ROTATE_SECRET', 'DELETE']) expect(types).toContain(`OPENID_CLIENT_${op}_SUCCESS`);
    expect(types).toContain('OPENID_CLIENT_RETRIEVE_FAIL');
    expect(all.find((e) => e.type === 'OPENID_CLIENT_CREATE_SUCCESS')).toMatchObject({
      category: 'openid',
      data: { clientId: 'ev', authMethod: 'client_secret_basic', payload: { response: { clientId: 'ev' } } },
    });
    const text = JSON.stringify(all);
    for (const secret of [made.clientSecret, rotated.clientSecret, again.clientSecret]) {
      expect(secret).toEqual(expect.any(String));
      expect(text).not.toContain(secret);
    }
    expect(updated).not.toHaveProperty('clientSecret');
    expect(text).not.toMatch(/fake\$/);
  });
});

describe('authenticateWalletClient (RFC 6749 §2.3)', () => {
  async function withClients() {
    const h = await setup();
    await h.register('public-w', 'none');
    const basicSecret = (await h.register('basic-w', 'client_secret_basic')).clientSecret as string;
    const postSecret = (await h.register('post-w', 'client_secret_post')).clientSecret as string;
    return { ...h, basicSecret, postSecret };
  }
  const FAILED = { code: 'Unauthorized', oauthError: 'invalid_client' };

  it('accepts each client by the method it registered', async () => {
    const { auth, acme, basicSecret, postSecret } = await withClients();
    await expect(auth(acme.id, { clientId: 'public-w' })).resolves.toMatchObject({ clientId: 'public-w' });
    await expect(auth(acme.id, { authorization: basic('basic-w', basicSecret) })).resolves.toMatchObject({ clientId: 'basic-w' });
    // client_id may repeat the authenticated one in the form (RFC 6749 §4.1.3).
    await expect(auth(acme.id, { clientId: 'basic-w', authorization: basic('basic-w', basicSecret) })).resolves.toMatchObject({ clientId: 'basic-w' });
    await expect(auth(acme.id, { clientId: 'post-w', clientSecret: postSecret })).resolves.toMatchObject({ clientId: 'post-w' });
  });

  it('form-urldecodes the Basic credentials (RFC 6749 §2.3.1) and takes the scheme in any case', async () => {
    const { auth, acme, basicSecret } = await withClients();
    await expect(auth(acme.id, { authorization: basic('basic%2Dw', basicSecret) })).resolves.toMatchObject({ clientId: 'basic-w' });
    await expect(auth(acme.id, { authorization: `basic ${btoa(`basic-w:${basicSecret}`)}` })).resolves.toMatchObject({ clientId: 'basic-w' });
  });

  it('refuses a method other than the registered one with invalid_client', async () => {
    const { auth, acme, basicSecret, postSecret } = await withClients();
    expect(await refusal(auth(acme.id, { clientId: 'public-w', clientSecret: 'anything' }))).toMatchObject(FAILED);
    expect(await refusal(auth(acme.id, { authorization: basic('public-w', 'anything') }))).toMatchObject(FAILED);
    expect(await refusal(auth(acme.id, { clientId: 'basic-w', clientSecret: basicSecret }))).toMatchObject(FAILED);
    expect(await refusal(auth(acme.id, { clientId: 'basic-w' }))).toMatchObject(FAILED);
    expect(await refusal(auth(acme.id, { authorization: basic('post-w', postSecret) }))).toMatchObject(FAILED);
    expect(await refusal(auth(acme.id, { clientId: 'post-w' }))).toMatchObject(FAILED);
  });

  it('answers unknown clients, wrong secrets and other tenants’ clients alike, with one hasher check whenever a secret is presented', async () => {
    const { auth, acme, other, hasher, postSecret } = await withClients();
    const cases: Array<[string, Parameters<typeof auth>[1], number]> = [
      ['unknown with secret', { clientId: 'nobody', clientSecret: 'x' }, 1],
      ['unknown by Basic', { authorization: basic('nobody', 'x') }, 1],
      ['wrong secret', { clientId: 'post-w', clientSecret: 'wrong' }, 1],
      ['wrong method', { clientId: 'basic-w', clientSecret: 'x' }, 1],
      ['public with secret', { clientId: 'public-w', clientSecret: 'x' }, 1],
      ['unknown without secret', { clientId: 'nobody' }, 0],
      ['no client at all', {}, 0],
      ['malformed id', { clientId: 'not valid', clientSecret: 'x' }, 1],
    ];
    const messages = new Set<string>();
    for (const [name, presented, checks] of cases) {
      const before = hasher.verifies;
      const error = await refusal(auth(acme.id, presented));
      expect(error, name).toMatchObject(FAILED);
      expect(hasher.verifies - before, name).toBe(checks);
      messages.add(error.message);
    }
    expect(messages.size).toBe(1);
    expect([...messages][0]).toMatch(OAUTH_DESCRIPTION_CHARACTERS);
    expect(await refusal(auth(other.id, { clientId: 'post-w', clientSecret: postSecret }))).toMatchObject(FAILED);
  });

  it('refuses malformed or non-Basic Authorization headers with invalid_client', async () => {
    const { auth, acme } = await withClients();
    for (const authorization of [
      'Basic !!!',
      'Basic',
      `Basic ${btoa('no-colon')}`,
      `Basic ${btoa(':secret')}`,
      'Bearer abc',
      `Basic ${btoa('basic-w:%zz')}`,
      `Basic ${'A'.repeat(4000)}`,
    ]) {
      expect(await refusal(auth(acme.id, { authorization })), authorization.slice(0, 40)).toMatchObject(FAILED);
    }
  });

  it('refuses two methods at once, and a client_id that differs from the header’s, with invalid_request', async () => {
    const { auth, acme, basicSecret } = await withClients();
    const both = await refusal(auth(acme.id, { authorization: basic('basic-w', basicSecret), clientSecret: basicSecret }));
    const differs = await refusal(auth(acme.id, { authorization: basic('basic-w', basicSecret), clientId: 'post-w' }));
    for (const error of [both, differs]) {
      expect(error).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_request' });
      // RFC 6749 §5.2: what a wallet reads as error_description is what was written.
      expect(error.message).toMatch(OAUTH_DESCRIPTION_CHARACTERS);
    }
  });
});
