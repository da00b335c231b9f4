/** OpenID4VCI's grant type for pre-authorized codes. */
export const PRE_AUTHORIZED_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
export const OFFER_SCHEME = 'openid-credential-offer://';

/** What a wallet is told about the transaction code it will be asked for (OpenID4VCI 1.0 §4.1.1). */
export interface TxCodeDescription {
  length?: number;
  input_mode: 'numeric' | 'text';
  description?: string;
}

/** The credential offer object (OpenID4VCI 1.0 §4.1; OpenID4VCI 1.0 §4.1.1). */
export interface CredentialOffer {
  credential_issuer: string;
  credential_configuration_ids: string[];
  /** Deprecated draft-13 spelling of the same ids (OpenID4VCI draft 13). */
  credentials: string[];
  grants: {
    authorization_code?: { issuer_state: string };
    [PRE_AUTHORIZED_CODE_GRANT]?: { 'pre-authorized_code': string; tx_code?: TxCodeDescription };
  };
  request_parameters?: Record<string, unknown>;
}

export interface OfferGrant {
  preAuthorizedCode?: { code: string; txCode?: TxCodeDescription };
  authorizationCode?: { issuerState: string };
}

/** Builds the offer object a wallet receives. */
export function buildCredentialOffer(
  issuer: string,
  configurationIds: string[],
  grant: OfferGrant,
  requestParameters?: Record<string, unknown>,
): CredentialOffer {
  const grants: CredentialOffer['grants'] = {};
  if (grant.authorizationCode) grants.authorization_code = { issuer_state: grant.authorizationCode.issuerState };
  if (grant.preAuthorizedCode) {
    grants[PRE_AUTHORIZED_CODE_GRANT] = {
      'pre-authorized_code': grant.preAuthorizedCode.code,
      ...(grant.preAuthorizedCode.txCode ? { tx_code: grant.preAuthorizedCode.txCode } : {}),
    };
  }
  return {
    credential_issuer: issuer,
    credential_configuration_ids: [...configurationIds],
    credentials: [...configurationIds],
    grants,
    ...(requestParameters && Object.keys(requestParameters).length > 0 ? { request_parameters: requestParameters } : {}),
  };
}

/** The offer URI carrying the offer itself, URL-encoded (OpenID4VCI 1.0 §4.1). */
export function offerUriByValue(offer: CredentialOffer): string {
  return `${OFFER_SCHEME}?credential_offer=${encodeURIComponent(JSON.stringify(offer))}`;
}

/** The offer URI pointing at where the offer can be fetched (docs/decisions.md "Users, offers, the token and nonce endpoints", `byReference`). */
export function offerUriByReference(offerUrl: string): string {
  return `${OFFER_SCHEME}?credential_offer_uri=${encodeURIComponent(offerUrl)}`;
}
