import { describe, expect, it } from 'vitest';
import { SD_JWT_SUBJECT, sdJwtConfiguration } from '../../test/credentials.ts';
import { createMemoryStore, makeDid, makeTenant } from '../../test/kit.ts';
import type { ClaimSubject } from '../configurations/claims.ts';
import type { SdJwtConfiguration } from '../configurations/model.ts';
import type { DidRecord } from '../dids/model.ts';
import type { IssuerSigners } from '../issuer-pki/model.ts';
import type { PublicJwk } from '../keys/model.ts';
import { DomainError } from '../shared/errors.ts';
import type { SdJwtSignInput, SdJwtSigner } from './port.ts';
import { createSdJwtFormat } from './sd-jwt.ts';

const NOW = new Date('2026-05-01T12:00:00.400Z');
const HOLDER: PublicJwk = { kty: 'EC', crv: 'P-256', x: 'holder-x', y: 'holder-y' };

async function setup(dids: Array<(tenantId: string) => DidRecord> = [(t) => makeDid(t)]) {
  const store = createMemoryStore();
  const tenant = makeTenant();
  await store.tenants.insert(tenant);
  const records: DidRecord[] = [];
  for (const make of dids) {
    const record = make(tenant.id);
    await store.dids.insert(record);
    records.push(record);
  }
  const signer = recordingSigner();
  const handler = createSdJwtFormat({ store, signer });
  return { store, tenant, records, signer, handler };
}

/** An SdJwtSigner that records what it is asked to sign (the real one is tested in @vellum/formats). */
function recordingSigner(): SdJwtSigner & { inputs: SdJwtSignInput[] } {
  const inputs: SdJwtSignInput[] = [];
  return {
    inputs,
    async issue(input) {
      inputs.push(structuredClone(input));
      return `eyJ.${inputs.length}.sig~`;
    },
  };
}

const requestOf = (tenant: ReturnType<typeof makeTenant>, configuration: SdJwtConfiguration, over: { subject?: ClaimSubject; now?: Date } = {}) => ({
  tenant,
  configuration,
  subject: over.subject ?? SD_JWT_SUBJECT,
  holderKey: HOLDER,
  credentialIssuer: 'https://acme.eu01.vellum.example',
  now: over.now ?? NOW,
  form: 'current' as const,
});

