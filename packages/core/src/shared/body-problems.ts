// Checking a request body, collecting every problem so that one answer lists them all (the error
// body's details). The one validation path (docs/decisions.md "One validation path"): a feature
// writes its body's shape once, as a TypeBox schema beside its rules; Fastify validates and
// documents HTTP requests with that same schema, and the core runs it here with `checkShape`, then
// the feature's value rules add what a schema cannot say (URL rules, references, uniqueness).

import type { Static, TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { isSecretName } from '../events/sanitize.ts';
import { type DomainError, type ErrorDetail, validationError } from './errors.ts';
import { normaliseOutboundUrl } from './outbound-url.ts';

/** A JSON object: not null, not an array. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Collects the problems of one body, so one answer lists them all. A body by default; an HTTP adapter
 * names the query string, path parameters or headers when it checks those with their schema.
 */
export class Problems {
  readonly details: ErrorDetail[] = [];
  readonly location: ErrorDetail['location'];
  constructor(location: ErrorDetail['location'] = 'body') {
    this.location = location;
  }
  add(param: string, msg: string, value?: unknown): void {
    this.details.push({ ...(value === undefined ? {} : { value }), msg, param, location: this.location });
  }
  /** Whether a problem with this field (or the whole input) was found: its value rules then have nothing sound to check. */
  has(param: string): boolean {
    return this.details.some((d) => d.param === param || d.param === this.location);
  }
  unknownFields(input: Record<string, unknown>, known: readonly string[], prefix = ''): void {
    // The value is repeated unless its name says it is a secret.
    for (const key of Object.keys(input)) if (!known.includes(key)) this.add(`${prefix}${key}`, 'Unknown field', isSecretName(key) ? undefined : input[key]);
  }
  /**
   * Checks `input` against a body schema, adding the first problem of each field. A field's words
   * are its schema's `errorMessage` (the nearest one on the path), else "Required", "Unknown field"
   * or TypeBox's own. A field marked `writeOnly`, or whose name says it is a secret, is reported
   * without its value. True when the input has the schema's shape. The value rules then run on the
   * fields whose shape is right (`p.has(field)` is false), so one answer names every problem; an
   * HTTP adapter that validates with the same schema and check answers a body that misses its
   * schema with the same shape problems, before any value rule.
   */
  checkShape<T extends TSchema>(schema: T, input: unknown, prefix = ''): input is Static<T> {
    // Most inputs fit: a yes-or-no check costs a third of walking the schema for its errors (which
    // finds none), and the same rules decide both. The errors are walked only for a misfit.
    if (Value.Check(schema, input)) return true;
    const before = this.details.length;
    const seen = new Set<string>();
    for (const error of Value.Errors(schema, input)) {
      const path = error.path.split('/').slice(1);
      const unknown = error.type === ValueErrorType.ObjectAdditionalProperties;
      const named = unknown ? undefined : nearestMessage(schema, path);
      const at = named?.path ?? path;
      const joined = at.join('.');
      const param = joined ? prefix + joined : prefix.replace(/\.$/, '') || this.location;
      if (seen.has(param)) continue;
      seen.add(param);
      const secret = named?.secret === true || isSecretName(at[at.length - 1] ?? '') || (error.schema as Annotated).writeOnly === true;
      const msg = unknown ? 'Unknown field' : (named?.message ?? (error.type === ValueErrorType.ObjectRequiredProperty ? 'Required' : error.message));
      this.add(param, msg, secret ? undefined : named ? valueAt(input, at) : error.value);
    }
    return this.details.length === before;
  }
  /** The problems found as one error, if any; given the body's schema, in the order of its fields (shape and value problems together). */
  error(schema?: TSchema): DomainError | undefined {
    if (this.details.length === 0) return undefined;
    const fields = Object.keys((schema as Annotated | undefined)?.properties ?? {});
    const rank = (d: ErrorDetail) => {
      const i = fields.indexOf(d.param.split('.')[0] as string);
      return i < 0 ? fields.length : i;
    };
    return validationError(fields.length === 0 ? this.details : [...this.details].sort((x, y) => rank(x) - rank(y)));
  }
  throwIfAny(schema?: TSchema): void {
    const error = this.error(schema);
    if (error) throw error;
  }
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

interface Annotated {
  errorMessage?: string;
  writeOnly?: boolean;
  properties?: Record<string, TSchema>;
  items?: TSchema;
  anyOf?: TSchema[];
}

/** The deepest schema on `path` that names its problem, with how far down it sits. */
function nearestMessage(root: TSchema, path: string[]): { path: string[]; message: string; secret: boolean } | undefined {
  let found: { path: string[]; message: string; secret: boolean } | undefined;
  let schema: Annotated | undefined = root as Annotated;
  for (let depth = 0; schema !== undefined; depth++) {
    if (schema.errorMessage !== undefined) found = { path: path.slice(0, depth), message: schema.errorMessage, secret: schema.writeOnly === true };
    if (depth === path.length) break;
    const step = path[depth] as string;
    schema = (schema.properties?.[step] ?? (schema.items as Annotated | undefined)) as Annotated | undefined;
  }
  return found;
}

function valueAt(input: unknown, path: string[]): unknown {
  let at = input;
  for (const step of path) at = isPlainObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[step] : undefined;
  return at;
}
