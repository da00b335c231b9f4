import { isUuid } from '../configurations/input.ts';
import { isPlainObject } from '../shared/body-problems.ts';
import { type ErrorDetail, invalidField, validationError } from '../shared/errors.ts';
import type { UserFilter } from './model.ts';

/** How deep claim values may nest; deeper JSON is refused rather than walked. */
export const MAX_CLAIM_DEPTH = 32;
/** Longest claim name. */
export const MAX_CLAIM_NAME = 256;
/** Most claims a search may compare. */
export const MAX_SEARCH_CLAIMS = 20;

/** Whether a JSON value nests no deeper than `max` (checked without recursion, so any input is safe). */
export function nestsWithin(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return false;
    for (const child of Object.values(v as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return true;
}

/** Problems with a claims object (names and nesting), as `details` under `param`. */
export function claimProblems(claims: unknown, param: string): ErrorDetail[] {
  if (!isPlainObject(claims)) return [{ value: claims, msg: 'An object of claims', param, location: 'body' }];
  const details: ErrorDetail[] = [];
  for (const name of Object.keys(claims)) {
    if (name.length === 0 || name.length > MAX_CLAIM_NAME)
      details.push({ value: name, msg: `Claim names have 1 to ${MAX_CLAIM_NAME} characters`, param, location: 'body' });
  }
  if (!nestsWithin(claims, MAX_CLAIM_DEPTH)) details.push({ msg: `Claims may nest at most ${MAX_CLAIM_DEPTH} levels`, param, location: 'body' });
  return details;
}

/** The claims of a create or replace body (docs/decisions.md "Users, offers, the token and nonce endpoints" `{ claims? }`): an object, `{}` when absent. */
export function checkUserInput(input: unknown): { claims: Record<string, unknown> } {
  if (!isPlainObject(input)) throw invalidField('body', 'An object such as { "claims": { ... } }', input);
  const details: ErrorDetail[] = [];
  for (const key of Object.keys(input)) if (key !== 'claims') details.push({ value: input[key], msg: 'Unknown field', param: key, location: 'body' });
  const claims = input.claims ?? {};
  details.push(...claimProblems(claims, 'claims'));
  if (details.length > 0) throw validationError(details);
  return { claims: claims as Record<string, unknown> };
}

export interface UserSearchInput {
  claims?: unknown;
  authenticationProvider?: unknown;
  limit?: unknown;
  cursor?: unknown;
}

/** A search body (docs/decisions.md "Users, offers, the token and nonce endpoints") as a filter and the page asked for. */
export function checkUserSearch(input: UserSearchInput): { filter: UserFilter; limit?: number; cursor?: string } {
  const details: ErrorDetail[] = [];
  const filter: UserFilter = {};
  if (input.claims !== undefined) {
    const problems = claimProblems(input.claims, 'claims');
    details.push(...problems);
    if (problems.length === 0) {
      const claims = input.claims as Record<string, unknown>;
      if (Object.keys(claims).length > MAX_SEARCH_CLAIMS) details.push({ msg: `At most ${MAX_SEARCH_CLAIMS} claims`, param: 'claims', location: 'body' });
      else filter.claims = claims;
    }
  }
  const provider = input.authenticationProvider;
  if (provider !== undefined) {
    const subjectId = isPlainObject(provider) ? provider.subjectId : undefined;
    if (
      !isPlainObject(provider) ||
      Object.keys(provider).some((k) => k !== 'subjectId') ||
      typeof subjectId !== 'string' ||
      subjectId.length === 0 ||
      subjectId.length > 1000
    ) {
      details.push({ value: provider, msg: 'An object such as { "subjectId": "..." }', param: 'authenticationProvider', location: 'body' });
    } else filter.subjectId = subjectId;
  }
  if (input.limit !== undefined && typeof input.limit !== 'number')
    details.push({ value: input.limit, msg: 'A whole number from 1 to 1000', param: 'limit', location: 'body' });
  if (input.cursor !== undefined && typeof input.cursor !== 'string')
    details.push({ value: input.cursor, msg: 'A cursor from a previous page', param: 'cursor', location: 'body' });
  if (details.length > 0) throw validationError(details);
  return {
    filter,
    ...(typeof input.limit === 'number' ? { limit: input.limit } : {}),
    ...(typeof input.cursor === 'string' ? { cursor: input.cursor } : {}),
  };
}

/** Checks a user id named in a path; anything but a UUID is a 400 about `id`. */
export function checkUserId(id: string): string {
  if (!isUuid(id)) throw invalidField('id', 'A user id (UUID)', id, 'params');
  return id.toLowerCase();
}
