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
