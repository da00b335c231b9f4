// What the per-format issuance benchmarks issue, and how each format's issuer is set up on a store:
// the configuration, the subject and the `prepare*` of mso_mdoc (mdoc-issuance.ts), cwt and cwt_vc
// (cwt-issuance.ts), dc+sd-jwt (sd-jwt-issuance.ts) and ldp_vc (ldp-vc-issuance.ts), kept here so
// that those scripts and formats-per-core.ts time the same credentials through the same code.
import {
  createCwtFormat,
  createLdpVcFormat,
  createSdJwtFormat,
  type CwtConfiguration,
  type CwtSignInput,
  type LdpVcConfiguration,
  type MdocConfiguration,
  type PublicJwk,
  type SdJwtConfiguration,
  type SdJwtSignInput,
  type Store,
  signingDidOf,
} from '@vellum/core';
import { createCwtSigner, createLinkedDataSigner, createSdJwtSigner } from '@vellum/formats';
import { createNodeIds } from '@vellum/node';
import { SD_JWT_SUBJECT } from '../../../packages/core/test/credentials.ts';
import { tenantWithDidKey, tenantWithIaca } from './in-process.ts';
import { handlerIssue, holderKeys } from './throughput.ts';

/** The credential issuer the DID-signed formats issue under. */
const CREDENTIAL_ISSUER = 'https://bench.eu01.vellum.bench';

// Each credential binds another holder key, as real issuance does.
const holders = holderKeys(256);

// mso_mdoc: an mDL with ten claims (strings, dates, a boolean, a number and two defaults).

const NS = 'org.iso.18013.5.1';
const mdocConfigurationOf = (tenantId: string): MdocConfiguration => ({
  id: 'bench-mdl',
  tenantId,
  format: 'mso_mdoc',
  type: 'org.iso.18013.5.1.mDL',
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
      issuing_authority: { defaultValue: 'Bench DMV' },
      document_number: { mapFrom: 'claims.documentNumber' },
      age_over_18: { mapFrom: 'claims.adult', type: 'boolean' },
      height: { mapFrom: 'claims.height', type: 'number' },
    },
  },
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

const mdocSubject = {
  claims: {
    familyName: 'Turner',
    givenName: 'Susan',
    birthDate: '1990-05-15',
    issuedOn: '2026-01-10',
    expiresOn: '2031-01-10',
    documentNumber: 'DL-1234-5678',
    adult: true,
    height: 172,
  },
};

/**
 * A tenant with an active managed IACA, through the use cases, on `store`; mDLs issued through the
 * mDoc use case (`issueOne`, what mdoc-issuance.ts times) or through the registry's mso_mdoc handler
 * that the credential endpoint calls (`handlerOne`, which wraps that use case); and a bare signature
 * with the document signer's key.
 */
export async function prepareMdoc(store: Store, cacheMs: number) {
  const { vellum, keys, tenant } = await tenantWithIaca(store, { mdocSignerCacheMs: cacheMs });
  const configuration = mdocConfigurationOf(tenant.id);
  const issueOne = (i: number) =>
    vellum.mdocIssuance.issue({ tenant, configuration, subject: mdocSubject, holderKey: holders[i % holders.length] as PublicJwk });
  const handlerOne = handlerIssue(
    vellum.formats.of(configuration),
    { tenant, configuration, subject: mdocSubject, credentialIssuer: CREDENTIAL_ISSUER, form: 'current' },
    holders,
  );
  const first = await issueOne(0);
  const signer = await store.documentSigners.get(tenant.id, first.documentSignerId);
  const message = new Uint8Array(200).fill(0x5a);
  const signOne = () => keys.sign(tenant.id, signer!.keyId, message);
  return { vellum, issueOne, handlerOne, signOne, first };
}

// cwt and cwt_vc: eight claims, signed by a P-256 did:key.

