import { describe, expect, it } from 'vitest';
import { SD_JWT_SUBJECT, sdJwtConfiguration } from '../../test/credentials.ts';
import { createMemoryStore, makeDid, makeTenant } from '../../test/kit.ts';
import type { ClaimSubject } from '../configurations/claims.ts';
import type { SdJwtConfiguration } from '../configurations/model.ts';
import type { DidRecord } from '../dids/model.ts';
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
