// Deferred issuance per configuration (docs/deferred-issuance.md, OpenID4VCI 1.0 §9): a credential
// of a configuration with `deferred` is issued only once an admin approves the request.

import { Type } from '@sinclair/typebox';
import { isPlainObject, type Problems } from '../shared/body-problems.ts';
import { DURATION_UNITS, durationSeconds } from './duration.ts';
import type { Duration } from './model.ts';

/** What the wallet is told to wait between polls when the configuration says nothing (OpenID4VCI 1.0 §8.3 `interval`). */
export const DEFAULT_DEFERRED_INTERVAL_SECONDS = 5;
/** How long a transaction_id can be collected when the configuration says nothing. */
export const DEFAULT_DEFERRED_EXPIRES_IN: Duration = Object.freeze({ days: 30 });
/** The longest a deferred issuance may wait for review and collection. */
export const MAX_DEFERRED_DAYS = 90;
const MAX_INTERVAL_SECONDS = 3600;

/** A configuration's review requirement, defaults filled in. */
export interface DeferredIssuanceSettings {
  /** Seconds the wallet waits between polls of the deferred credential endpoint. */
  intervalSeconds: number;
  /** How long the transaction lasts, from the credential request, for review and collection together. */
  expiresIn: Duration;
}

const Count = Type.Optional(Type.Integer({ minimum: 0, errorMessage: 'A whole number, 0 or more' }));

/** The body's `deferred` member: `{}` is enough to require review. */
export const DeferredField = Type.Object(
  {
    intervalSeconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_INTERVAL_SECONDS, errorMessage: `A whole number of seconds from 1 to ${MAX_INTERVAL_SECONDS}` }),
    ),
    expiresIn: Type.Optional(
      Type.Object(
        { years: Count, months: Count, weeks: Count, days: Count, hours: Count, minutes: Count, seconds: Count },
        { additionalProperties: false, errorMessage: 'A duration such as { "days": 30 }' },
      ),
    ),
  },
  { additionalProperties: false, errorMessage: 'An object such as { "intervalSeconds": 5, "expiresIn": { "days": 30 } }' },
);

/** `deferred` past its shape: a transaction life longer than zero and at most MAX_DEFERRED_DAYS; defaults filled in. */
export function checkDeferred(value: unknown, problems: Problems): DeferredIssuanceSettings | undefined {
  if (!isPlainObject(value)) return undefined;
  const expiresIn = (value.expiresIn as Duration | undefined) ?? { ...DEFAULT_DEFERRED_EXPIRES_IN };
  if (isPlainObject(value.expiresIn) && Object.keys(value.expiresIn).every((u) => (DURATION_UNITS as string[]).includes(u))) {
    const days = durationSeconds(expiresIn) / 86_400;
    if (!(days > 0)) problems.add('deferred.expiresIn', 'Must be longer than zero', expiresIn);
    else if (days > MAX_DEFERRED_DAYS) problems.add('deferred.expiresIn', `At most ${MAX_DEFERRED_DAYS} days`, expiresIn);
  }
  return { intervalSeconds: (value.intervalSeconds as number | undefined) ?? DEFAULT_DEFERRED_INTERVAL_SECONDS, expiresIn };
}
