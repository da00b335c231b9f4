import { type ErrorDetail, validationError } from '../shared/errors.ts';
import { DURATION_UNITS, durationSeconds } from './duration.ts';
import {
  type ClaimMapping,
  type CredentialFormat,
  type Duration,
  MDOC_VALUE_TYPES,
  type MdocValueType,
} from './model.ts';

/** API.md §6: the longest a credential may be valid for, and for mDL docTypes. */
export const MAX_VALIDITY_DAYS = 3620;
export const MAX_MDL_VALIDITY_DAYS = 427;
const MDL_DOCTYPE = /^org\.iso\.18013\.5\.[^.]+\.mDL$/;

/** A credential type travels in scopes (`<format>:<type>`) and URLs: keep it to safe characters. */
const TYPE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,99}$/;
const MAP_FROM = /^(claims(\.[^.\s]+)+|authenticationProvider\.(url|subjectId))$/;

/** Collects validation problems so one response lists them all. */
export class Problems {
  readonly details: ErrorDetail[] = [];
  add(param: string, msg: string, value?: unknown): void {
    this.details.push({ ...(value === undefined ? {} : { value }), msg, param, location: 'body' });
  }
  throwIfAny(): void {
    if (this.details.length > 0) throw validationError(this.details);
  }
}

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
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
    case 'dateTime':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
  }
}

export function checkType(format: CredentialFormat, type: unknown, problems: Problems): void {
  if (typeof type !== 'string' || !TYPE.test(type)) {
    problems.add('type', format === 'mso_mdoc' ? 'A docType such as org.iso.18013.5.1.mDL' : 'Letters, digits and . _ : -, up to 200 characters', type);
  }
}

export function checkExpiresIn(expiresIn: Duration | undefined, docType: string | undefined, problems: Problems): void {
  if (expiresIn === undefined || typeof expiresIn !== 'object') {
    problems.add('expiresIn', 'Required: a duration such as { "days": 365 }', expiresIn);
    return;
  }
  for (const [unit, v] of Object.entries(expiresIn)) {
    if (!(DURATION_UNITS as string[]).includes(unit)) problems.add(`expiresIn.${unit}`, `Unknown unit; use ${DURATION_UNITS.join(', ')}`, v);
    else if (!Number.isInteger(v) || (v as number) < 0) problems.add(`expiresIn.${unit}`, 'A whole number, 0 or more', v);
  }
  const days = durationSeconds(expiresIn) / 86_400;
  const limit = docType !== undefined && isMdlDocType(docType) ? MAX_MDL_VALIDITY_DAYS : MAX_VALIDITY_DAYS;
  if (!(days > 0)) problems.add('expiresIn', 'Must be longer than zero', expiresIn);
  else if (days > limit) problems.add('expiresIn', `At most ${limit} days${limit === MAX_MDL_VALIDITY_DAYS ? ' for mDL docTypes' : ''}`, expiresIn);
}

function checkMapping(param: string, m: ClaimMapping, mdoc: boolean, problems: Problems): void {
  if (m === null || typeof m !== 'object') {
    problems.add(param, 'A mapping object', m);
    return;
  }
  if (m.mapFrom === undefined && m.defaultValue === undefined) problems.add(param, 'Needs mapFrom or defaultValue');
  if (m.mapFrom !== undefined && (typeof m.mapFrom !== 'string' || !MAP_FROM.test(m.mapFrom))) {
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

/** Checks claim mappings: namespace → element → mapping for mDocs, claim → mapping otherwise. */
export function checkClaimMappings(format: CredentialFormat, mappings: unknown, problems: Problems): void {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(mappings) || Object.keys(mappings).length === 0) {
    problems.add('claimMappings', 'At least one claim mapping is required: a credential without claims is refused', mappings);
    return;
  }
  const mdoc = format === 'mso_mdoc';
  for (const [key, value] of Object.entries(mappings)) {
    if (!NAME.test(key)) problems.add(`claimMappings.${key}`, 'Names use letters, digits and _ . : -', key);
    if (!mdoc) {
      checkMapping(`claimMappings.${key}`, value as ClaimMapping, false, problems);
      continue;
    }
    if (!isObject(value) || Object.keys(value).length === 0) {
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
export function checkClaimDisplay(format: CredentialFormat, claimDisplay: unknown, mappings: unknown, problems: Problems): void {
  if (claimDisplay === undefined) return;
  const known = (path: string[]) => path.reduce<unknown>((node, p) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[p] : undefined), mappings) !== undefined;
  const checkLabels = (param: string, labels: unknown) => {
    if (!Array.isArray(labels) || labels.some((l) => !l || typeof l !== 'object' || typeof (l as { name?: unknown }).name !== 'string')) {
      problems.add(param, 'A list of { name, locale } labels', labels);
    }
  };
  for (const [key, value] of Object.entries(claimDisplay as Record<string, unknown>)) {
    if (format === 'mso_mdoc') {
      for (const [element, labels] of Object.entries((value ?? {}) as Record<string, unknown>)) {
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