const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('dc+sd-jwt issue (draft-ietf-oauth-sd-jwt-vc §3.2)', () => {
  it('signs iss, iat, nbf, exp, vct, cnf.jwk and the mapped claims with the tenant’s P-256 DID key, named by its DID URL', async () => {
    const { tenant, records, signer, handler } = await setup();
    const issued = await handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id)));

    expect(signer.inputs).toHaveLength(1);
    const input = signer.inputs[0]!;
    const did = records[0]!;
    const p256 = did.keys.find((k) => k.algorithm === 'P-256')!;
    expect(input).toMatchObject({ tenantId: tenant.id, keyId: p256.kmsKeyId, alg: 'ES256', kid: p256.didDocumentKeyId });
    // Whole seconds (RFC 7519 §2): the 0.4 s of NOW are dropped; 30 days later for exp.
    const iat = seconds('2026-05-01T12:00:00Z');
    expect(input.payload).toEqual({
      iss: did.did,
      iat,
      nbf: iat,
      exp: iat + 30 * 86_400,
      vct: 'https://credentials.example.com/pid',
      cnf: { jwk: HOLDER },
      given_name: 'Erika',
      family_name: 'Mustermann',
      birthdate: '1964-08-12',
      nationalities: ['DE'],
      address: { street_address: 'Heidestraße 17', locality: 'Köln', postal_code: '51147' },
      age_over_18: true,
      issuing_country: 'DE',
    });
    expect(Object.keys(input.payload).slice(0, 6)).toEqual(['iss', 'iat', 'nbf', 'exp', 'vct', 'cnf']);
    expect(issued.validFrom).toBe('2026-05-01T12:00:00.000Z');
    expect(issued.validUntil).toBe('2026-05-31T12:00:00.000Z');
    expect(issued.credential).toBe('eyJ.1.sig~');
  });

  it('makes every mapped claim that has a value disclosable when the configuration names none', async () => {
    const { tenant, signer, handler } = await setup();
    await handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id)));
    // nickname has no value, so it is neither in the payload nor disclosable.
    expect([...signer.inputs[0]!.disclosable].sort()).toEqual([
      'address',
      'age_over_18',
      'birthdate',
      'family_name',
      'given_name',
      'issuing_country',
      'nationalities',
    ]);
  });

  it('makes only the claims of selectivelyDisclosable disclosable, leaving out those without a value', async () => {
    const { tenant, signer, handler } = await setup();
    await handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id, { selectivelyDisclosable: ['birthdate', 'nickname', 'given_name'] })));
    expect(signer.inputs[0]!.disclosable).toEqual(['birthdate', 'given_name']);
    expect(signer.inputs[0]!.payload.family_name).toBe('Mustermann');
  });

  it('an empty selectivelyDisclosable issues every claim in the clear', async () => {
    const { tenant, signer, handler } = await setup();
    await handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id, { selectivelyDisclosable: [] })));
    expect(signer.inputs[0]!.disclosable).toEqual([]);
  });

  it('signs with the most recently created DID holding a P-256 key, unless issuer.id pins one', async () => {
    const ed25519Only = (t: string) => {
      const record = makeDid(t);
      return { ...record, keys: record.keys.filter((k) => k.algorithm === 'Ed25519') };
    };
    const { tenant, records, signer, handler } = await setup([(t) => makeDid(t), (t) => makeDid(t), ed25519Only]);
    await handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id)));
    expect(signer.inputs[0]!.payload.iss).toBe(records[1]!.did);

    await handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id, { issuer: { id: records[0]!.did } })));
    expect(signer.inputs[1]!.payload.iss).toBe(records[0]!.did);
    expect(signer.inputs[1]!.kid).toBe(records[0]!.keys.find((k) => k.algorithm === 'P-256')!.didDocumentKeyId);
  });

  it('a mapped claim never replaces a registered one', async () => {
    const { tenant, records, signer, handler } = await setup();
    const configuration = sdJwtConfiguration(tenant.id, {
      claimMappings: { iss: { defaultValue: 'did:example:forged' }, vct: { defaultValue: 'other' }, given_name: { mapFrom: 'claims.givenName' } },
    });
    await handler.issue(requestOf(tenant, configuration));
    const input = signer.inputs[0]!;
    expect(input.payload.iss).toBe(records[0]!.did);
    expect(input.payload.vct).toBe('https://credentials.example.com/pid');
    expect(input.disclosable).toEqual(['given_name']);
  });

  describe('refusals (400, nothing signed)', () => {
    async function refused(run: (s: Awaited<ReturnType<typeof setup>>) => Promise<unknown>, dids?: Parameters<typeof setup>[0], message?: RegExp) {
      const s = await setup(dids);
      const failure = await run(s).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DomainError);
      expect((failure as DomainError).code).toBe('BadRequest');
      if (message) expect((failure as DomainError).message).toMatch(message);
      expect(s.signer.inputs).toEqual([]);
    }

    it('a required claim without a value', () =>
      refused(
        ({ tenant, handler }) => handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id), { subject: { claims: { familyName: 'Mustermann' } } })),
        undefined,
        /do not satisfy/,
      ));

    it('no claim at all (OpenID4VCI 1.0 §8, docs/decisions.md "Credential configurations")', () =>
      refused(
        ({ tenant, handler }) =>
          handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id, { claimMappings: { nickname: { mapFrom: 'claims.nickname' } } }))),
        undefined,
        /no claims/,
      ));

    it('a credential that would already be expired (docs/decisions.md "Credential configurations")', () =>
      refused(
        ({ tenant, handler }) => handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id, { expiresIn: { seconds: 0 } }))),
        undefined,
        /already be expired/,
      ));

    it('no DID with a P-256 key', () => refused(({ tenant, handler }) => handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id))), [], /P-256/));

    it('a pinned issuer DID that is gone', () =>
      refused(
        ({ tenant, handler }) => handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id, { issuer: { id: 'did:web:gone.example.com' } }))),
        undefined,
        /did:web:gone\.example\.com/,
      ));
  });
});

