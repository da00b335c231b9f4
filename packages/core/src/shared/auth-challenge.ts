// WWW-Authenticate challenges (RFC 9110 §11.6.1), as resource endpoints send them: a scheme and
// auth-params whose values are quoted strings (RFC 6750 §3, RFC 9449 §7.1).

/** A challenge such as `DPoP error="invalid_token", algs="ES256 EdDSA"`; values lose any `"`, `\` or control character. */
export function authChallenge(scheme: string, params: Readonly<Record<string, string | undefined>>): string {
  const quoted = (value: string) => `"${value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ').slice(0, 300)}"`;
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${quoted(value)}`);
  return parts.length > 0 ? `${scheme} ${parts.join(', ')}` : scheme;
}
