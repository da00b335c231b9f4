import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type { PrettyOptions } from 'pino-pretty';

/**
 * Fields whose values never reach the log: at the top level of a line, and in any object logged
 * there (pino's `*.field`). The secret names of analytic events (docs/limits.md), as they are
 * spelled where the server could log them; not `code`, which is an error's code in a log line.
 */
export const REDACTED_FIELDS = [
  'client_secret',
  'clientSecret',
  'secret',
  'password',
  'masterKey',
  'privateKey',
  'pin',
  'authorization',
  'access_token',
  'refresh_token',
  'id_token',
  'accessToken',
  'refreshToken',
  'pre-authorized_code',
  'preAuthorizedCode',
  'tx_code',
  'txCode',
  'transactionCode',
  'c_nonce',
  'nonce',
  'proof',
  'proofs',
  'jwt',
  'credential',
  'credentials',
] as const;
/** Request headers that carry credentials; redacted wherever a logged object holds `headers`. */
export const REDACTED_HEADERS = ['authorization', 'cookie', 'dpop', 'oauth-client-attestation', 'oauth-client-attestation-pop'] as const;
const CENSOR = '[redacted]';

/** `…/v1/openid/offers/{reference}` (not `…/offers/pre-authorized…`): the reference is a secret. */
const OFFER_REFERENCE = /(\/v1\/openid\/offers\/)(?!pre-authorized(?:\/|$))[^/]+$/;

const holdsAny = (value: object, fields: readonly string[]) => fields.some((f) => Object.hasOwn(value, f));

/** A copy of `value` with `fields` censored, keeping its prototype (and an error's message and stack). */
function censored<T extends object>(value: T, fields: readonly string[]): T {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(value) as object | null) as T, value);
  if (value instanceof Error) Object.assign(copy, { message: value.message, stack: value.stack });
  for (const f of fields) if (Object.hasOwn(value, f)) (copy as Record<string, unknown>)[f] = CENSOR;
  return copy;
}

/**
 * Secrets out of one log line's object, before pino serializes it. pino's own `redact` did this
 * with wildcard paths, which walk and clone every line: 16 µs of a request's log line in the flow
 * benchmark, more than the rest of the line. These are a handful of own-property checks per field,
 * and a copy only when something is found. The object the caller logged is never changed.
 */
export function redactLogObject(object: Record<string, unknown>): Record<string, unknown> {
  let out = holdsAny(object, REDACTED_FIELDS) ? censored(object, REDACTED_FIELDS) : object;
  for (const key in object) {
    const value = object[key];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const headers = (value as { headers?: unknown }).headers;
    const secretHeaders = headers !== null && typeof headers === 'object' && Object.hasOwn(value, 'headers') && holdsAny(headers, REDACTED_HEADERS);
    if (!secretHeaders && !holdsAny(value, REDACTED_FIELDS)) continue;
    const clean = censored(value, REDACTED_FIELDS);
    if (secretHeaders) (clean as { headers: object }).headers = censored(headers as object, REDACTED_HEADERS);
    if (out === object) out = censored(object, []);
    out[key] = clean;
  }
  return out;
}

/** VELLUM_LOG_FORMAT: `auto` is `pretty` on a terminal and `json` otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** How a log line is written: JSON for machines, or pretty (one readable line each) for a person at a terminal. */
export function chooseLogFormat(setting: LogFormat, isTTY: boolean | undefined): 'json' | 'pretty' {
  if (setting !== 'auto') return setting;
  return isTTY ? 'pretty' : 'json';
}

/** How createLogger writes: pretty or JSON, and colours (only for a terminal). */
export interface LogOutput {
  format?: 'json' | 'pretty';
  colorize?: boolean;
}

// Loaded only when a terminal reads the log: servers writing JSON never load it.
const loadPretty = () => createRequire(import.meta.url)('pino-pretty') as (options: PrettyOptions) => pino.DestinationStream;

/**
 * The server's pino logger: JSON lines (or, for a terminal, pino-pretty's readable ones), secrets
 * redacted before either is written, URLs logged without their query. `destination` defaults to stdout.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, output: LogOutput = {}): Logger {
  const options: pino.LoggerOptions = {
    level,
    formatters: { log: redactLogObject },
    serializers: {
      // Only these fields of a request are logged: never its headers or body.
      req: (req: { method?: string; url?: string; host?: string; ip?: string; id?: string }) => ({
        id: req.id,
        method: req.method,
        // Query strings can carry codes and tokens; the path is enough to trace a request. The
        // path of a by-reference offer is its pre-authorized code (or issuer state): hidden too.
        url: req.url?.split('?')[0]?.replace(OFFER_REFERENCE, '$1[redacted]'),
        host: req.host,
        remoteAddress: req.ip,
      }),
    },
  };
  if (output.format !== 'pretty') return pino(options, destination);
  // pino-pretty reads the JSON line pino made (already redacted) and rewrites it, in this thread.
  const pretty = loadPretty()({
    destination: (destination ?? 1) as PrettyOptions['destination'],
    sync: true,
    colorize: output.colorize ?? false,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
  return pino(options, pretty);
}
