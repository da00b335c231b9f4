// did:web (W3C CCG did:web method): `did:web:<host>[:<path>:…]`, whose document is served at
// `https://<host>/.well-known/did.json` without a path, else at `https://<host>/<path>/…/did.json`.
// A port in the host is written percent-encoded (`%3A`).

/** Deepest path a did:web may have here; the HTTP layer serves documents down to this depth. */
export const MAX_DID_WEB_PATH_SEGMENTS = 5;

// Unreserved URL characters only, and no leading dot (which rules out `.well-known`, `.` and `..`).
const SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,62}$/;

/** Where a did:web document lives: a host (lowercase, with `:port` when not the default) and path segments. */
export interface DidWebLocation {
  host: string;
  path: string[];
}

/** True when a path segment may appear in a did:web path. */
export function isDidWebSegment(segment: string): boolean {
  return SEGMENT.test(segment);
}

/** The did:web for a location. */
export function didWebOf(location: DidWebLocation): string {
  return ['did:web', location.host.replace(':', '%3A'), ...location.path].join(':');
}

/**
 * Reads the `url` of a did:web create request: a host with an optional path, with or without an
 * http(s) scheme (`acme.example.com/issuers/1`). Says what is wrong when it is not one.
 */
export function parseDidWebUrl(input: string): { location: DidWebLocation } | { problem: string } {
  const raw = input.trim();
  if (raw.length === 0) return { problem: 'A host name is required' };
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    return { problem: 'Must be a host name with an optional path, such as issuer.example.com/credentials' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'Must be an http(s) URL or a bare host name' };
  if (url.username || url.password || url.search || url.hash || raw.includes('?') || raw.includes('#')) {
    return { problem: 'Must have no user, query or fragment' };
  }
  const path = url.pathname.split('/').filter((s) => s.length > 0);
  if (url.pathname.includes('//')) return { problem: 'Must not have empty path segments' };
  if (path.length > MAX_DID_WEB_PATH_SEGMENTS) return { problem: `At most ${MAX_DID_WEB_PATH_SEGMENTS} path segments` };
  if (!path.every(isDidWebSegment)) return { problem: 'Path segments take letters, digits and - . _ ~ only, and must not start with a dot' };
  return { location: { host: url.host, path } };
}
