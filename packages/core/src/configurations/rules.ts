import { isPlainObject, Problems } from '../shared/body-problems.ts';
import { checkRootCertificates } from '../shared/root-certificates.ts';
import { DURATION_UNITS, durationSeconds } from './duration.ts';
import {
  type ClaimMapping,
  type Duration,
  type KeyAttestationLevels,
  type KeyAttestationRequirement,
  MDOC_VALUE_TYPES,
  type WalletRequirements,
  type MdocValueType,
} from './model.ts';

/** docs/decisions.md "Credential configurations": the longest a credential may be valid for, and for mDL docTypes. */
export const MAX_VALIDITY_DAYS = 3620;
export const MAX_MDL_VALIDITY_DAYS = 427;
/**
 * What `expiresIn` is when a configuration leaves it out, for every format: one year, inside both
 * limits above (an mDL's 427 days included), and the validity most licences and cards are issued for.
 */
export const DEFAULT_EXPIRES_IN: Duration = Object.freeze({ days: 365 });

/** How long after the first token a refresh token family may refresh when `refresh.maxAge` is left out (docs/refresh-tokens.md). */
export const DEFAULT_REFRESH_MAX_AGE: Duration = Object.freeze({ days: 30 });
/** The longest `refresh.maxAge`: a refresh family lives at most this long. */
export const MAX_REFRESH_MAX_AGE_DAYS = 365;

/** Checks `refresh.maxAge`: longer than zero and at most MAX_REFRESH_MAX_AGE_DAYS (the schema checked units and numbers). */
export function checkRefreshMaxAge(maxAge: Duration | undefined, problems: Problems): void {
  if (maxAge === undefined || maxAge === null || typeof maxAge !== 'object') return;
  const days = durationSeconds(maxAge) / 86_400;
  if (!(days > 0)) problems.add('refresh.maxAge', 'Must be longer than zero', maxAge);
  else if (days > MAX_REFRESH_MAX_AGE_DAYS) problems.add('refresh.maxAge', `At most ${MAX_REFRESH_MAX_AGE_DAYS} days`, maxAge);
}
const MDL_DOCTYPE = /^org\.iso\.18013\.5\.[^.]+\.mDL$/;

/** A credential type travels in scopes (`<format>:<type>`) and URLs: keep it to safe characters. */
const TYPE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
/** SD-JWT VC `vct` values are commonly URLs (IETF SD-JWT VC §3.2.2.1); still safe in a scope. */
const VCT = /^[A-Za-z0-9][A-Za-z0-9._:/~%-]{0,199}$/;
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,99}$/;
/** What `mapFrom` may name: a dotted path into the user's claims, or who the user is at the authentication provider. */
export const MAP_FROM = /^(claims(\.[^.\s]+)+|authenticationProvider\.(url|subjectId))$/;

export function isMdlDocType(docType: string): boolean {
  return MDL_DOCTYPE.test(docType);
}

/** Whether a value fits an mDoc element type (defaults and mapped values alike). */
export function fitsMdocType(type: MdocValueType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return (
        typeof value === 'string' &&
        /^\d{4}-\d{2}-\d{2}$/.test(value) &&
        !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
        new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)
      );
    case 'dateTime':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
  }
}

/** A credential type travels in scopes (`<format>:<type>`) and URLs: keep it to safe characters. */
export const CREDENTIAL_TYPE = TYPE;
/** SD-JWT VC `vct` values are commonly URLs (IETF SD-JWT VC §3.2.2.1); still safe in a scope. */
export const VCT_TYPE = VCT;

/** Checks a configuration's `type` against its format's pattern, with the format's hint when it does not fit. */
export function checkType(type: unknown, pattern: RegExp, hint: string, problems: Problems): void {
  if (typeof type !== 'string' || !pattern.test(type)) problems.add('type', hint, type);
}

/**
 * Checks `expiresIn`: known units, whole numbers, longer than zero and at most `maxDays` (the
 * format's limit for this type: see CredentialFormatHandler.maxValidityDays).
 */
export function checkExpiresIn(expiresIn: Duration | undefined, maxDays: number, problems: Problems): void {
  if (expiresIn === undefined) return; // the default, DEFAULT_EXPIRES_IN, fits every limit
  if (expiresIn === null || typeof expiresIn !== 'object' || Array.isArray(expiresIn)) {
    problems.add('expiresIn', 'A duration such as { "days": 365 }', expiresIn);
    return;
  }
  for (const [unit, v] of Object.entries(expiresIn)) {
    if (!(DURATION_UNITS as string[]).includes(unit)) problems.add(`expiresIn.${unit}`, `Unknown unit; use ${DURATION_UNITS.join(', ')}`, v);
    else if (!Number.isInteger(v) || (v as number) < 0) problems.add(`expiresIn.${unit}`, 'A whole number, 0 or more', v);
  }
  const days = durationSeconds(expiresIn) / 86_400;
  if (!(days > 0)) problems.add('expiresIn', 'Must be longer than zero', expiresIn);
  else if (days > maxDays) problems.add('expiresIn', `At most ${maxDays} days${maxDays === MAX_MDL_VALIDITY_DAYS ? ' for mDL docTypes' : ''}`, expiresIn);
}

