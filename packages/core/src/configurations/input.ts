import type { CredentialFormatHandler } from '../credential-formats/port.ts';
import type { DidRecord } from '../dids/model.ts';
import { isPlainObject, Problems } from '../shared/body-problems.ts';
import type { ClaimDisplay, CredentialConfiguration, CredentialDisplay, Duration, KeyAttestationRequirement } from './model.ts';
import {
  checkClaimDisplay,
  checkClaimMappings,
  checkDisplay,
  checkExpiresIn,
  checkKeyAttestationsRequired,
  checkKnownFields,
  checkText,
  DEFAULT_EXPIRES_IN,
  isSigningDid,
  MAX_DESCRIPTION,
  MAX_LABEL,
  present,
} from './rules.ts';

const COMMON_FIELDS = ['type', 'name', 'description', 'claimMappings', 'expiresIn', 'claimSourceId', 'display', 'claimDisplay', 'keyAttestationsRequired'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

function checkReservedClaims(handler: CredentialFormatHandler, mappings: unknown, problems: Problems): void {
  if (!isPlainObject(mappings)) return;
  for (const claim of Object.keys(mappings)) {
    if (handler.reservedClaims.includes(claim))
      problems.add(`claimMappings.${claim}`, `Reserved: Vellum writes ${claim} itself in a ${handler.format} credential`, claim);
  }
}

/** A pinned issuer DID must be the tenant's, with a key of the kind the format signs with. */
function checkIssuerDid(handler: CredentialFormatHandler, issuer: unknown, context: CheckContext, problems: Problems): void {
  const id = isPlainObject(issuer) ? issuer.id : undefined;
  const algorithm = handler.signingKey;
  if (algorithm === undefined || !isSigningDid(id)) return;
  if (!context.issuerDid) problems.add('issuer.id', 'The tenant holds no such DID', id);
  else if (!context.issuerDid.keys.some((k) => k.algorithm === algorithm))
    problems.add('issuer.id', `This DID has no ${algorithm} key, which ${handler.format} credentials are signed with`, id);
}

/**
 * Checks a create or replace request for a configuration of the handler's format (docs/decisions.md "Credential configurations"),
 * reporting every problem at once as one 400, and returns the configuration it describes, defaults
 * filled in. The common fields are checked here, the format's own by its handler.
 */
export function checkConfigurationInput(
  handler: CredentialFormatHandler,
  input: unknown,
  assigned: AssignedFields,
  context: CheckContext = {},
): CredentialConfiguration {
  const problems = new Problems();
  if (!isPlainObject(input)) {
    problems.add('body', 'A credential configuration object', input);
    problems.throwIfAny();
  }
  const body = input as Record<string, unknown>;
  checkKnownFields('', body, [...COMMON_FIELDS, ...handler.fields], problems);
  handler.checkType(body.type, problems);
  checkText('name', body.name, MAX_LABEL, problems);
  checkText('description', body.description, MAX_DESCRIPTION, problems);
  checkClaimMappings(handler.claimLayout, body.claimMappings, problems);
  checkReservedClaims(handler, body.claimMappings, problems);
  checkExpiresIn(body.expiresIn as Duration | undefined, handler.maxValidityDays(body.type), problems);
  if (body.claimSourceId !== undefined && !isUuid(body.claimSourceId)) problems.add('claimSourceId', 'A claim source id (UUID)', body.claimSourceId);
  checkDisplay(body.display, problems);
  checkClaimDisplay(handler.claimLayout, body.claimDisplay, body.claimMappings, problems);
  const keyAttestationsRequired = checkKeyAttestationsRequired(body.keyAttestationsRequired, problems);
  handler.checkFields(body, problems);
  checkIssuerDid(handler, body.issuer, context, problems);
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
    keyAttestationsRequired: keyAttestationsRequired as KeyAttestationRequirement | undefined,
  });
  return handler.build(common, body);
}
