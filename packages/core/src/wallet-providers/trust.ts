import type { JwtCheck } from '../oauth/jwt-proofs.ts';

export type WalletProviderPurpose = 'walletAttestation' | 'keyAttestation';
export interface WalletProviderTrust {
  any(tenantId: string, purpose: WalletProviderPurpose): Promise<boolean>;
  verify(
    tenantId: string,
    jwt: string,
    options: { purpose: WalletProviderPurpose; algorithms: readonly string[]; at: Date },
  ): Promise<JwtCheck<{ providerId: string }>>;
}