const MAPPING_FIELDS = ['mapFrom', 'required', 'defaultValue', 'type'];

function checkMapping(param: string, m: ClaimMapping, mdoc: boolean, problems: Problems): void {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    problems.add(param, 'A mapping object', m);
    return;
  }
  for (const key of Object.keys(m)) if (!MAPPING_FIELDS.includes(key)) problems.add(`${param}.${key}`, 'Unknown field', (m as Record<string, unknown>)[key]);
  if (m.required !== undefined && typeof m.required !== 'boolean') problems.add(`${param}.required`, 'true or false', m.required);
  if (m.mapFrom === undefined && m.defaultValue === undefined) problems.add(param, 'Needs mapFrom or defaultValue');
  if (m.mapFrom !== undefined && (typeof m.mapFrom !== 'string' || m.mapFrom.length > 1000 || !MAP_FROM.test(m.mapFrom))) {
    problems.add(`${param}.mapFrom`, 'A path such as claims.givenName or authenticationProvider.subjectId', m.mapFrom);
  }
  if (m.type !== undefined) {
    if (!mdoc) problems.add(`${param}.type`, 'Only mDoc mappings carry a type', m.type);
    else if (!(MDOC_VALUE_TYPES as readonly string[]).includes(m.type)) problems.add(`${param}.type`, `One of ${MDOC_VALUE_TYPES.join(', ')}`, m.type);
  }
  if (mdoc && m.defaultValue !== undefined) {
    const type = m.type ?? 'string';
    if ((MDOC_VALUE_TYPES as readonly string[]).includes(type) && !fitsMdocType(type, m.defaultValue)) {
      problems.add(`${param}.defaultValue`, `Does not match the type ${type}`, m.defaultValue);
    }
  }
}

/** How a format's claim mappings nest: namespace → element → mapping (mDocs), or claim → mapping. */
export type ClaimLayout = 'namespaced' | 'flat';

/** Checks claim mappings: namespace → element → mapping for the namespaced layout, claim → mapping otherwise. */
export function checkClaimMappings(layout: ClaimLayout, mappings: unknown, problems: Problems): void {
  if (!isPlainObject(mappings) || Object.keys(mappings).length === 0) {
    problems.add('claimMappings', 'At least one claim mapping is required: a credential without claims is refused', mappings);
    return;
  }
  const mdoc = layout === 'namespaced';
  for (const [key, value] of Object.entries(mappings)) {
    if (!NAME.test(key)) problems.add(`claimMappings.${key}`, 'Names use letters, digits and _ . : -', key);
    if (!mdoc) {
      checkMapping(`claimMappings.${key}`, value as ClaimMapping, false, problems);
      continue;
    }
    if (!isPlainObject(value) || Object.keys(value).length === 0) {
      problems.add(`claimMappings.${key}`, 'A namespace maps element identifiers to mappings', value);
      continue;
    }
    for (const [element, mapping] of Object.entries(value)) {
      if (!NAME.test(element)) problems.add(`claimMappings.${key}.${element}`, 'Names use letters, digits and _ . : -', element);
      checkMapping(`claimMappings.${key}.${element}`, mapping as ClaimMapping, true, problems);
    }
  }
}

