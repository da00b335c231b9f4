// The id rule every feature shares: resources are named by UUIDs, in paths and in bodies.

/** A UUID in its text form (RFC 9562 §4), any version, either case. */
export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Whether a value is a UUID (ids in paths and bodies). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
