import type { Static } from '@sinclair/typebox';
import { Problems } from '../shared/body-problems.ts';
import { invalidField } from '../shared/errors.ts';
import { checkRootCertificates } from '../shared/root-certificates.ts';
import { WALLET_CLIENT_AUTH_METHODS, WALLET_CLIENT_GRANT_TYPES, type WalletClient, type WalletClientAuthMethod, type WalletClientGrantType } from './model.ts';
import { CLIENT_ID_WORDS, MAX_REDIRECT_URI_LENGTH, MAX_WALLET_CLIENT_ID, WalletClientBody } from './schema.ts';

export { MAX_REDIRECT_URI_LENGTH, MAX_REDIRECT_URIS, MAX_WALLET_CLIENT_ID, MAX_WALLET_CLIENT_NAME } from './schema.ts';
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
  if (!isWalletClientId(clientId)) throw invalidField('clientId', CLIENT_ID_WORDS, clientId, 'params');
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

const oneOf = (values: readonly string[]) => (value: string) => (values.includes(value) ? undefined : `One of ${values.join(', ')}`);

/** Each entry's `problem`, if any, and 'Listed twice' for an entry given before; nothing when the list already failed its shape. */
function eachOnce<T>(p: Problems, param: string, list: readonly T[] | undefined, problem: (entry: T) => string | undefined = () => undefined): void {
  if (list === undefined || p.has(param)) return;
  list.forEach((entry, i) => {
    if (p.has(`${param}.${i}`)) return;
    const found = problem(entry) ?? (list.indexOf(entry) !== i ? 'Listed twice' : undefined);
    if (found !== undefined) p.add(`${param}.${i}`, found, entry);
  });
}

/**
 * Checks a wallet client create or replace body (docs/wallet-clients.md): its shape, then the redirect
 * URI and certificate rules, reporting every problem at once.
 * Defaults: grantTypes `["authorization_code"]`, tokenEndpointAuthMethod `none`.
 */
export function checkWalletClientInput(input: unknown): WalletClientSettings {
  const p = new Problems();
  // A body that is no object has nothing more to check.
  if (!p.checkShape(WalletClientBody, input) && p.has('body')) p.throwIfAny();
  const body = input as Static<typeof WalletClientBody>;
  if (body.clientId !== undefined && !p.has('clientId') && !isWalletClientId(body.clientId)) {
    p.add('clientId', `${CLIENT_ID_WORDS}; leave it out and Vellum makes one`, body.clientId);
  }
  eachOnce(p, 'redirectUris', body.redirectUris, redirectUriProblem);
  eachOnce(p, 'grantTypes', body.grantTypes, oneOf(WALLET_CLIENT_GRANT_TYPES));
  const method = body.tokenEndpointAuthMethod ?? 'none';
  const methodProblem = p.has('tokenEndpointAuthMethod') ? undefined : oneOf(WALLET_CLIENT_AUTH_METHODS)(method);
  if (methodProblem !== undefined) p.add('tokenEndpointAuthMethod', methodProblem, method);
  const attestation = body.clientAttestation;
  const param = 'clientAttestation.rootCertificates';
  if (attestation !== undefined && !p.has('clientAttestation') && !p.details.some((d) => d.param.startsWith(param))) {
    checkRootCertificates(attestation.rootCertificates, param, (at, msg, value) => p.add(at, msg, value));
  }
  p.throwIfAny(WalletClientBody);
  return {
    ...(body.clientId !== undefined ? { clientId: body.clientId } : {}),
    clientName: body.clientName,
    redirectUris: [...body.redirectUris],
    grantTypes: [...((body.grantTypes ?? ['authorization_code']) as WalletClientGrantType[])],
    tokenEndpointAuthMethod: method as WalletClientAuthMethod,
    ...(body.dpop ? { dpop: { required: body.dpop.required } } : {}),
    ...(attestation
      ? {
          clientAttestation: {
            rootCertificates: [...attestation.rootCertificates],
            ...(attestation.dpopRequired !== undefined ? { dpopRequired: attestation.dpopRequired } : {}),
          },
        }
      : {}),
    ...(body.credentialResponseEncryption ? { credentialResponseEncryption: { required: body.credentialResponseEncryption.required } } : {}),
  };
}
