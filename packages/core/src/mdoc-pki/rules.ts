import type { TSchema } from '@sinclair/typebox';
import { Problems } from '../shared/body-problems.ts';
import type { KeyCustody } from '../keys/model.ts';
import { DEFAULT_IACA_VALIDITY_YEARS } from './model.ts';
import { CreateDocumentSignerBody, CreateIacaBody, UpdateDocumentSignerBody, UpdateIacaBody } from './schema.ts';

/** docs/decisions.md "mDoc PKI": the body of `POST /v2/credentials/mobile/iacas`. */
export interface CreateIacaInput {
  commonName?: string | undefined;
  country?: string | undefined;
  stateOrProvinceName?: string | undefined;
  notBefore?: string | undefined;
  notAfter?: string | undefined;
  certificatePem?: string | undefined;
  keyCustody?: string | undefined;
}

/** A create request that passed the rules: an IACA Vellum makes, or a certificate to import. */
export type CheckedIacaInput =
  | { kind: 'managed'; commonName: string; country: string; stateOrProvinceName?: string; notBefore: Date; notAfter: Date; keyCustody?: KeyCustody }
  | { kind: 'imported'; certificatePem: string };

/** ISO/IEC 18013-5 Annex B: an IACA certificate is valid for at most 20 years. */
export const IACA_MAX_VALIDITY_YEARS = 20;
const COMMON_NAME_MAX = 64; // the schema's bound (schema.ts)
const IACA_SUFFIX = ' IACA';

function addYears(at: Date, years: number): Date {
  const out = new Date(at);
  out.setUTCFullYear(out.getUTCFullYear() + years);
  return out;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO 8601 date or date-time with an offset, as a Date; undefined when it is not one. */
export function parseInstant(value: unknown): Date | undefined {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return undefined;
  const at = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** The default common name of a managed IACA: the tenant's name and " IACA" (or `suffix`), within the 64 characters X.520 allows. */
export function defaultIacaCommonName(tenantName: string, suffix = IACA_SUFFIX): string {
  const name =
    tenantName
      .trim()
      .slice(0, COMMON_NAME_MAX - suffix.length)
      .trim() || 'Vellum';
  return `${name}${suffix}`;
}

/**
 * Validates an IACA create request, reporting every problem at once. Managed IACAs need `country`
 * (the issuing country is a legal fact Vellum cannot guess); the other fields have defaults:
 * commonName "<tenant name> IACA", notBefore now, notAfter five years after notBefore.
 */
export function checkCreateIacaInput(input: CreateIacaInput, context: { now: Date; tenantName: string; commonNameSuffix?: string }): CheckedIacaInput {
  const p = new Problems();
  p.checkShape(CreateIacaBody, input);

  if (input.certificatePem !== undefined) {
    for (const field of ['commonName', 'country', 'stateOrProvinceName', 'notBefore', 'notAfter'] as const) {
      if (input[field] !== undefined && !p.has(field)) p.add(field, 'Taken from the imported certificate: leave it out with certificatePem', input[field]);
    }
    if (input.keyCustody !== undefined && !p.has('keyCustody'))
      p.add('keyCustody', 'Vellum holds no key of an imported CA: leave it out with certificatePem', input.keyCustody);
    p.throwIfAny(CreateIacaBody);
    return { kind: 'imported', certificatePem: input.certificatePem };
  }

  if (input.country === undefined) p.add('country', 'Required for an IACA Vellum creates: the ISO 3166-1 alpha-2 code of the issuing country, e.g. "US"');
  const notBefore = input.notBefore === undefined ? context.now : parseInstant(input.notBefore);
  if (!notBefore && !p.has('notBefore')) p.add('notBefore', 'An ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z', input.notBefore);
  const notAfter = input.notAfter === undefined ? notBefore && addYears(notBefore, DEFAULT_IACA_VALIDITY_YEARS) : parseInstant(input.notAfter);
  if (!notAfter && !p.has('notAfter')) p.add('notAfter', 'An ISO 8601 date-time, e.g. 2031-01-01T00:00:00Z', input.notAfter);
  if (notBefore && notAfter) {
    if (notAfter <= notBefore) p.add('notAfter', 'Must be after notBefore', input.notAfter);
    else if (notAfter > addYears(notBefore, IACA_MAX_VALIDITY_YEARS))
      p.add('notAfter', `At most ${IACA_MAX_VALIDITY_YEARS} years after notBefore (ISO/IEC 18013-5 Annex B)`, input.notAfter);
    else if (notAfter <= context.now) p.add('notAfter', 'Must be in the future', input.notAfter);
  }
  p.throwIfAny(CreateIacaBody);
  const state = input.stateOrProvinceName;
  return {
    kind: 'managed',
    commonName: input.commonName ?? defaultIacaCommonName(context.tenantName, context.commonNameSuffix),
    country: input.country as string,
    ...(state !== undefined ? { stateOrProvinceName: state } : {}),
    notBefore: notBefore as Date,
    notAfter: notAfter as Date,
    ...(input.keyCustody !== undefined ? { keyCustody: input.keyCustody as KeyCustody } : {}),
  };
}

/** docs/decisions.md "mDoc PKI": the body of `PUT /v2/credentials/mobile/iacas/{id}`. */
export interface UpdateIacaInput {
  active?: boolean | undefined;
}

export function checkUpdateIacaInput(input: UpdateIacaInput): { active: boolean } {
  checked(UpdateIacaBody, input);
  return { active: input.active as boolean };
}

/** docs/decisions.md "mDoc PKI": the body of `POST /v2/credentials/mobile/document-signers`. */
export interface CreateDocumentSignerInput {
  iacaId?: string | undefined;
}

export function checkCreateDocumentSignerInput(input: CreateDocumentSignerInput): { iacaId: string } {
  checked(CreateDocumentSignerBody, input);
  return { iacaId: input.iacaId as string };
}

/** docs/decisions.md "mDoc PKI": the body of `PUT /v2/credentials/mobile/document-signers/{id}`. */
export interface UpdateDocumentSignerInput {
  active?: boolean | undefined;
  certificatePem?: string | undefined;
}

export function checkUpdateDocumentSignerInput(input: UpdateDocumentSignerInput): { active: boolean; certificatePem?: string } {
  checked(UpdateDocumentSignerBody, input);
  return { active: input.active as boolean, ...(input.certificatePem !== undefined ? { certificatePem: input.certificatePem } : {}) };
}

/** A body whose every rule is its shape. */
function checked(schema: TSchema, input: unknown): void {
  const p = new Problems();
  p.checkShape(schema, input);
  p.throwIfAny(schema);
}
