// What a grant asks of the wallet (docs/decisions.md "Wallet requirements per configuration and
// offer (issue 30)"): the union of its offer's walletRequirements and those of every configuration
// it grants, each of which must hold.

/** The refusal for a wallet that must be attested and was not (401 invalid_client, as for a client that registered roots). */
export const WALLET_ATTESTATION_REQUIRED =
  'These credentials require a wallet attestation from a wallet provider this issuer trusts (OAuth-Client-Attestation)';
