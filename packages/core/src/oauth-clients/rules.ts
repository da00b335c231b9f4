import { isPlainObject, Problems } from '../shared/body-problems.ts';
import { invalidField } from '../shared/errors.ts';
import { checkRootCertificates } from '../shared/root-certificates.ts';
import { WALLET_CLIENT_AUTH_METHODS, WALLET_CLIENT_GRANT_TYPES, type WalletClient, type WalletClientAuthMethod, type WalletClientGrantType } from './model.ts';

/** Longest client id and client name. */
export const MAX_WALLET_CLIENT_ID = 200;
export const MAX_WALLET_CLIENT_NAME = 200;
/** Most redirect URIs a client may register, and the longest one. */
export const MAX_REDIRECT_URIS = 20;
export const MAX_REDIRECT_URI_LENGTH = 2000;
/** Most root certificates a client attestation may trust, and the longest PEM text of one. */
export { MAX_ROOT_CERTIFICATE_LENGTH, MAX_ROOT_CERTIFICATES } from '../shared/root-certificates.ts';

/**
 * Client ids are RFC 3986 §2.3 unreserved characters: they appear unescaped in paths
 * (`/v1/openid/clients/{clientId}`), query strings and forms, and compare as plain strings.
 */
const CLIENT_ID = /^[A-Za-z0-9._~-]+$/;
/** Printable ASCII without space: a redirect URI with anything else must be percent-encoded first. */
const URI_CHARACTERS = /^[\x21-\x7E]+$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** RFC 8252 §7.3: the loopback hosts a native app may listen on over plain http. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

const FIELDS = ['clientId', 'clientName', 'redirectUris', 'grantTypes', 'tokenEndpointAuthMethod', 'dpop', 'clientAttestation', 'credentialResponseEncryption'];

/** A wallet client as a create or replace body describes it, checked. `clientId` only when one was given. */
export interface WalletClientSettings {
  clientId?: string;
  clientName: string;
  redirectUris: string[];
  grantTypes: WalletClientGrantType[];
  tokenEndpointAuthMethod: WalletClientAuthMethod;
  dpop?: WalletClient['dpop'];
  clientAttestation?: WalletClient['clientAttestation'];
  credentialResponseEncryption?: WalletClient['credentialResponseEncryption'];
}

/** Whether a client id is one Vellum accepts (1 to 200 unreserved characters). */
export function isWalletClientId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_WALLET_CLIENT_ID && CLIENT_ID.test(value);
}

/** Checks a client id named in a path; anything else is a 400 about `clientId`. */
export function checkWalletClientId(clientId: string): string {
  if (!isWalletClientId(clientId))
    throw invalidField('clientId', `1 to ${MAX_WALLET_CLIENT_ID} characters of A-Z, a-z, 0-9, "-", ".", "_", "~"`, clientId, 'params');
  return clientId;
}

/**
 * Why a redirect URI cannot be registered, or undefined when it can: an absolute URI without a
 * fragment (RFC 6749 §3.1.2) that is https, plain http to a loopback host (RFC 8252 §7.3), or a
 * private-use scheme in reverse domain form such as `com.example.wallet:/cb` (RFC 8252 §7.1).
 * The URI is kept exactly as given, since authorization requests must repeat it exactly.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH) return `An absolute URI of at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (!URI_CHARACTERS.test(uri)) return 'Only printable ASCII without spaces: percent-encode anything else';
  if (uri.includes('#')) return 'A redirect URI must not have a fragment (RFC 6749 §3.1.2)';
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) return 'An absolute URI, with a scheme (https, a loopback http URI or a private-use scheme)';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'Not a valid absolute URI';
  }
  if (scheme === 'https' || scheme === 'http') {
    // The WHATWG parser mends `https:/host` into `https://host/`; what is registered must already be well formed.
    if (!uri.slice(scheme.length + 1).startsWith('//') || url.hostname === '') return 'An http(s) redirect URI must name a host: scheme://host/...';
    if (url.username !== '' || url.password !== '') return 'A redirect URI must not carry user name or password';
    if (scheme === 'http' && !LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) {
      return 'Plain http is allowed only for loopback hosts 127.0.0.1, [::1] and localhost (RFC 8252 §7.3); use https';
    }
    return undefined;
  }
  // RFC 8252 §7.1: private-use schemes are reverse domain names, so they contain a dot.
  if (!scheme.includes('.'))
    return 'Use https, http to a loopback host, or a private-use scheme in reverse domain form such as com.example.wallet:/callback (RFC 8252 §7.1)';
  return undefined;
}

/**
 * Checks a wallet client create or replace body (docs/wallet-clients.md), reporting every problem at once.
 * Defaults: grantTypes `["authorization_code"]`, tokenEndpointAuthMethod `none`.
 */
