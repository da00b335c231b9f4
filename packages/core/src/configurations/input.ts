import type { CredentialFormatHandler } from '../credential-formats/port.ts';
import type { DidRecord } from '../dids/model.ts';
import { checkDeferred } from './deferred.ts';
import { isPlainObject, Problems } from '../shared/body-problems.ts';
import type { ClaimDisplay, CredentialConfiguration, CredentialDisplay, Duration, KeyAttestationRequirement, RefreshPolicy } from './model.ts';
import {
  checkClaimDisplay,
  checkClaimMappings,
  checkDisplay,
  checkExpiresIn,
  checkRefreshMaxAge,
  checkKeyAttestationsRequired,
  DEFAULT_EXPIRES_IN,
  isSigningDid,
  present,
  walletRequirementsOf,
} from './rules.ts';
import { CONFIGURATION_BODIES } from './schema.ts';

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

/**
 * `holderBinding: false` (docs/decisions.md "Issuer display and unbound credentials (issue 29)"):
 * not for a format that always binds (mso_mdoc), and not with key attestations, which are about the
 * very key an unbound credential goes without.
 */
function checkHolderBinding(handler: CredentialFormatHandler, body: Record<string, unknown>, problems: Problems): void {
  if (body.holderBinding !== false) return;
  if (handler.holderBindingRequired !== undefined) problems.add('holderBinding', handler.holderBindingRequired, false);
  else if (body.keyAttestationsRequired !== undefined)
    problems.add(
      'holderBinding',
      'Key attestations (keyAttestationsRequired) are about the key a credential is bound to: leave them out of an unbound configuration',
      false,
    );
}

/** `refresh` as kept: `{ allowed: true }` and its maxAge when given (the schema checked the shape). */
function refreshOf(refresh: unknown): RefreshPolicy | undefined {
  if (!isPlainObject(refresh) || refresh.allowed !== true) return undefined;
  return refresh.maxAge === undefined ? { allowed: true } : { allowed: true, maxAge: refresh.maxAge as Duration };
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
 * filled in. The body's shape is its format's schema (schema.ts); then the value rules: the common
 * ones here, the format's own by its handler.
 */
export function checkConfigurationInput(
  handler: CredentialFormatHandler,
  input: unknown,
  assigned: AssignedFields,
  context: CheckContext = {},
): CredentialConfiguration {
  const schema = CONFIGURATION_BODIES[handler.format];
  const problems = new Problems();
  problems.checkShape(schema, input);
  if (problems.has('body')) problems.throwIfAny(schema);
  const body = input as Record<string, unknown>;
  // The value rules (the handlers' among them) check every field they know; what they say about a
  // field whose shape already failed, or a part of one, adds nothing and is left out.
  const values = new Problems();
  handler.checkType(body.type, values);
  checkClaimMappings(handler.claimLayout, body.claimMappings, values);
  checkReservedClaims(handler, body.claimMappings, values);
  checkExpiresIn(body.expiresIn as Duration | undefined, handler.maxValidityDays(body.type), values);
  checkDisplay(body.display, values);
  checkRefreshMaxAge(isPlainObject(body.refresh) ? (body.refresh.maxAge as Duration | undefined) : undefined, values);
  checkClaimDisplay(handler.claimLayout, body.claimDisplay, body.claimMappings, values);
  const keyAttestationsRequired = checkKeyAttestationsRequired(body.keyAttestationsRequired, values);
  handler.checkFields(body, values);
  checkHolderBinding(handler, body, values);
  const deferred = checkDeferred(body.deferred, values);
  checkIssuerDid(handler, body.issuer, context, values);
  const failed = problems.details.map((d) => d.param);
  const shapeHeld = (param: string) => !failed.some((f) => param === f || param.startsWith(`${f}.`));
  for (const d of values.details) if (shapeHeld(d.param)) problems.add(d.param, d.msg, d.value);
  problems.throwIfAny(schema);

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
    walletRequirements: walletRequirementsOf(body.walletRequirements),
    // Only `false` is kept: absent is the default, bound.
    holderBinding: body.holderBinding === false ? (false as const) : undefined,
    deferred,
    refresh: refreshOf(body.refresh),
  });
  return handler.build(common, body);
}
