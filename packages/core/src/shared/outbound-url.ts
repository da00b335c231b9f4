// The rules every address Vellum calls out to must follow (docs/limits.md "Outbound calls"): webhooks,
// claim sources, the authentication provider and the interaction hook. The SSRF guard of the
// HttpClient adapter checks the resolved address at send time; this checks the written URL.

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Checks and normalises an outbound URL: a valid https URL, a host name rather than an IP
 * address, no credentials, no query or fragment. Non-ASCII host names become punycode and paths
 * are percent-encoded, as WHATWG URL parsing does. Returns the URL or the problem.
 */
export function normaliseOutboundUrl(value: string): { url: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return { problem: 'Not a valid URL' };
  }
  if (url.protocol !== 'https:') return { problem: 'Must use https' };
  if (url.username || url.password) return { problem: 'Must not carry credentials' };
  const host = url.hostname;
  if (host.startsWith('[') || IPV4.test(host)) return { problem: 'Must not be an IP address' };
  if (url.search || value.includes('?')) return { problem: 'Must not contain query parameters' };
  if (url.hash || value.includes('#')) return { problem: 'Must not contain a fragment' };
  if (!host.includes('.') && host !== 'localhost') return { problem: 'Must name a fully qualified host' };
  return { url: url.toString() };
}
