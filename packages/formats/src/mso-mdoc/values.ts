import { invalidField } from '@vellum/core';
import { Tag, TAG_FULL_DATE, TAG_TDATE, tdateString } from './cbor.ts';

/** A calendar date (`YYYY-MM-DD`), issued as a CBOR `full-date` (tag 1004). */
export interface MdocFullDate {
  type: 'date';
  value: string;
}

/** An instant (an RFC 3339 date-time with its offset), issued as a CBOR `tdate` (tag 0) in UTC at whole seconds. */
export interface MdocDateTime {
  type: 'dateTime';
  value: string;
}

/**
 * An element value typed the way a configuration's mapping types it (docs/decisions.md "Credential configurations"). The core's
 * resolved claims (`{ type, value }` for string, number, boolean, date, dateTime) are accepted as
 * they are.
 */
export type MdocTypedValue =
  | { type: 'string'; value: string }
  | { type: 'number'; value: number }
  | { type: 'boolean'; value: boolean }
  | MdocFullDate
  | MdocDateTime;

/**
 * The value of one data element. Plain strings, numbers (integers or floats), booleans and null
 * are written as such; `Uint8Array` as a byte string; arrays as arrays; `Map`s and plain objects as
 * maps. A plain object whose only keys are `type` (one of the mapping types) and `value` is read as
 * an {@link MdocTypedValue}: a map that must literally hold those two keys is passed as a `Map`.
 */
export type MdocValue =
  | string
  | number
  | boolean
  | null
  | Uint8Array
  | MdocTypedValue
  | readonly MdocValue[]
  | ReadonlyMap<string | number, MdocValue>
  | { readonly [key: string]: MdocValue };

const TYPED = new Set(['string', 'number', 'boolean', 'date', 'dateTime']);
const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isTyped(value: object): value is MdocTypedValue {
  return 'type' in value && 'value' in value && TYPED.has(value.type as string) && Object.keys(value).length === 2;
}

function refuse(path: string, msg: string, value: unknown): never {
  throw invalidField(path, msg, value);
}

/** `YYYY-MM-DD` that names a real day of the Gregorian calendar. */
function isFullDate(text: string): boolean {
  const m = FULL_DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(Date.UTC(year, month - 1, day));
  at.setUTCFullYear(year); // Date.UTC maps years 0..99 to 1900..1999
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
}

/** A `tdate` string for an ISO date-time, or undefined when it is not one (or lies outside years 0000-9999). */
function toTdate(text: string): string | undefined {
  // RFC 3339 requires an offset; without one, Date would read the host's local time.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text)) return undefined;
  const at = new Date(text);
  const ms = at.getTime();
  if (Number.isNaN(ms) || at.getUTCFullYear() > 9999) return undefined;
  return tdateString(at);
}

function number(value: number, path: string): number | bigint {
  if (!Number.isFinite(value)) refuse(path, 'Expected a finite number', value);
  // cbor-x writes integers beyond 32 bits as floats; CBOR has 64-bit integers for them.
  if (Number.isSafeInteger(value) && (value > 0xffffffff || value < -0x100000000)) return BigInt(value);
  return value;
}

function typed(typedValue: MdocTypedValue, path: string): unknown {
  // The declared type is a promise the caller may not have kept: check the value itself.
  const value: unknown = typedValue.value;
  switch (typedValue.type) {
    case 'string':
      return typeof value === 'string' ? value : refuse(path, 'Expected a string', value);
    case 'number':
      return typeof value === 'number' ? number(value, path) : refuse(path, 'Expected a number', value);
    case 'boolean':
      return typeof value === 'boolean' ? value : refuse(path, 'Expected a boolean', value);
    case 'date':
      return typeof value === 'string' && isFullDate(value) ? new Tag(value, TAG_FULL_DATE) : refuse(path, 'Expected a full-date (YYYY-MM-DD)', value);
    case 'dateTime': {
      const tdate = typeof value === 'string' ? toTdate(value) : undefined;
      return tdate === undefined ? refuse(path, 'Expected an RFC 3339 date-time', value) : new Tag(tdate, TAG_TDATE);
    }
  }
}

/**
 * Turns an element value into what the CBOR encoder writes: typed dates into their tags, objects
 * into Maps (so key order and integer-like keys survive). `path` names the value in errors.
 */
export function toCborValue(value: MdocValue, path: string): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return number(value, path);
    case 'object': {
      if (value === null || value instanceof Uint8Array) return value;
      if (Array.isArray(value)) return (value as readonly MdocValue[]).map((item, i) => toCborValue(item, `${path}[${i}]`));
      if (value instanceof Map) {
        const out = new Map<string | number, unknown>();
        for (const [key, item] of value as ReadonlyMap<string | number, MdocValue>) {
          if (typeof key !== 'string' && !Number.isSafeInteger(key)) refuse(path, 'Map keys must be strings or integers', key);
          out.set(key, toCborValue(item, `${path}.${key}`));
        }
        return out;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null)
        refuse(path, 'Objects must be plain maps; dates are { type: "date" | "dateTime", value }', String(value));
      if (isTyped(value)) return typed(value, path);
      const out = new Map<string, unknown>();
      for (const [key, item] of Object.entries(value as { readonly [key: string]: MdocValue })) out.set(key, toCborValue(item, `${path}.${key}`));
      return out;
    }
    default:
      return refuse(path, 'Not a value an mDoc element can hold', String(value));
  }
}
