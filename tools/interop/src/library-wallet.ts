// The wallet side the interop suites play with @openid4vc/openid4vci, a library we did not write:
// a wallet with its own key, and the library's steps of a Pre-authorized Code run and of a
// credential request, as each suite takes them in turn. Callbacks are node:crypto and jose.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  type AuthorizationServerMetadata,
  type CallbackContext,
  clientAuthenticationAnonymous,
  type HashAlgorithm,
  type Jwk,
  type JwtSignerJwk,
  type RequestDpopOptions,
} from '@openid4vc/oauth2';
import { type IssuerMetadataResult, Openid4vciClient } from '@openid4vc/openid4vci';
import { importJWK, SignJWT } from 'jose';

/** A wallet: its own P-256 key, and the library's client, which reaches the issuer through `fetch`. */
export function libraryWallet(fetch: typeof globalThis.fetch, clientAuthentication: CallbackContext['clientAuthentication'] = clientAuthenticationAnonymous()) {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = publicKey.export({ format: 'jwk' }) as Jwk;
  const client = new Openid4vciClient({
    callbacks: {
      fetch,
      hash: (data: Uint8Array, alg: HashAlgorithm) => new Uint8Array(createHash(alg.replace('-', '')).update(data).digest()),
      generateRandom: (n: number) => new Uint8Array(randomBytes(n)),
      clientAuthentication,
      signJwt: async (_signer, { header, payload }) => {
        const key = await importJWK(privateKey.export({ format: 'jwk' }), 'ES256');
        const jwt = await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(key);
        return { jwt, signerJwk: publicJwk };
      },
    },
  });
  const signer: JwtSignerJwk = { method: 'jwk', publicJwk, alg: 'ES256' };
  return { client, publicJwk, privateKey, signer };
}

/**
 * The library's Pre-authorized Code run up to the access token: the offer at `uri` resolved, the
 * issuer's metadata read, the code redeemed (with the transaction code and DPoP when given).
 */
export async function preAuthorizedToken(client: Openid4vciClient, uri: string, options: { txCode?: string; dpop?: RequestDpopOptions } = {}) {
  const credentialOffer = await client.resolveCredentialOffer(uri);
  const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer);
  const { accessTokenResponse, dpop } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer, issuerMetadata, ...options });
  return { credentialOffer, issuerMetadata, accessTokenResponse, dpopNonce: dpop?.nonce };
}

/** The library's jwt proof of `signer`'s key for one configuration, over a c_nonce fetched just before. */
export async function keyProof(client: Openid4vciClient, issuerMetadata: IssuerMetadataResult, credentialConfigurationId: string, signer: JwtSignerJwk) {
  const { c_nonce } = await client.requestNonce({ issuerMetadata });
  const { jwt } = await client.createCredentialRequestJwtProof({ issuerMetadata, credentialConfigurationId, signer, nonce: c_nonce });
  return jwt;
}

/** The library's credential request with a fresh proof of `signer`'s key (and DPoP when given); the endpoint's answer body. */
export async function requestCredential(
  client: Openid4vciClient,
  request: { issuerMetadata: IssuerMetadataResult; credentialConfigurationId: string; signer: JwtSignerJwk; accessToken: string; dpop?: RequestDpopOptions },
) {
  const { issuerMetadata, credentialConfigurationId, accessToken } = request;
  const jwt = await keyProof(client, issuerMetadata, credentialConfigurationId, request.signer);
  const response = await client.retrieveCredentials({
    issuerMetadata,
    accessToken,
    credentialConfigurationId,
    proofs: { jwt: [jwt] },
    ...(request.dpop ? { dpop: request.dpop } : {}),
  });
  return response.credentialResponse as { credentials?: Array<{ credential: string }>; notification_id?: string };
}

/** The issuer metadata as a wallet that does not use PAR sees it: the library then sends a plain authorization request. */
export const withoutPar = (metadata: IssuerMetadataResult): IssuerMetadataResult => ({
  ...metadata,
  authorizationServers: metadata.authorizationServers.map(({ pushed_authorization_request_endpoint: _par, ...rest }) => rest as AuthorizationServerMetadata),
});
