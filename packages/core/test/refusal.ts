import { expect } from 'vitest';
import { DomainError } from '../src/shared/errors.ts';

/** The DomainError a promise is rejected with; a fulfilment, or any other error, fails the test. */
export async function refusal(p: Promise<unknown>): Promise<DomainError> {
  return p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => {
      if (!(e instanceof DomainError)) throw e;
      return e;
    },
  );
}

/** What a 400 matches that names the body field `param`, among others, with the message `msg` when given (docs/errors.md). */
export function badBodyField(param: string, msg?: unknown) {
  return { code: 'BadRequest', details: expect.arrayContaining([expect.objectContaining({ param, location: 'body', ...(msg ? { msg } : {}) })]) };
}
