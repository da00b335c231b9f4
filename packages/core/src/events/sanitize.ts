/**
 * What an analytic event may hold (docs/decisions.md "Analytic events", docs/limits.md "Analytic events"). Event data comes
 * from request and response payloads that anyone can shape, so it is made storable here, when the
 * event is recorded: bounded in depth, string length, array length and total size, with secrets
 * masked. Nothing the store cannot serialize gets as far as the queue.
 */
export interface EventDataLimits {
  /** Objects and arrays nested deeper than this become the marker. */
  maxDepth: number;
  /** Longer strings (and object keys) are cut to this many characters, then the marker. */
  maxStringLength: number;
  /** Longer arrays keep this many items, then the marker. */
  maxArrayLength: number;
  /** About how many characters the serialized data may take; past it the rest becomes the marker. */
  maxChars: number;
}

/** Depth counts from `data` itself, so a level-3 `payload.request` body keeps 8 levels of its own. */
export const EVENT_DATA_LIMITS: EventDataLimits = { maxDepth: 10, maxStringLength: 2048, maxArrayLength: 100, maxChars: 16_384 };

/** Stands for whatever could not be stored: too deep, too long, too big, or not JSON. */
export const TRUNCATED = '[truncated]';
/** Stands for a secret's value. */
export const MASK = '***';

/**
 * Field names whose values are secrets or issued credentials, compared in lower case without `-`,
 * `_` and other separators (so `pre-authorized_code`, `preAuthorizedCode` and `PRE_AUTHORIZED_CODE`
 * are one name). The list is in docs/limits.md; keep the two alike.
 */
const SECRET_NAMES = new Set([
  // OAuth and OpenID4VCI codes and single-use values.
  'code',
  'txcode',
  'preauthorizedcode',
  'transactioncode',
  'authorizationcode',
  'issuerstate',
  'codeverifier',
  'nonce',
  'cnonce',
  'pin',
  'otp',
  // Proofs of possession and signed assertions.
  'proof',
  'proofs',
  'jwt',
  'jws',
  'jwe',
  'dpop',
  'assertion',
  'clientassertion',
  // Issued credentials, whatever their format.
  'credential',
  'credentials',
  'vc',
  'vp',
  'mdoc',
  'sdjwt',
  'issuersigned',
  'devicesigned',
  // Keys: `key` itself, and the private members of a JWK (RFC 7518 §6.2.2, §6.3.2, §6.4.1).
  'key',
  'd',
  'p',
  'q',
  'dp',
  'dq',
  'qi',
  'k',
  'oth',
  'seed',
  // Headers that carry credentials.
  'authorization',
  'cookie',
  'setcookie',
]);
/** Parts of a name that make it secret wherever they occur (`client_secret`, `refresh_token`, `privateKeyPem`, the pre-authorized grant's URN). */
const SECRET_PARTS = /secret|password|passphrase|passwd|token|privatekey|masterkey|apikey|signingkey|authorization|preauthorizedcode|txcode/;
/** Names that hold a secret part but say nothing secret. */
const NOT_SECRET = new Set(['tokentype', 'tokenendpointauthmethod']);

/** Whether a field of this name holds a secret or a credential, whose value is never stored. */
export function isSecretName(name: string): boolean {
  const n = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAMES.has(n) || (SECRET_PARTS.test(n) && !NOT_SECRET.has(n));
}

/**
 * Remembers `isSecretName` for the names seen lately: most events carry the same few field names.
 * Bounded, since names in request bodies are anyone's choice. One per recorder, not per module.
 */
export function secretNameCache(max = 1024): (name: string) => boolean {
  const seen = new Map<string, boolean>();
  return (name) => {
    const known = seen.get(name);
    if (known !== undefined) return known;
    const secret = isSecretName(name);
    if (seen.size >= max) seen.clear();
    if (name.length <= 64) seen.set(name, secret);
    return secret;
  };
}

/** A compact JWS or JWE (a proof, an access token, an SD-JWT credential), found by its shape. */
const looksLikeJose = (s: string) => s.startsWith('eyJ') && s.indexOf('.') > 3;

interface Walk {
  limits: EventDataLimits;
  isSecret: (name: string) => boolean;
  /** Characters of the serialized form still allowed. */
  left: number;
  /** Whether anything was cut. */
  truncated: boolean;
}

function boundString(s: string, w: Walk): string {
  if (looksLikeJose(s)) {
    w.left -= MASK.length + 2;
    return MASK;
  }
  const room = Math.min(w.limits.maxStringLength, Math.max(w.left - 2, 0));
  if (s.length <= room) {
    w.left -= s.length + 2;
    return s;
  }
  w.truncated = true;
  w.left -= room + TRUNCATED.length + 2;
  return s.slice(0, room) + TRUNCATED;
}

/** `undefined` for what JSON leaves out (functions, symbols, undefined). */
function walk(value: unknown, depth: number, w: Walk): unknown {
  switch (typeof value) {
    case 'string':
      return boundString(value, w);
    case 'number':
      w.left -= 8;
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      w.left -= 5;
      return value;
    case 'bigint':
      return boundString(value.toString(), w);
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) {
    w.left -= 4;
    return null;
  }
  if (value instanceof Date) {
    w.left -= 26;
    return Number.isNaN(value.getTime()) ? null : value.toISOString();
  }
  if (depth >= w.limits.maxDepth || w.left <= 0) {
    w.truncated = true;
    w.left -= TRUNCATED.length + 2;
    return TRUNCATED;
  }
  w.left -= 2;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    const n = Math.min(value.length, w.limits.maxArrayLength);
    for (let i = 0; i < n; i++) {
      if (w.left <= 0) break;
      const item = walk(value[i], depth + 1, w);
      out.push(item === undefined ? null : item);
      w.left -= 1;
    }
    if (out.length < value.length) {
      w.truncated = true;
      out.push(TRUNCATED);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    if (w.left <= 0) {
      w.truncated = true;
      out[TRUNCATED] = true;
      break;
    }
    const v = (value as Record<string, unknown>)[name];
    const key = name.length > w.limits.maxStringLength ? ((w.truncated = true), name.slice(0, w.limits.maxStringLength) + TRUNCATED) : name;
    w.left -= key.length + 3;
    // Booleans and null say whether something is there, never what it is.
    const kept = w.isSecret(key) && v !== null && v !== undefined && typeof v !== 'boolean' ? ((w.left -= MASK.length + 2), MASK) : walk(v, depth + 1, w);
    if (kept === undefined) continue;
    // A `__proto__` key from a parsed body is data, not a prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true, configurable: true });
    else out[key] = kept;
  }
  return out;
}

/**
 * A copy of `data` that any store can serialize: bounded by `limits`, secrets and credentials
 * masked, non-JSON values left out. It stops walking once the size is spent, so its work is about
 * proportional to what it keeps (plus listing the keys of the objects it enters).
 */
export function sanitizeEventData(
  data: Record<string, unknown>,
  limits: EventDataLimits = EVENT_DATA_LIMITS,
  isSecret: (name: string) => boolean = isSecretName,
): { data: Record<string, unknown>; truncated: boolean } {
  const w: Walk = { limits, isSecret, left: limits.maxChars, truncated: false };
  const out = walk(data, 0, w);
  return { data: out !== null && typeof out === 'object' && !Array.isArray(out) ? (out as Record<string, unknown>) : { value: out }, truncated: w.truncated };
}
