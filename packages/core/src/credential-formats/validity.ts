import { addDuration } from '../configurations/duration.ts';
import type { Duration } from '../configurations/model.ts';
import { DomainError } from '../shared/errors.ts';

/** When a credential is valid: from its issuance, for the configuration's `expiresIn`, at whole seconds. */
export interface Validity {
  validFrom: Date;
  validUntil: Date;
}

const wholeSeconds = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);

/**
 * The validity of a credential issued at `issuedAt` (whole seconds, as every format writes them).
 * A credential that would already be expired at `now` is refused (docs/decisions.md "Credential configurations").
 */
export function validityOf(issuedAt: Date, expiresIn: Duration, now: Date): Validity {
  const validFrom = wholeSeconds(issuedAt);
  const validUntil = wholeSeconds(addDuration(issuedAt, expiresIn));
  if (validUntil.getTime() <= now.getTime()) {
    throw new DomainError('BadRequest', `The credential would already be expired (valid until ${validUntil.toISOString()}), so it is not issued`, {
      details: [{ value: expiresIn, msg: 'Issuance time plus expiresIn is in the past', param: 'expiresIn', location: 'body' }],
    });
  }
  return { validFrom, validUntil };
}

/** An ISO 8601 timestamp at whole seconds (`2026-05-01T12:00:00Z`), as credentials write them. */
export function isoSeconds(date: Date): string {
  return wholeSeconds(date).toISOString().replace('.000Z', 'Z');
}
