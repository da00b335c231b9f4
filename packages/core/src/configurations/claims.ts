import { DomainError, type ErrorDetail } from '../shared/errors.ts';
import type { ClaimMapping, FlatClaimMappings, MdocClaimMappings, MdocValueType } from './model.ts';
import { fitsMdocType } from './rules.ts';

/** What claims are mapped from (docs/decisions.md "Credential configurations"): the user's claims and, when federated, who they are upstream. */
export interface ClaimSubject {
  claims: Record<string, unknown>;
  authenticationProvider?: { url: string; subjectId: string };
}

/** An mDoc element value with the type its mapping gives it. */
export type TypedValue =
  | { type: 'string'; value: string }
  | { type: 'number'; value: number }
  | { type: 'boolean'; value: boolean }
  /** `YYYY-MM-DD`, encoded as a CBOR full-date (tag 1004). */
  | { type: 'date'; value: string }
  /** RFC 3339 at whole seconds, encoded as a CBOR tdate (tag 0). */
  | { type: 'dateTime'; value: string };

export type MdocClaims = Record<string, Record<string, TypedValue>>;

function lookup(subject: ClaimSubject, path: string): unknown {
  let node: unknown = subject;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** The value a mapping yields for a subject, or undefined when it yields none. */
function valueOf(mapping: ClaimMapping, subject: ClaimSubject): unknown {
  const mapped = mapping.mapFrom === undefined ? undefined : lookup(subject, mapping.mapFrom);
  return mapped === undefined || mapped === null ? mapping.defaultValue : mapped;
}

/** Brings a value to its mDoc type, accepting the obvious spellings (a timestamp for a date). */
function toTyped(type: MdocValueType, value: unknown): TypedValue | undefined {
  if (type === 'date' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))) {
    return { type, value: value.slice(0, 10) };
  }
  if (!fitsMdocType(type, value)) return undefined;
  if (type === 'dateTime') return { type, value: new Date(value as string).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  return { type, value } as TypedValue;
}

function refuse(details: ErrorDetail[]): never {
  throw new DomainError('BadRequest', 'The user’s claims do not satisfy the credential configuration', { details });
}

const noClaims = () => new DomainError('BadRequest', 'The credential would contain no claims, so it is not issued');

/**
 * Maps a subject's claims into mDoc elements by namespace, typed as the mappings say. A required
 * claim without a value, or a value of the wrong type, is refused; so is a result with no claims
 * (OpenID4VCI 1.0 §8, docs/decisions.md "Credential configurations").
 */
export function resolveMdocClaims(mappings: MdocClaimMappings, subject: ClaimSubject): MdocClaims {
  const out: MdocClaims = {};
  const problems: ErrorDetail[] = [];
  let count = 0;
  for (const [ns, elements] of Object.entries(mappings)) {
    for (const [element, mapping] of Object.entries(elements)) {
      const raw = valueOf(mapping, subject);
      const param = `${ns}.${element}`;
      if (raw === undefined) {
        if (mapping.required) problems.push({ msg: 'Required claim has no value', param, location: 'body' });
        continue;
      }
      const typed = toTyped(mapping.type ?? 'string', raw);
      if (!typed) {
        problems.push({ value: raw, msg: `Expected a ${mapping.type ?? 'string'}`, param, location: 'body' });
        continue;
      }
      (out[ns] ??= {})[element] = typed;
      count += 1;
    }
  }
  if (problems.length > 0) refuse(problems);
  if (count === 0) throw noClaims();
  return out;
}

/** Maps a subject's claims into a flat claim set (ldp_vc, cwt, cwt_vc, dc+sd-jwt), with the same refusals. */
export function resolveFlatClaims(mappings: FlatClaimMappings, subject: ClaimSubject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const problems: ErrorDetail[] = [];
  for (const [claim, mapping] of Object.entries(mappings)) {
    const value = valueOf(mapping, subject);
    if (value === undefined) {
      if (mapping.required) problems.push({ msg: 'Required claim has no value', param: claim, location: 'body' });
      continue;
    }
    out[claim] = value;
  }
  if (problems.length > 0) refuse(problems);
  if (Object.keys(out).length === 0) throw noClaims();
  return out;
}
