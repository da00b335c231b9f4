import type { SecretHasher } from '../shared/ports.ts';
import { DomainError } from '../shared/errors.ts';
import type { WalletClient, WalletClientAuthMethod, WalletClientRepository } from './model.ts';
import { isWalletClientId } from './rules.ts';

/** What a token request presents to authenticate its client (RFC 6749 §2.3). */
export interface PresentedClient {
  /** The form's `client_id`. */
  clientId?: string;
  /** The HTTP `Authorization` header, as received. */
  authorization?: string;
  /** The form's `client_secret`. */
  clientSecret?: string;
}

export interface WalletClientAuthDeps {
  store: { walletClients: Pick<WalletClientRepository, 'get'> };
  hasher: SecretHasher;
}

/** Longer secrets are none Vellum made; they are refused without hashing all of them. */
const MAX_SECRET = 512;
/** Longer Authorization headers carry no client id and secret Vellum made. */
const MAX_AUTHORIZATION = 2048;
/** Not a hash any hasher makes: checking a secret against it fails, at the cost of a real check. */
const NO_HASH = 'none$unknown-client';

const FAILED = 'Client authentication failed: unknown client, wrong secret, or not the authentication method the client registered';
const invalidClient = () => new DomainError('Unauthorized', FAILED, { oauthError: 'invalid_client' });
// Wallets read these as error_description: printable ASCII without `"` and `\` (RFC 6749 §5.2).
const invalidRequest = (message: string) => new DomainError('BadRequest', message, { oauthError: 'invalid_request' });

/** `application/x-www-form-urlencoded` decoding of one part of a Basic credential (RFC 6749 §2.3.1); undefined when malformed. */
function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * The client id and secret of an `Authorization: Basic` header (RFC 7617 §2, RFC 6749 §2.3.1:
 * both form-urlencoded, then joined by `:` and base64-encoded). Another scheme, or a malformed
 * credential, fails client authentication.
 */
function parseBasic(header: string): { clientId: string; secret: string } {
  const match = header.length <= MAX_AUTHORIZATION ? /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header) : null;
  const encoded = match?.[1];
  if (encoded === undefined || encoded.length % 4 !== 0) throw invalidClient();
  let text: string;
  try {
    const raw = atob(encoded);
    text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(raw, (c) => c.charCodeAt(0)));
  } catch {
    throw invalidClient();
  }
  const colon = text.indexOf(':');
  const clientId = colon > 0 ? formDecode(text.slice(0, colon)) : undefined;
  const secret = colon > 0 ? formDecode(text.slice(colon + 1)) : undefined;
  if (clientId === undefined || secret === undefined) throw invalidClient();
  return { clientId, secret };
}

/** The client a token request names and how it authenticates (RFC 6749 §2.3): `secret` is undefined for a public client. */
export interface ClientCredentials {
  method: WalletClientAuthMethod;
  clientId: string | undefined;
  secret: string | undefined;
}

/**
 * What a token request presents, read (RFC 6749 §2.3, §3.2.1): `none` sends `client_id` and no
 * secret, `client_secret_basic` the Authorization header, `client_secret_post` `client_id` and
 * `client_secret` in the form. One way only (RFC 6749 §2.3), else 400 `invalid_request`; a
 * malformed Authorization header is 401 `invalid_client`.
 */
export function clientCredentials(presented: PresentedClient): ClientCredentials {
  const basic = presented.authorization !== undefined && presented.authorization !== '' ? parseBasic(presented.authorization) : undefined;
  if (basic && presented.clientSecret !== undefined) {
    throw invalidRequest('Authenticate the client one way only: the Authorization header or client_secret, not both (RFC 6749 section 2.3)');
  }
  if (basic && presented.clientId !== undefined && presented.clientId !== basic.clientId) {
    throw invalidRequest('client_id differs from the client the Authorization header names');
  }
  return {
    method: basic ? 'client_secret_basic' : presented.clientSecret !== undefined ? 'client_secret_post' : 'none',
    clientId: basic?.clientId ?? presented.clientId,
    secret: basic?.secret ?? presented.clientSecret,
  };
}

/**
 * Checks `credentials` against `client`, the stored client they name (undefined for none): it must
 * use the method it registered, with its secret. Every failure is 401 `invalid_client` with one
 * message for all causes; whenever a secret is presented exactly one hasher check runs, so neither
 * timing nor wording tells which ids exist.
 */
export async function checkClientCredentials(hasher: SecretHasher, credentials: ClientCredentials, client: WalletClient | undefined): Promise<WalletClient> {
  const { method, secret } = credentials;
  if (secret === undefined) {
    // A public client: nothing to check but that it is one.
    if (client?.tokenEndpointAuthMethod === 'none') return client;
    throw invalidClient();
  }
  const expected = client && client.tokenEndpointAuthMethod === method && secret.length <= MAX_SECRET ? client.secretHash : undefined;
  // One slow check on every path that presents a secret: against the client's hash, or a decoy.
  const ok = await hasher.verify(secret.slice(0, MAX_SECRET), expected ?? NO_HASH);
  if (!ok || expected === undefined || !client) throw invalidClient();
  return client;
}

/** The tenant's registered client that `credentials` name, or undefined (none named, or none such); reads nothing for ids no client can have. */
export async function findNamedClient(
  deps: Pick<WalletClientAuthDeps, 'store'>,
  tenantId: string,
  credentials: ClientCredentials,
): Promise<WalletClient | undefined> {
  return isWalletClientId(credentials.clientId) ? deps.store.walletClients.get(tenantId, credentials.clientId) : undefined;
}

/** Authenticates the wallet client of a token request (RFC 6749 §2.3): its credentials read, its record found, the two checked. */
export async function authenticateWalletClient(deps: WalletClientAuthDeps, tenantId: string, presented: PresentedClient): Promise<WalletClient> {
  const credentials = clientCredentials(presented);
  return checkClientCredentials(deps.hasher, credentials, await findNamedClient(deps, tenantId, credentials));
}

/** Whether `uri` is one of the client's registered redirect URIs: exact string comparison, nothing normalised (RFC 9700 §4.1.3). */
export function redirectUriRegistered(client: Pick<WalletClient, 'redirectUris'>, uri: string): boolean {
  return client.redirectUris.includes(uri);
}