const cwtConfigurationOf = (tenantId: string, format: 'cwt' | 'cwt_vc'): CwtConfiguration => ({
  id: `bench-${format}`,
  tenantId,
  format,
  type: 'ProofOfEmployment',
  expiresIn: { days: 365 },
  revocable: false,
  claimMappings: {
    given_name: { mapFrom: 'claims.givenName', required: true },
    family_name: { mapFrom: 'claims.familyName', required: true },
    birth_date: { mapFrom: 'claims.birthDate' },
    employee_number: { mapFrom: 'claims.number', required: true },
    department: { mapFrom: 'claims.department' },
    employer: { defaultValue: 'Acme Research' },
    start_date: { mapFrom: 'claims.startDate' },
    full_time: { mapFrom: 'claims.fullTime' },
  },
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

const cwtSubject = {
  claims: { givenName: 'Susan', familyName: 'Turner', birthDate: '1990-05-15', number: 4711, department: 'Materials', startDate: '2019-09-01', fullTime: true },
};

/**
 * A tenant with one P-256 did:key on a KeyManager key, and the handlers of both formats, on
 * `store`; beside them the signer alone (CBOR, COSE_Sign1 and the signature) and a bare signature.
 */
export async function prepareCwt(store: Store) {
  const { keys, tenant, did, didKey } = await tenantWithDidKey(store, 'P-256');
  const signer = createCwtSigner({ keys });
  const issuerOf = (format: 'cwt' | 'cwt_vc') =>
    handlerIssue(
      createCwtFormat({ store, signer, format }),
      { tenant, configuration: cwtConfigurationOf(tenant.id, format), subject: cwtSubject, credentialIssuer: CREDENTIAL_ISSUER, form: 'current' },
      holders,
    );
  const now = new Date();
  const signInput = (i: number): CwtSignInput => ({
    tenantId: tenant.id,
    keyId: didKey.kmsKeyId,
    kid: didKey.didDocumentKeyId,
    claims: {
      iss: did,
      sub: did,
      iat: now,
      nbf: now,
      exp: new Date(now.getTime() + 365 * 86_400_000),
      cnf: holders[i % holders.length] as PublicJwk,
      claims: { type: 'ProofOfEmployment', ...cwtSubject.claims },
    },
  });
  const message = new Uint8Array(300).fill(0x5a);
  return {
    cwt: issuerOf('cwt'),
    cwtVc: issuerOf('cwt_vc'),
    signOnly: (i: number) => signer.sign(signInput(i)),
    rawSign: () => keys.sign(tenant.id, didKey.kmsKeyId, message),
  };
}

// dc+sd-jwt: a PID-like credential with seven claims, every one disclosable.

const sdJwtConfigurationOf = (tenantId: string): SdJwtConfiguration => ({
  id: 'bench-pid',
  tenantId,
  format: 'dc+sd-jwt',
  type: 'https://credentials.example.com/pid',
  expiresIn: { days: 365 },
  claimMappings: {
    given_name: { mapFrom: 'claims.givenName', required: true },
    family_name: { mapFrom: 'claims.familyName', required: true },
    birthdate: { mapFrom: 'claims.birthDate', required: true },
    nationalities: { mapFrom: 'claims.nationalities' },
    address: { mapFrom: 'claims.address' },
    age_over_18: { mapFrom: 'claims.adult' },
    issuing_country: { defaultValue: 'DE' },
  },
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

/**
 * A tenant with a did:key over a KeyManager P-256 key (as the DID service makes it), the handler,
 * on `store`; beside it the signer alone on the payload the handler builds, a bare signature, and
 * the signing DID lookup the handler makes on every credential.
 */
export async function prepareSdJwt(store: Store) {
  const { keys, tenant, didKey } = await tenantWithDidKey(store, 'P-256');
  const signer = createSdJwtSigner({ keys });
  const handler = createSdJwtFormat({ store, signer });
  // The person the core's and the formats' SD-JWT tests issue to (a test fixture shared by path).
  const request = {
    tenant,
    configuration: sdJwtConfigurationOf(tenant.id),
    subject: SD_JWT_SUBJECT,
    credentialIssuer: CREDENTIAL_ISSUER,
    form: 'current',
  } as const;
  const issueOne = handlerIssue(handler, request, holders);
  const first = await issueOne(0);
  // The signer alone, on the payload the handler built: what the handler adds is the difference.
  let recorded: SdJwtSignInput | undefined;
  await handlerIssue(createSdJwtFormat({ store, signer: { issue: async (input) => ((recorded = input), '') } }), request, holders)(0);
  const input = recorded as SdJwtSignInput;
  const signOnly = () => signer.issue(input);
  const message = new Uint8Array(400).fill(0x5a);
  const rawSign = () => keys.sign(tenant.id, didKey.kmsKeyId, message);
  const lookup = () => signingDidOf(store, tenant.id, undefined, 'P-256');
  return { issueOne, signOnly, rawSign, lookup, first };
}

// ldp_vc: a university degree with ten claims, issuer branding, signed by an Ed25519 did:key.

const ldpVcConfigurationOf = (tenantId: string, proofType: LdpVcConfiguration['proofType']): LdpVcConfiguration => ({
  id: 'bench-ldp',
  tenantId,
  format: 'ldp_vc',
  type: 'UniversityDegreeCredential',
  name: 'University degree',
  description: 'A bachelor degree awarded by Acme University',
  expiresIn: { days: 365 },
  issuer: { name: 'Acme University', logoUrl: 'https://acme.example/logo.png', iconUrl: 'https://acme.example/icon.png' },
  proofType,
  credentialBranding: { backgroundColor: '#1a2b3c', watermarkImageUrl: 'https://acme.example/watermark.png' },
  revocable: false,
  // Ten claims, as the mDoc benchmark has.
  claimMappings: {
    givenName: { mapFrom: 'claims.givenName', required: true },
    familyName: { mapFrom: 'claims.familyName', required: true },
    birthDate: { mapFrom: 'claims.birthDate' },
    degree: { mapFrom: 'claims.degree' },
    major: { mapFrom: 'claims.major' },
    graduationYear: { mapFrom: 'claims.year' },
    gpa: { mapFrom: 'claims.gpa' },
    honours: { mapFrom: 'claims.honours' },
    studentId: { mapFrom: 'claims.studentId' },
    awardedBy: { defaultValue: 'Acme University' },
  },
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

const ldpVcSubject = {
  claims: {
    givenName: 'Susan',
    familyName: 'Turner',
    birthDate: '1990-05-15',
    degree: 'Bachelor of Science',
    major: 'Physics',
    year: 2024,
    gpa: 3.8,
    honours: true,
    studentId: 'S-2020-0042',
  },
};

/**
 * A tenant with one did:key DID over a KeyManager Ed25519 key, stored as the DID service stores
 * one, and the ldp_vc handler with the real Linked Data signer, on `store`: `issueWith(proofType,
 * form)` is one credential per call.
 */
export async function prepareLdpVc(store: Store) {
  const { keys, tenant, didKey } = await tenantWithDidKey(store, 'Ed25519');
  const handler = createLdpVcFormat({ store, ids: createNodeIds(), signer: createLinkedDataSigner({ keys }) });
  const issueWith = (proofType: LdpVcConfiguration['proofType'], form: 'current' | 'legacy') =>
    handlerIssue(
      handler,
      { tenant, configuration: ldpVcConfigurationOf(tenant.id, proofType), subject: ldpVcSubject, credentialIssuer: 'https://acme.example', form },
      holders,
    );
  return { keys, tenant, keyId: didKey.kmsKeyId, issueWith };
}
