// Checking a request body field by field, collecting every problem so that one answer lists them
// all (the error body's details). The one home of the core's body checks that several features
// share (issue 17, "one validation path"): the object test, the collector and the common field
// checks. A feature's own rules stay in its folder.

import { isSecretName } from '../events/sanitize.ts';
import { type ErrorDetail, validationError } from './errors.ts';
import { normaliseOutboundUrl } from './outbound-url.ts';

/** A JSON object: not null, not an array. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Collects the problems of one body, so one answer lists them all. */
export class Problems {
  readonly details: ErrorDetail[] = [];
  add(param: string, msg: string, value?: unknown): void {
    this.details.push({ ...(value === undefined ? {} : { value }), msg, param, location: 'body' });
  }
  unknownFields(input: Record<string, unknown>, known: readonly string[], prefix = ''): void {
    // The value is repeated unless its name says it is a secret.
    for (const key of Object.keys(input)) if (!known.includes(key)) this.add(`${prefix}${key}`, 'Unknown field', isSecretName(key) ? undefined : input[key]);
  }
  throwIfAny(): void {
    if (this.details.length > 0) throw validationError(this.details);
  }
}

/** `secret`: a problem with it does not repeat the value. */
export function text(p: Problems, param: string, value: unknown, max: number, what: string, secret = false): string | undefined {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > max) {
    p.add(param, `${what} (1 to ${max} characters)`, secret ? undefined : value);
    return undefined;
  }
  return value;
}

export function outboundUrl(p: Problems, param: string, value: unknown, what: string): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) {
    p.add(param, `Required: ${what}`, value);
    return undefined;
  }
  const checked = normaliseOutboundUrl(value);
  if ('problem' in checked) {
    p.add(param, checked.problem, value);
    return undefined;
  }
  return checked.url;
}
