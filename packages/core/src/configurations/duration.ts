import type { Duration } from './model.ts';

const SECONDS: Record<keyof Duration, number> = {
  years: 365 * 86_400,
  months: 30 * 86_400,
  weeks: 7 * 86_400,
  days: 86_400,
  hours: 3_600,
  minutes: 60,
  seconds: 1,
};

export const DURATION_UNITS = Object.keys(SECONDS) as (keyof Duration)[];

/** The length of a duration in seconds (years 365 days, months 30: calendar-free and predictable). */
export function durationSeconds(d: Duration): number {
  return DURATION_UNITS.reduce((sum, unit) => sum + (d[unit] ?? 0) * SECONDS[unit], 0);
}

/** `start` plus the duration. */
export function addDuration(start: Date, d: Duration): Date {
  return new Date(start.getTime() + durationSeconds(d) * 1000);
}