describe('dc+sd-jwt issue with keyResolution x5c (HAIP 1.0, docs/decisions.md "Issuer certificates")', () => {
  const LEAF = 'MIIB-leaf-der-base64';

  /** Issuer signers that hand out one leaf and record what they were asked. */
  function oneLeaf() {
    const asked: Array<{ tenantId: string; use: string; issuer: string; now: Date; lifetimeMs: number | undefined }> = [];
    const issuerSigners: Pick<IssuerSigners, 'current'> = {
      async current(tenant, use, issuer, now, lifetimeMs) {
        asked.push({ tenantId: tenant.id, use, issuer, now, lifetimeMs });
        return {
          caId: 'ca-1',
          signerId: 'leaf-1',
          key: { tenantId: tenant.id, keyId: 'kms-leaf-1' },
          publicJwk: { kty: 'EC', crv: 'P-256', x: 'leaf-x', y: 'leaf-y' },
          x5c: [LEAF],
          x5chain: [new Uint8Array([1])],
          notAfter: new Date('2027-08-01T00:00:00Z'),
        };
      },
    };
    return { issuerSigners, asked };
  }

  async function x5cSetup(dids?: Parameters<typeof setup>[0]) {
    const s = await setup(dids);
    const { issuerSigners, asked } = oneLeaf();
    return { ...s, asked, handler: createSdJwtFormat({ store: s.store, signer: s.signer, issuerSigners }) };
  }

  it('signs with the leaf’s key, x5c with kid the leaf’s id (as JWT VC Issuer Metadata publishes it), and iss the credential issuer, not a DID', async () => {
    const { tenant, signer, handler, asked } = await x5cSetup();
    const configuration = sdJwtConfiguration(tenant.id, { keyResolution: 'x5c' });
    const issued = await handler.issue(requestOf(tenant, configuration));
    expect(asked).toEqual([{ tenantId: tenant.id, use: 'credential', issuer: 'https://acme.eu01.vellum.example', now: NOW, lifetimeMs: 30 * 86_400_000 }]);
    const input = signer.inputs[0]!;
    expect(input).toMatchObject({ tenantId: tenant.id, keyId: 'kms-leaf-1', alg: 'ES256', x5c: [LEAF] });
    // kid names the leaf, not a DID key: the id /.well-known/jwt-vc-issuer publishes its key under.
    expect(input.kid).toBe('leaf-1');
    const iat = seconds('2026-05-01T12:00:00Z');
    expect(input.payload).toMatchObject({
      iss: 'https://acme.eu01.vellum.example',
      iat,
      nbf: iat,
      exp: iat + 30 * 86_400,
      vct: configuration.type,
      cnf: { jwk: HOLDER },
    });
    expect(input.disclosable).toContain('given_name');
    expect(input.disclosable).not.toContain('iss');
    expect(issued.credential).toBe('eyJ.1.sig~');
  });

  it('with type metadata and disclosure rules, signs vct#integrity and passes the rules, as the DID path does (issue 29)', async () => {
    const s = await setup([]);
    const { issuerSigners } = oneLeaf();
    const digests = { sha256: (text: string) => Buffer.from(`digest of ${text.length}`).toString('base64url') };
    const handler = createSdJwtFormat({ store: s.store, signer: s.signer, issuerSigners, digests });
    const rules = [{ path: ['address', 'locality'], decoys: 1 }];
    const configuration = sdJwtConfiguration(s.tenant.id, { keyResolution: 'x5c', typeMetadata: { name: 'PID' }, disclosureRules: rules });
    await handler.issue(requestOf(s.tenant, configuration));
    const body = JSON.stringify({ vct: configuration.type, name: 'PID' });
    const input = s.signer.inputs[0]!;
    expect(input.payload['vct#integrity']).toBe(`sha256-${Buffer.from(`digest of ${body.length}`).toString('base64')}`);
    expect(input.rules).toEqual(rules);
  });

  it('needs no DID: the tenant may hold none', async () => {
    const { tenant, signer, handler } = await x5cSetup([]);
    await handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id, { keyResolution: 'x5c' })));
    expect(signer.inputs[0]).toMatchObject({ x5c: [LEAF] });
  });

  it('names the issuer the wallet used: a custom domain gets its own iss and leaf', async () => {
    const { tenant, signer, handler, asked } = await x5cSetup();
    await handler.issue({ ...requestOf(tenant, sdJwtConfiguration(tenant.id, { keyResolution: 'x5c' })), credentialIssuer: 'https://id.acme.example' });
    expect(asked[0]!.issuer).toBe('https://id.acme.example');
    expect(signer.inputs[0]!.payload.iss).toBe('https://id.acme.example');
  });

  it('signs with the DID key as before for keyResolution did or none', async () => {
    const { tenant, signer, handler, asked, records } = await x5cSetup();
    await handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id, { keyResolution: 'did' })));
    await handler.issue(requestOf(tenant, sdJwtConfiguration(tenant.id)));
    expect(asked).toEqual([]);
    for (const input of signer.inputs) {
      expect(input.kid).toMatch(/^did:/);
      expect(input).not.toHaveProperty('x5c');
      expect(input.payload.iss).toBe(records[0]!.did);
    }
  });

  it('revocable: the entry is in a list of the leaf’s issuer CA, named in status.status_list and given with the credential (issue 29 point 4)', async () => {
    const s = await setup([]);
    const { issuerSigners } = oneLeaf();
    const allocated: unknown[][] = [];
    const statusLists = {
      async allocateReferenced(...args: unknown[]) {
        allocated.push(args);
        return { listId: 'list-1', idx: 42, uri: 'https://acme.eu01.vellum.example/v2/credentials/sd-jwt/status-lists/list-1' };
      },
    };
    const handler = createSdJwtFormat({ store: s.store, signer: s.signer, issuerSigners, statusLists });
    const issued = await handler.issue(requestOf(s.tenant, sdJwtConfiguration(s.tenant.id, { keyResolution: 'x5c', revocable: true })));
    expect(allocated).toEqual([[s.tenant, 'token-jwt', { kind: 'x509', caId: 'ca-1' }, 'https://acme.eu01.vellum.example']]);
    expect(s.signer.inputs[0]!.payload.status).toEqual({
      status_list: { idx: 42, uri: 'https://acme.eu01.vellum.example/v2/credentials/sd-jwt/status-lists/list-1' },
    });
    // Always in the clear: a verifier must find the list without a disclosure.
    expect(s.signer.inputs[0]!.disclosable).not.toContain('status');
    expect(issued.statusEntry).toMatchObject({ listId: 'list-1', idx: 42 });
    // Not revocable: no entry.
    await handler.issue(requestOf(s.tenant, sdJwtConfiguration(s.tenant.id, { keyResolution: 'x5c' })));
    expect(allocated).toHaveLength(1);
    expect(s.signer.inputs[1]!.payload).not.toHaveProperty('status');
  });

  it('refuses (400, nothing signed) when the host has no issuer signers, or the tenant no leaf', async () => {
    const s = await setup();
    const configuration = sdJwtConfiguration(s.tenant.id, { keyResolution: 'x5c' });
    await expect(s.handler.issue(requestOf(s.tenant, configuration))).rejects.toMatchObject({ code: 'BadRequest' });
    const refusing = createSdJwtFormat({
      store: s.store,
      signer: s.signer,
      issuerSigners: {
        current: async () => {
          throw new DomainError('BadRequest', 'No active issuer CA');
        },
      },
    });
    await expect(refusing.issue(requestOf(s.tenant, configuration))).rejects.toMatchObject({ code: 'BadRequest', message: 'No active issuer CA' });
    expect(s.signer.inputs).toEqual([]);
  });
});
