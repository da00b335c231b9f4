// The test credentials the issuance tests of the core and of @vellum/formats issue alike: a
// configuration and a subject for each format, holders' keys, and the request to issue
// (docs/decisions.md "Credential configurations"). It imports no package of ours by name, so the
// format tests import it by path (packages/formats/test/fixtures.ts).
import { generateKeyPairSync } from 'node:crypto';
import type { ClaimSubject } from '../src/configurations/claims.ts';
import type { CredentialConfiguration, CwtConfiguration, LdpVcConfiguration, SdJwtConfiguration } from '../src/configurations/model.ts';
import type { CredentialFormatHandler, FormatIssueRequest } from '../src/credential-formats/port.ts';
import type { PublicJwk } from '../src/keys/model.ts';

/** When the test configurations were made. */
const MADE = '2026-05-01T12:00:00.000Z';

/** What every test configuration has as a stored record (docs/decisions.md "Credential configurations"). */
const record = (id: string, tenantId: string) => ({ id, tenantId, revocable: false, createdAt: MADE, updatedAt: MADE });

/**
 * An employee badge as cwt or cwt_vc (RFC 8392): a required claim, a nested one, a default, one the
 * subject leaves without a value (nickname) and an array holding a map (badges).
 */
export function cwtConfiguration(format: 'cwt' | 'cwt_vc', tenantId: string, over: Partial<CwtConfiguration> = {}): CwtConfiguration {
  return {
    ...record('cfg-cwt', tenantId),
    format,
    type: 'EmployeeBadge',
    expiresIn: { days: 30 },
    claimMappings: {
      given_name: { mapFrom: 'claims.givenName', required: true },
      family_name: { mapFrom: 'claims.familyName' },
      employee_id: { mapFrom: 'claims.employee.id' },
      department: { defaultValue: 'Research' },
      nickname: { mapFrom: 'claims.nickname' },
      badges: { mapFrom: 'claims.badges' },
    },
    ...over,
  };
}

export const CWT_SUBJECT: ClaimSubject = { claims: { givenName: 'Susan', familyName: 'Turner', employee: { id: 4711 }, badges: ['lab', { floor: 3 }] } };

/**
 * A university degree as ldp_vc (W3C VC Data Model 1.1, docs/formats/ldp-vc.md), with what the legacy
 * form signs besides (issuer name and images, branding, name, description); claims as for cwt.
 */
export function ldpVcConfiguration(tenantId: string, over: Partial<LdpVcConfiguration> = {}): LdpVcConfiguration {
  return {
    ...record('cfg-ldp', tenantId),
    format: 'ldp_vc',
    type: 'UniversityDegreeCredential',
    name: 'University degree',
    description: 'A bachelor degree',
    expiresIn: { days: 365 },
    issuer: { name: 'Acme University', logoUrl: 'https://acme.example/logo.png', iconUrl: 'https://acme.example/icon.png' },
    proofType: 'Ed25519Signature2018',
    credentialBranding: { backgroundColor: '#1a2b3c', watermarkImageUrl: 'https://acme.example/watermark.png' },
    claimMappings: {
      givenName: { mapFrom: 'claims.givenName', required: true },
      degree: { mapFrom: 'claims.degree.title' },
      graduationYear: { mapFrom: 'claims.degree.year' },
      honours: { mapFrom: 'claims.honours' },
      country: { defaultValue: 'NZ' },
      nickname: { mapFrom: 'claims.nickname' },
    },
    ...over,
  };
}

export const LDP_VC_SUBJECT: ClaimSubject = { claims: { givenName: 'Susan', degree: { title: 'BSc Physics', year: 2024 }, honours: true } };

/** A person identification as dc+sd-jwt (draft-ietf-oauth-sd-jwt-vc): flat, array and object claims, a default, and a nickname without a value. */
export function sdJwtConfiguration(tenantId: string, over: Partial<SdJwtConfiguration> = {}): SdJwtConfiguration {
  return {
    ...record('cfg-pid', tenantId),
    format: 'dc+sd-jwt',
    type: 'https://credentials.example.com/pid',
    expiresIn: { days: 30 },
    claimMappings: {
      given_name: { mapFrom: 'claims.givenName', required: true },
      family_name: { mapFrom: 'claims.familyName' },
      birthdate: { mapFrom: 'claims.birthDate' },
      nationalities: { mapFrom: 'claims.nationalities' },
      address: { mapFrom: 'claims.address' },
      nickname: { mapFrom: 'claims.nickname' },
      age_over_18: { mapFrom: 'claims.adult' },
      issuing_country: { defaultValue: 'DE' },
    },
    ...over,
  };
}

export const SD_JWT_SUBJECT: ClaimSubject = {
  claims: {
    givenName: 'Erika',
    familyName: 'Mustermann',
    birthDate: '1964-08-12',
    nationalities: ['DE'],
    address: { street_address: 'Heidestraße 17', locality: 'Köln', postal_code: '51147' },
    adult: true,
  },
};

/** A fresh public key on `curve`, as a holder's key proof names it (node:crypto). */
export function holderKey(curve: 'P-256' | 'Ed25519' = 'P-256'): PublicJwk {
  if (curve === 'Ed25519') return { kty: 'OKP', crv: 'Ed25519', x: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string };
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  return { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
}

/** `handler.issue` of a current request to the tenant's origin: `base` fills it in, and each call's `over` changes it. */
export function issuing<C extends CredentialConfiguration>(
  handler: Pick<CredentialFormatHandler<C>, 'issue'>,
  base: Omit<FormatIssueRequest<C>, 'credentialIssuer' | 'form'>,
) {
  return (over: Partial<FormatIssueRequest<C>> = {}) => handler.issue({ credentialIssuer: 'https://acme.eu01.vellum.test', form: 'current', ...base, ...over });
}
