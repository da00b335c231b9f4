import type { DidRecord } from '../dids/model.ts';
import type { KeyAlgorithm } from '../keys/model.ts';
import type {
  ClaimDisplay,
  CredentialConfiguration,
  CredentialDisplay,
  CredentialFormat,
  Duration,
  FlatClaimMappings,
  IssuerProfile,
  MdocClaimMappings,
} from './model.ts';
import {
  checkClaimDisplay,
  checkClaimMappings,
  checkColor,
  checkDisplay,
  checkExpiresIn,
  checkHttpsUrl,
  checkIssuerProfile,
  checkKnownFields,
  checkText,
  checkType,
  DEFAULT_EXPIRES_IN,
  isSigningDid,
  MAX_DESCRIPTION,
  MAX_LABEL,
  Problems,
} from './rules.ts';

/** The Linked Data proof suites an ldp_vc configuration may ask for (API.md §6); the first is the default. */
export const LDP_PROOF_TYPES = ['Ed25519Signature2018', 'Ed25519Signature2020'] as const;

const COMMON_FIELDS = ['type', 'name', 'description', 'claimMappings', 'expiresIn', 'claimSourceId', 'display', 'claimDisplay'];

/** The fields each format adds to the common ones (API.md §6). */
export const FORMAT_FIELDS: Readonly<Record<CredentialFormat, readonly string[]>> = {
  mso_mdoc: ['includeStatus'],
  ldp_vc: ['issuer', 'contexts', 'additionalTypes', 'proofType', 'credentialBranding', 'revocable'],
  cwt: ['issuer', 'revocable'],
  cwt_vc: ['issuer', 'revocable'],
  'dc+sd-jwt': ['issuer'],
};

/**
 * Claim names the issuer writes itself, so a mapping may not use them: the holder's DID in
 * `credentialSubject.id`, and the registered claims of a CWT (RFC 8392) or an SD-JWT VC.
 */
export const RESERVED_CLAIMS: Readonly<Record<CredentialFormat, readonly string[]>> = {
  mso_mdoc: [],
  ldp_vc: ['id'],
  cwt_vc: ['id'],
  cwt: ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'cti', 'cnf', 'status'],
  'dc+sd-jwt': ['iss', 'nbf', 'exp', 'iat', 'cnf', 'vct', 'status', '_sd', '_sd_alg'],
};

/** The key a format signs with, so a pinned issuer DID must hold one. */
export const SIGNING_KEY: Readonly<Record<Exclude<CredentialFormat, 'mso_mdoc'>, KeyAlgorithm>> = {
  ldp_vc: 'Ed25519',
  cwt: 'P-256',
  cwt_vc: 'P-256',
  'dc+sd-jwt': 'P-256',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LD_TYPE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
const MAX_LIST = 20;

/** Whether a value is a UUID (ids in paths and bodies). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** What Vellum assigns to a configuration rather than the caller. */
export interface AssignedFields {
  id: string;
  tenantId: string;
  createdAt: string;
  updatedAt: string;
}

export interface CheckContext {
  /** The tenant's DID named by `issuer.id`, looked up by the caller; undefined when it holds none. */
  issuerDid?: DidRecord | undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function checkBoolean(param: string, value: unknown, problems: Problems): void {
  if (value !== undefined && typeof value !== 'boolean') problems.add(param, 'true or false', value);
}

/** A list of up to MAX_LIST distinct strings, each checked by `ok`. */
function checkList(param: string, value: unknown, ok: (item: string) => boolean, what: string, problems: Problems): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.length > MAX_LIST) {
    problems.add(param, `A list of up to ${MAX_LIST} ${what}s`, value);
    return;
  }
  const seen = new Set<unknown>();
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string' || !ok(item)) problems.add(`${param}.${i}`, `A ${what}`, item);
    else if (seen.has(item)) problems.add(`${param}.${i}`, 'Listed twice', item);
    seen.add(item);
  });
}

function isHttpsUrl(value: string): boolean {
  const problems = new Problems();
  checkHttpsUrl('', value, problems);
  return problems.details.length === 0 && value.length <= 2048;
}

function checkReservedClaims(format: CredentialFormat, mappings: unknown, problems: Problems): void {
  if (!isPlainObject(mappings)) return;
  for (const claim of Object.keys(mappings)) {
    if (RESERVED_CLAIMS[format].includes(claim)) problems.add(`claimMappings.${claim}`, `Reserved: Vellum writes ${claim} itself in a ${format} credential`, claim);
  }
}

/** A pinned issuer DID must be the tenant's, with a key of the kind the format signs with. */
function checkIssuerDid(format: Exclude<CredentialFormat, 'mso_mdoc'>, issuer: unknown, context: CheckContext, problems: Problems): void {
  const id = isPlainObject(issuer) ? issuer.id : undefined;
  if (!isSigningDid(id)) return;
  const algorithm = SIGNING_KEY[format];
  if (!context.issuerDid) problems.add('issuer.id', 'The tenant holds no such DID', id);
  else if (!context.issuerDid.keys.some((k) => k.algorithm === algorithm)) problems.add('issuer.id', `This DID has no ${algorithm} key, which ${format} credentials are signed with`, id);
}