/** Checks that every labelled claim exists in the mappings. */
export function checkClaimDisplay(layout: ClaimLayout, claimDisplay: unknown, mappings: unknown, problems: Problems): void {
  if (claimDisplay === undefined) return;
  if (!isPlainObject(claimDisplay)) {
    problems.add('claimDisplay', 'Labels per claim, nested like claimMappings', claimDisplay);
    return;
  }
  const known = (path: string[]) =>
    path.reduce<unknown>((node, p) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[p] : undefined), mappings) !== undefined;
  const checkLabels = (param: string, labels: unknown) => {
    if (!Array.isArray(labels) || labels.some((l) => !l || typeof l !== 'object' || typeof (l as { name?: unknown }).name !== 'string')) {
      problems.add(param, 'A list of { name, locale } labels', labels);
      return;
    }
    labels.forEach((l: Record<string, unknown>, i) => {
      for (const key of Object.keys(l)) if (key !== 'name' && key !== 'locale') problems.add(`${param}.${i}.${key}`, 'Unknown field', l[key]);
      checkText(`${param}.${i}.name`, l.name, MAX_LABEL, problems, true);
    });
    checkLocales(param, labels, problems);
  };
  for (const [key, value] of Object.entries(claimDisplay)) {
    if (layout === 'namespaced') {
      if (!isPlainObject(value)) {
        problems.add(`claimDisplay.${key}`, 'A namespace maps element identifiers to labels', value);
        continue;
      }
      for (const [element, labels] of Object.entries(value)) {
        if (!known([key, element])) problems.add(`claimDisplay.${key}.${element}`, 'No claim mapping has this name', element);
        checkLabels(`claimDisplay.${key}.${element}`, labels);
      }
    } else {
      if (!known([key])) problems.add(`claimDisplay.${key}`, 'No claim mapping has this name', key);
      checkLabels(`claimDisplay.${key}`, value);
    }
  }
}

/** Checks an https URL field; absent is fine. */
export function checkHttpsUrl(param: string, value: unknown, problems: Problems): void {
  if (value === undefined) return;
  let ok = false;
  try {
    ok = typeof value === 'string' && new URL(value).protocol === 'https:';
  } catch {
    ok = false;
  }
  if (!ok) problems.add(param, 'An https URL', value);
}

/** Longest display name or label, and longest description. */
export const MAX_LABEL = 200;
export const MAX_DESCRIPTION = 2000;

/** Checks an optional (or, with `required`, mandatory) string of 1 to `max` characters. */
export function checkText(param: string, value: unknown, max: number, problems: Problems, required = false): void {
  if (value === undefined) {
    if (required) problems.add(param, 'Required');
    return;
  }
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > max) problems.add(param, `Text of 1 to ${max} characters`, value);
}

// A BCP 47 language tag (RFC 5646), in its common shape: language, then subtags.
export const LOCALE = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

/** Each entry's `locale` is a language tag, and no two entries share one (nor two have none). */
export function checkLocales(param: string, entries: readonly unknown[], problems: Problems): void {
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    const locale = isPlainObject(entry) ? entry.locale : undefined;
    if (locale !== undefined && (typeof locale !== 'string' || locale.length > 64 || !LOCALE.test(locale))) {
      problems.add(`${param}.${i}.locale`, 'A language tag such as en or fr-CA', locale);
      return;
    }
    const key = typeof locale === 'string' ? locale.toLowerCase() : '';
    if (seen.has(key))
      problems.add(`${param}.${i}.locale`, locale === undefined ? 'Only one entry may go without a locale' : 'Another entry has this locale', locale);
    seen.add(key);
  });
}

// CSS colours as OpenID4VCI display objects carry them: hex, or rgb()/hsl() notation.
export const COLOR = /^(#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|(rgb|rgba|hsl|hsla)\([0-9.,%\s/a-z-]{1,60}\))$/;

/** Checks an optional CSS colour. */
export function checkColor(param: string, value: unknown, problems: Problems): void {
  if (value !== undefined && (typeof value !== 'string' || !COLOR.test(value))) problems.add(param, 'A CSS colour such as #12107c or rgb(18 16 124)', value);
}

/** Reports every field of `value` that is not one of `allowed`. */
export function checkKnownFields(param: string, value: Record<string, unknown>, allowed: readonly string[], problems: Problems): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) problems.add(param ? `${param}.${key}` : key, 'Unknown field', value[key]);
}

/** OpenID4VCI 1.0 §12.2 `credential_metadata.display`, past its shape (schema.ts): https logos and background images, and one entry per locale. */
export function checkDisplay(display: unknown, problems: Problems): void {
  if (!Array.isArray(display)) return;
  display.forEach((entry: unknown, i) => {
    if (!isPlainObject(entry)) return;
    if (isPlainObject(entry.logo)) checkHttpsUrl(`display.${i}.logo.uri`, entry.logo.uri, problems);
    if (isPlainObject(entry.background_image)) checkHttpsUrl(`display.${i}.background_image.uri`, entry.background_image.uri, problems);
  });
  checkLocales('display', display, problems);
}

// did:key and did:web as W3C DID core 3.1 writes them (method-specific id of idchars, ':' and %XX).
export const SIGNING_DID = /^did:(key|web):(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}|:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})$/;

/** Whether a value names a DID Vellum can sign with (did:key or did:web). */
export function isSigningDid(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 2048 && SIGNING_DID.test(value);
}

