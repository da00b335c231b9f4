// Guards on request bodies that run before a parser builds anything: a nesting limit for JSON and
// XML, and the bounding of values echoed back in an error body's `details`.
import { DomainError, type ErrorDetail } from '@vellum/core';

/** How deep a JSON or XML body may nest (arrays and objects, or elements); no Vellum body needs more than a handful. */
export const MAX_BODY_NESTING = 64;

/** The 400 for a body that nests deeper than the limit. */
export function tooDeep(kind: 'JSON' | 'XML', max: number = MAX_BODY_NESTING): DomainError {
  const why = `${kind} body nests deeper than ${max} levels`;
  return new DomainError('BadRequest', why, { details: [{ msg: why, param: 'body', location: 'body' }] });
}

/**
 * Whether JSON text opens more than `max` arrays or objects inside each other. One linear pass
 * that counts brackets outside strings; it does not check the JSON is well formed (the parser does).
 */
export function jsonNestsDeeperThan(text: string, max: number = MAX_BODY_NESTING): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) {
      depth--; // never below zero, so that stray closers cannot buy depth for later
    }
  }
  return false;
}

/**
 * Whether an XML document nests elements more than `max` deep. One linear pass over the tags:
 * comments, CDATA sections, processing instructions and declarations do not count, nor do
 * self-closing elements; quoted attribute values may hold `>`.
 */
export function xmlNestsDeeperThan(text: string, max: number = MAX_BODY_NESTING): boolean {
  let depth = 0;
  let i = 0;
  const skipPast = (end: string, from: number) => {
    const at = text.indexOf(end, from);
    return at < 0 ? text.length : at + end.length;
  };
  while (i < text.length) {
    const open = text.indexOf('<', i);
    if (open < 0) break;
    if (text.startsWith('<!--', open)) i = skipPast('-->', open + 4);
    else if (text.startsWith('<![CDATA[', open)) i = skipPast(']]>', open + 9);
    else if (text.startsWith('<?', open)) i = skipPast('?>', open + 2);
    else if (text.startsWith('<!', open)) i = skipPast('>', open + 2);
    else if (text.startsWith('</', open)) {
      if (depth > 0) depth--;
      i = skipPast('>', open + 2);
    } else {
      // A start tag: find its `>` outside quoted attribute values.
      let j = open + 1;
      let quote = 0;
      for (; j < text.length; j++) {
        const c = text.charCodeAt(j);
        if (quote !== 0) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) quote = c;
        else if (c === 0x3e) break;
      }
      if (text.charCodeAt(j - 1) !== 0x2f && ++depth > max) return true;
      i = j + 1;
    }
  }
  return false;
}

/** Longest string kept in an error detail's `value`; longer ones are cut and end with `…`. */
export const MAX_DETAIL_STRING = 200;
/** Most items of an array, or entries of an object, kept in an error detail's `value`. */
export const MAX_DETAIL_ITEMS = 10;
/** How deep an array or object in an error detail's `value` is kept; deeper ones become a summary string. */
export const MAX_DETAIL_DEPTH = 2;
/** Most entries of an error body's `details`. */
export const MAX_DETAILS = 20;

/**
 * A copy of a received value small enough to echo in an error body: strings cut to
 * MAX_DETAIL_STRING characters, arrays and objects to MAX_DETAIL_ITEMS entries and MAX_DETAIL_DEPTH
 * levels (a deeper one reads `[array of N]` or `{object of N}`), so that no input can make an error
 * body too large or too deep to serialise.
 */
export function boundDetailValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > MAX_DETAIL_STRING ? `${value.slice(0, MAX_DETAIL_STRING)}…` : value;
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    if (depth >= MAX_DETAIL_DEPTH) return `[array of ${value.length}]`;
    const kept = value.slice(0, MAX_DETAIL_ITEMS).map((v) => boundDetailValue(v, depth + 1));
    if (value.length > MAX_DETAIL_ITEMS) kept.push(`… ${value.length - MAX_DETAIL_ITEMS} more`);
    return kept;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (depth >= MAX_DETAIL_DEPTH) return `{object of ${keys.length}}`;
    const out: Record<string, unknown> = {};
    for (const key of keys.slice(0, MAX_DETAIL_ITEMS)) {
      out[boundDetailValue(key, MAX_DETAIL_DEPTH) as string] = boundDetailValue((value as Record<string, unknown>)[key], depth + 1);
    }
    if (keys.length > MAX_DETAIL_ITEMS) out['…'] = `${keys.length - MAX_DETAIL_ITEMS} more`;
    return out;
  }
  // undefined, functions, symbols and bigints are not JSON; name their type instead.
  return typeof value === 'bigint' ? value.toString() : `[${typeof value}]`;
}

/** `details` bounded for an error body: at most MAX_DETAILS entries, each `value` bounded, `msg` and `param` cut. */
export function boundDetails(details: readonly ErrorDetail[]): ErrorDetail[] {
  return details.slice(0, MAX_DETAILS).map((d) => {
    const { value, ...rest } = d;
    const out: ErrorDetail = { ...rest, msg: boundDetailValue(d.msg) as string, param: boundDetailValue(d.param) as string };
    if (value !== undefined) out.value = boundDetailValue(value);
    return out;
  });
}