/** Copies the fields that are present, leaving absent ones out rather than undefined. */
function present<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Checks a create or replace request for a configuration of `format` (API.md §6), reporting every
 * problem at once as one 400, and returns the configuration it describes, defaults filled in.
 */
export function checkConfigurationInput(format: CredentialFormat, input: unknown, assigned: AssignedFields, context: CheckContext = {}): CredentialConfiguration {
  const problems = new Problems();
  if (!isPlainObject(input)) {
    problems.add('body', 'A credential configuration object', input);
    problems.throwIfAny();
  }
  const body = input as Record<string, unknown>;
  checkKnownFields('', body, [...COMMON_FIELDS, ...FORMAT_FIELDS[format]], problems);
  checkType(format, body.type, problems);
  checkText('name', body.name, MAX_LABEL, problems);
  checkText('description', body.description, MAX_DESCRIPTION, problems);
  checkClaimMappings(format, body.claimMappings, problems);
  checkReservedClaims(format, body.claimMappings, problems);
  checkExpiresIn(body.expiresIn as Duration | undefined, format === 'mso_mdoc' && typeof body.type === 'string' ? body.type : undefined, problems);
  // Claim sources arrive with a later issue; until then an id is only checked for its shape.
  if (body.claimSourceId !== undefined && !isUuid(body.claimSourceId)) problems.add('claimSourceId', 'A claim source id (UUID)', body.claimSourceId);
  checkDisplay(body.display, problems);
  checkClaimDisplay(format, body.claimDisplay, body.claimMappings, problems);

  if (format === 'mso_mdoc') {
    checkBoolean('includeStatus', body.includeStatus, problems);
  } else {
    checkIssuerProfile(body.issuer, format === 'ldp_vc', problems);
    checkIssuerDid(format, body.issuer, context, problems);
    if (format !== 'dc+sd-jwt') checkBoolean('revocable', body.revocable, problems);
  }
  if (format === 'ldp_vc') {
    checkList('contexts', body.contexts, isHttpsUrl, 'JSON-LD context URL (https)', problems);
    checkList('additionalTypes', body.additionalTypes, (t) => LD_TYPE.test(t) && t !== 'VerifiableCredential' && t !== body.type, 'credential type other than VerifiableCredential and type', problems);
    if (body.proofType !== undefined && !(LDP_PROOF_TYPES as readonly unknown[]).includes(body.proofType)) {
      problems.add('proofType', `One of ${LDP_PROOF_TYPES.join(', ')}`, body.proofType);
    }
    const branding = body.credentialBranding;
    if (branding !== undefined) {
      if (!isPlainObject(branding)) problems.add('credentialBranding', 'A { backgroundColor, watermarkImageUrl } object', branding);
      else {
        checkKnownFields('credentialBranding', branding, ['backgroundColor', 'watermarkImageUrl'], problems);
        checkColor('credentialBranding.backgroundColor', branding.backgroundColor, problems);
        checkHttpsUrl('credentialBranding.watermarkImageUrl', branding.watermarkImageUrl, problems);
      }
    }
  }
  problems.throwIfAny();

  const common = present({
    ...assigned,
    type: body.type as string,
    name: body.name as string | undefined,
    description: body.description as string | undefined,
    expiresIn: (body.expiresIn as Duration | undefined) ?? { ...DEFAULT_EXPIRES_IN },
    claimSourceId: body.claimSourceId as string | undefined,
    display: body.display as CredentialDisplay[] | undefined,
    claimDisplay: body.claimDisplay as ClaimDisplay | undefined,
  });
  const issuer = body.issuer as IssuerProfile | undefined;
  switch (format) {
    case 'mso_mdoc':
      return { ...common, format, claimMappings: body.claimMappings as MdocClaimMappings, includeStatus: body.includeStatus === true };
    case 'ldp_vc':
      return present({
        ...common,
        format,
        claimMappings: body.claimMappings as FlatClaimMappings,
        issuer: issuer as IssuerProfile & { name: string },
        contexts: body.contexts as string[] | undefined,
        additionalTypes: body.additionalTypes as string[] | undefined,
        proofType: (body.proofType as (typeof LDP_PROOF_TYPES)[number] | undefined) ?? LDP_PROOF_TYPES[0],
        credentialBranding: body.credentialBranding as { backgroundColor?: string; watermarkImageUrl?: string } | undefined,
        revocable: body.revocable === true,
      });
    case 'cwt':
    case 'cwt_vc':
      return present({ ...common, format, claimMappings: body.claimMappings as FlatClaimMappings, issuer, revocable: body.revocable === true });
    case 'dc+sd-jwt':
      return present({ ...common, format, claimMappings: body.claimMappings as FlatClaimMappings, issuer });
  }
}
