// Base64url for short ASCII strings with web-standard globals only, so the core runs in any host.

export function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes base64url to a string; returns undefined for anything that is not base64url. */
export function fromBase64Url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
}

/** Base64url (no padding) of raw bytes. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return toBase64Url(text);
}

/** Decodes base64url to bytes; returns undefined for anything that is not base64url. */
export function base64UrlToBytes(text: string): Uint8Array | undefined {
  const raw = fromBase64Url(text);
  if (raw === undefined) return undefined;
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}