export function checkWalletClientInput(input: unknown): WalletClientSettings {
  if (!isPlainObject(input)) throw invalidField('body', 'An object such as { "clientName": "...", "redirectUris": ["https://..."] }', input);
  const p = new Problems();
  for (const key of Object.keys(input)) if (!FIELDS.includes(key)) p.add(key, 'Unknown field', input[key]);

  const { clientId, clientName, redirectUris, grantTypes, tokenEndpointAuthMethod, dpop, clientAttestation, credentialResponseEncryption } = input;
  if (clientId !== undefined && !isWalletClientId(clientId)) {
    p.add('clientId', `1 to ${MAX_WALLET_CLIENT_ID} characters of A-Z, a-z, 0-9, "-", ".", "_", "~"; leave it out and Vellum makes one`, clientId);
  }
  if (typeof clientName !== 'string' || clientName.trim().length === 0 || clientName.length > MAX_WALLET_CLIENT_NAME || /[\x00-\x1F\x7F]/.test(clientName)) {
    p.add('clientName', `Required: 1 to ${MAX_WALLET_CLIENT_NAME} characters, no control characters`, clientName);
  }

  if (!Array.isArray(redirectUris) || redirectUris.length === 0 || redirectUris.length > MAX_REDIRECT_URIS) {
    p.add('redirectUris', `Required: 1 to ${MAX_REDIRECT_URIS} redirect URIs`, Array.isArray(redirectUris) ? undefined : redirectUris);
  } else {
    const seen = new Set<string>();
    redirectUris.forEach((uri: unknown, i) => {
      if (typeof uri !== 'string') return p.add(`redirectUris.${i}`, 'A redirect URI (text)', uri);
      const problem = redirectUriProblem(uri);
      if (problem !== undefined) return p.add(`redirectUris.${i}`, problem, uri);
      if (seen.has(uri)) return p.add(`redirectUris.${i}`, 'Listed twice', uri);
      seen.add(uri);
    });
  }

  const grantList = grantTypes ?? ['authorization_code'];
  if (!Array.isArray(grantList) || grantList.length === 0) p.add('grantTypes', `A non-empty list of: ${WALLET_CLIENT_GRANT_TYPES.join(', ')}`, grantTypes);
  else {
    grantList.forEach((g: unknown, i) => {
      if (!(WALLET_CLIENT_GRANT_TYPES as readonly unknown[]).includes(g)) p.add(`grantTypes.${i}`, `One of ${WALLET_CLIENT_GRANT_TYPES.join(', ')}`, g);
      else if (grantList.indexOf(g) !== i) p.add(`grantTypes.${i}`, 'Listed twice', g);
    });
  }

  const method = tokenEndpointAuthMethod ?? 'none';
  if (!(WALLET_CLIENT_AUTH_METHODS as readonly unknown[]).includes(method))
    p.add('tokenEndpointAuthMethod', `One of ${WALLET_CLIENT_AUTH_METHODS.join(', ')}`, tokenEndpointAuthMethod);

  const flag = (param: string, value: unknown): { required: boolean } | undefined => {
    if (value === undefined) return undefined;
    if (!isPlainObject(value) || typeof value.required !== 'boolean' || Object.keys(value).some((k) => k !== 'required')) {
      p.add(param, 'An object such as { "required": true }', value);
      return undefined;
    }
    return { required: value.required };
  };
  const checkedDpop = flag('dpop', dpop);
  const checkedEncryption = flag('credentialResponseEncryption', credentialResponseEncryption);
  const checkedAttestation = checkAttestation(clientAttestation, (param, msg, value) => p.add(param, msg, value));

  p.throwIfAny();
  return {
    ...(clientId !== undefined ? { clientId: clientId as string } : {}),
    clientName: clientName as string,
    redirectUris: [...(redirectUris as string[])],
    grantTypes: [...(grantList as WalletClientGrantType[])],
    tokenEndpointAuthMethod: method as WalletClientAuthMethod,
    ...(checkedDpop ? { dpop: checkedDpop } : {}),
    ...(checkedAttestation ? { clientAttestation: checkedAttestation } : {}),
    ...(checkedEncryption ? { credentialResponseEncryption: checkedEncryption } : {}),
  };
}

/** `{ rootCertificates, dpopRequired? }`: PEM shape only; chains are checked with each attestation (attestation.ts). */
function checkAttestation(value: unknown, add: (param: string, msg: string, value?: unknown) => void): WalletClient['clientAttestation'] {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    add('clientAttestation', 'An object such as { "rootCertificates": ["-----BEGIN CERTIFICATE-----..."] }', value);
    return undefined;
  }
  let ok = true;
  for (const key of Object.keys(value)) {
    if (key !== 'rootCertificates' && key !== 'dpopRequired') {
      add(`clientAttestation.${key}`, 'Unknown field', value[key]);
      ok = false;
    }
  }
  const roots = checkRootCertificates(value.rootCertificates, 'clientAttestation.rootCertificates', add);
  if (!roots) ok = false;
  if (value.dpopRequired !== undefined && typeof value.dpopRequired !== 'boolean') {
    add('clientAttestation.dpopRequired', 'true or false', value.dpopRequired);
    ok = false;
  }
  if (!ok) return undefined;
  return { rootCertificates: roots as string[], ...(value.dpopRequired !== undefined ? { dpopRequired: value.dpopRequired as boolean } : {}) };
}
