import { isUuid } from '../shared/ids.ts';
import type { Static } from '@sinclair/typebox';
import { isPlainObject, Problems } from '../shared/body-problems.ts';
import { type ErrorDetail, invalidField } from '../shared/errors.ts';
import type { UserFilter } from './model.ts';
import { UserBody, UserSearchBody } from './schema.ts';

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
  const p = new Problems();
  if (p.checkShape(UserBody, input)) p.details.push(...claimProblems(input.claims ?? {}, 'claims'));
  p.throwIfAny(UserBody);
  return { claims: (input as Static<typeof UserBody>).claims ?? {} };
}

export interface UserSearchInput {
  claims?: unknown;
  authenticationProvider?: unknown;
  limit?: unknown;
  cursor?: unknown;
}

/** A search body (docs/decisions.md "Users, offers, the token and nonce endpoints") as a filter and the page asked for. */
export function checkUserSearch(input: UserSearchInput): { filter: UserFilter; limit?: number; cursor?: string } {
  const p = new Problems();
  p.checkShape(UserSearchBody, input);
  const body = input as Static<typeof UserSearchBody>;
  if (!p.has('claims') && body.claims !== undefined) {
    p.details.push(...claimProblems(body.claims, 'claims'));
    if (!p.has('claims') && Object.keys(body.claims).length > MAX_SEARCH_CLAIMS) p.add('claims', `At most ${MAX_SEARCH_CLAIMS} claims`);
  }
  p.throwIfAny(UserSearchBody);
  const subjectId = body.authenticationProvider?.subjectId;
  return {
    filter: { ...(body.claims !== undefined ? { claims: body.claims } : {}), ...(subjectId !== undefined ? { subjectId } : {}) },
    ...(body.limit !== undefined ? { limit: body.limit } : {}),
    ...(body.cursor !== undefined ? { cursor: body.cursor } : {}),
  };
}

/** Checks a user id named in a path; anything but a UUID is a 400 about `id`. */
export function checkUserId(id: string): string {
  if (!isUuid(id)) throw invalidField('id', 'A user id (UUID)', id, 'params');
  return id.toLowerCase();
}
