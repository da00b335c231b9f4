// What a grant asks of the wallet (docs/decisions.md "Wallet requirements per configuration and
// offer (issue 30)"): the union of its offer's walletRequirements and those of every configuration
// it grants, each of which must hold.

import type { CredentialConfiguration, WalletRequirements } from '../configurations/model.ts';
import type { OfferRecord } from '../offers/model.ts';

/** The requirements of `offer` (when the grant has one) and of `configurations`, together. */
export function walletRequirementsOf(
  offer: Pick<OfferRecord, 'walletRequirements'> | undefined,
  configurations: readonly Pick<CredentialConfiguration, 'walletRequirements'>[],
): WalletRequirements {
  const asked = [offer?.walletRequirements, ...configurations.map((c) => c.walletRequirements)];
  return {
    ...(asked.some((r) => r?.walletAttestation === true) ? { walletAttestation: true as const } : {}),
    ...(asked.some((r) => r?.dpop === true) ? { dpop: true as const } : {}),
  };
}

/** The refusal for a wallet that must be attested and was not (401 invalid_client, as for a client that registered roots). */
export const WALLET_ATTESTATION_REQUIRED =
  'These credentials require a wallet attestation from a wallet provider this issuer trusts (OAuth-Client-Attestation)';
