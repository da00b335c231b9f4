// Claims path pointers (OpenID4VP 1.0 §7): which parts of a credential's claims a path selects, and
// the claims cut down to what a set of paths selected. Written for Vellum from the processing rules.

import type { DcqlClaimsPath } from './schema.ts';

/** What a path selected: `true` for a whole value, else the selected members or indexes of it. */
export type Selection = true | Map<string | number, Selection>;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

class Abort extends Error {}

function walk(value: unknown, path: DcqlClaimsPath, at: number, found: unknown[]): Selection | undefined {
  if (at === path.length) {
    found.push(value);
    return true;
  }
  const component = path[at];
  if (typeof component === 'string') {
    // A key: every selected element must be an object; one without the key drops out.
    if (!isObject(value)) throw new Abort();
    if (!Object.hasOwn(value, component)) return undefined;
    const inner = walk(value[component], path, at + 1, found);
    return inner === undefined ? undefined : new Map([[component, inner]]);
  }
  // An index or null: every selected element must be an array.
  if (!Array.isArray(value)) throw new Abort();
  const selection = new Map<string | number, Selection>();
  const indexes = component === null || component === undefined ? value.keys() : [component].filter((i) => i < value.length);
  for (const index of indexes) {
    const inner = walk(value[index], path, at + 1, found);
    if (inner !== undefined) selection.set(index, inner);
  }
  return selection.size > 0 ? selection : undefined;
}

/**
 * Applies `path` to `claims` (§7.1): the values selected and where they are, or undefined when the
 * path selects nothing or meets a value of the wrong kind (a key on a non-object, an index or null on
 * a non-array), which §7.1 treats as an error.
 */
export function selectClaims(claims: unknown, path: DcqlClaimsPath): { values: unknown[]; selection: Selection } | undefined {
  const values: unknown[] = [];
  try {
    const selection = walk(claims, path, 0, values);
    return selection === undefined ? undefined : { values, selection };
  } catch (error) {
    if (error instanceof Abort) return undefined;
    throw error;
  }
}

/** The union of two selections. */
export function mergeSelections(a: Selection, b: Selection): Selection {
  if (a === true || b === true) return true;
  const merged = new Map(a);
  for (const [key, inner] of b) {
    const existing = merged.get(key);
    merged.set(key, existing === undefined ? inner : mergeSelections(existing, inner));
  }
  return merged;
}

/**
 * `value` cut down to `selection`: objects keep the selected members, arrays the selected elements in
 * their order (the others are left out, so indexes close up).
 */
export function project(value: unknown, selection: Selection): unknown {
  if (selection === true) return value;
  if (Array.isArray(value)) {
    return value.flatMap((element, index) => {
      const inner = selection.get(index);
      return inner === undefined ? [] : [project(element, inner)];
    });
  }
  const out: Json = {};
  if (!isObject(value)) return out;
  for (const [key, element] of Object.entries(value)) {
    const inner = selection.get(key);
    // Own members only, so that a claim named __proto__ stays a claim.
    if (inner !== undefined) Object.defineProperty(out, key, { value: project(element, inner), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