/**
 * Checks an issuer profile `{ id?, name?, logoUrl?, iconUrl? }` (docs/decisions.md "Credential configurations"); `name` is required
 * for ldp_vc. Whether the tenant holds the DID in `id` is the service's to check.
 */
export function checkIssuerProfile(issuer: unknown, nameRequired: boolean, problems: Problems): void {
  if (issuer === undefined) {
    if (nameRequired) problems.add('issuer', 'Required: { name, id?, logoUrl?, iconUrl? }');
    return;
  }
  if (!isPlainObject(issuer)) {
    problems.add('issuer', 'A { name, id, logoUrl, iconUrl } object', issuer);
    return;
  }
  checkKnownFields('issuer', issuer, ['id', 'name', 'logoUrl', 'iconUrl'], problems);
  if (issuer.id !== undefined && !isSigningDid(issuer.id)) problems.add('issuer.id', 'A DID of this tenant: did:key:… or did:web:…', issuer.id);
  checkText('issuer.name', issuer.name, MAX_LABEL, problems, nameRequired);
  checkHttpsUrl('issuer.logoUrl', issuer.logoUrl, problems);
  checkHttpsUrl('issuer.iconUrl', issuer.iconUrl, problems);
}

export function checkBoolean(param: string, value: unknown, problems: Problems): void {
  if (value !== undefined && typeof value !== 'boolean') problems.add(param, 'true or false', value);
}

/** Longest list a configuration field may hold (contexts, additional types, disclosable claims). */
export const MAX_LIST = 20;

/** A list of up to MAX_LIST distinct strings, each checked by `ok`. */
export function checkList(param: string, value: unknown, ok: (item: string) => boolean, what: string, problems: Problems): void {
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

/** Whether a string is an https URL of at most 2048 characters. */
export function isHttpsUrl(value: string): boolean {
  const problems = new Problems();
  checkHttpsUrl('', value, problems);
  return problems.details.length === 0 && value.length <= 2048;
}

/** Copies the fields that are present, leaving absent ones out rather than undefined. */
export function present<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Levels are ISO/IEC 18045 names (iso_18045_high, …; OpenID4VCI 1.0 App. D.2) or an ecosystem's own: each listed once. */
function checkLevels(param: string, value: unknown, problems: Problems): void {
  if (Array.isArray(value) && new Set(value).size !== value.length) problems.add(param, 'A level is listed twice', value);
}

/**
 * `keyAttestationsRequired: { keyStorage?, userAuthentication?, rootCertificates? }` (OpenID4VCI 1.0
 * App. D), past its shape (schema.ts): the levels a key attestation must attest (one of each list)
 * and the PEM roots it must chain to; without roots, the tenant's wallet providers vouch for it.
 */
export function checkKeyAttestationsRequired(value: unknown, problems: Problems): KeyAttestationRequirement | undefined {
  if (!isPlainObject(value)) return undefined;
  const param = 'keyAttestationsRequired';
  checkLevels(`${param}.keyStorage`, value.keyStorage, problems);
  checkLevels(`${param}.userAuthentication`, value.userAuthentication, problems);
  let roots: string[] | undefined;
  if (value.rootCertificates !== undefined) {
    roots = checkRootCertificates(value.rootCertificates, `${param}.rootCertificates`, (p, msg, v) => problems.add(p, msg, v));
    if (!roots) return undefined;
  }
  return present({
    keyStorage: value.keyStorage as string[] | undefined,
    userAuthentication: value.userAuthentication as string[] | undefined,
    rootCertificates: roots,
  });
}

/** An offer's `keyAttestationsRequired: { keyStorage?, userAuthentication? }`, past its shape: each level listed once. */
export function checkKeyAttestationLevels(value: unknown, problems: Problems): KeyAttestationLevels | undefined {
  if (!isPlainObject(value)) return undefined;
  checkLevels('keyAttestationsRequired.keyStorage', value.keyStorage, problems);
  checkLevels('keyAttestationsRequired.userAuthentication', value.userAuthentication, problems);
  return present({ keyStorage: value.keyStorage as string[] | undefined, userAuthentication: value.userAuthentication as string[] | undefined });
}

/** `walletRequirements`, past its shape: only the members set to true are kept; none kept, none at all. */
export function walletRequirementsOf(value: unknown): WalletRequirements | undefined {
  if (!isPlainObject(value)) return undefined;
  const kept: WalletRequirements = {
    ...(value.walletAttestation === true ? { walletAttestation: true as const } : {}),
    ...(value.dpop === true ? { dpop: true as const } : {}),
  };
  return Object.keys(kept).length > 0 ? kept : undefined;
}
