import { type ClaimSubject, resolveMdocClaims } from '../configurations/claims.ts';
import type { MdocConfiguration } from '../configurations/model.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { IssuingChains } from '../mdoc-pki/signers.ts';
import type { Clock, MdocEngine } from '../ports.ts';
import { statusUnavailable } from '../credential-formats/shared.ts';
import { type DomainError, invalidField, isDomainError } from '../shared/errors.ts';
import { validityOf } from '../credential-formats/validity.ts';
import type { Tenant } from '../tenancy/model.ts';

export interface MdocIssuanceDeps {
  clock: Clock;
  engine: MdocEngine;
  /** Picks (and for managed IACAs rotates) the IACA and document signer that sign. */
  chains: IssuingChains;
}

/** What to issue: a configuration, the user's claims, and the key the credential is bound to. */
export interface IssueMdocRequest {
  tenant: Tenant;
  configuration: MdocConfiguration;
  /** The user object claims are mapped from (API.md §6). */
  subject: ClaimSubject;
  /** The holder's P-256 key: the MSO's deviceKey. */
  holderKey: PublicJwk;
  /** The issuance time (default: the clock's now). The credential is valid from it for the configuration's `expiresIn`. */
  now?: Date;
}

export interface IssuedMdoc {
  /** OpenID4VCI's `credential` for mso_mdoc: base64url of the CBOR IssuerSigned. */
  credential: string;
  docType: string;
  /** The MSO's validityInfo, ISO 8601 at whole seconds. */
  validFrom: string;
  validUntil: string;
  /** The IACA and document signer that signed it. */
  iacaId: string;
  documentSignerId: string;
}

/** Issues mDocs for any flow (OpenID4VCI or an embedding host): one call with plain values. */
export interface MdocIssuance {
  /**
   * Resolves the claims (none, a missing required one or a wrong type: 400), computes the validity
   * (an already expired credential is refused: specification 7.6), picks the signing chain (no
   * active IACA: 400) and signs. Records no analytic event: the flow that calls it does.
   */
  issue(request: IssueMdocRequest): Promise<IssuedMdoc>;
}

/** The 400 for a configuration that asks for a status list entry, which Vellum cannot write yet. */
export function statusListsUnavailable(): DomainError {
  return statusUnavailable('mdoc-status-list');
}

/** mDoc issuance (ISO/IEC 18013-5) independent of OpenID4VCI: the core use case every flow calls. */
export function createMdocIssuance(deps: MdocIssuanceDeps): MdocIssuance {
  const { clock, engine, chains } = deps;

  return {
    async issue(request) {
      const { tenant, configuration, subject, holderKey } = request;
      if (configuration.format !== 'mso_mdoc') throw invalidField('configuration.format', 'An mso_mdoc configuration', configuration.format);
      if (configuration.includeStatus) throw statusListsUnavailable();
      const now = request.now ?? clock.now();
      const namespaces = resolveMdocClaims(configuration.claimMappings, subject);
      // Whole seconds, as the MSO writes them: a credential that ends within this second is expired too.
      const { validUntil } = validityOf(now, configuration.expiresIn, clock.now());
      const sign = async () => {
        const chain = await chains.current(tenant, now, validUntil.getTime() - now.getTime());
        const issued = await engine.issue({
          tenantId: tenant.id,
          docType: configuration.type,
          namespaces,
          deviceKey: holderKey,
          validity: { signed: now, validFrom: now, validUntil },
          signer: { keyId: chain.signer.keyId, x5chain: chain.x5chain },
        });
        return { issued, chain };
      };
      let result: Awaited<ReturnType<typeof sign>>;
      try {
        result = await sign();
      } catch (error) {
        // The signer's key was destroyed (revoked or deleted through another server) after this
        // process cached it: read the chain again and sign once more.
        if (!isDomainError(error) || error.code !== 'NotFound') throw error;
        chains.invalidate(tenant.id);
        result = await sign();
      }
      return {
        credential: result.issued.credential,
        docType: configuration.type,
        validFrom: result.issued.validFrom.toISOString(),
        validUntil: result.issued.validUntil.toISOString(),
        iacaId: result.chain.iaca.id,
        documentSignerId: result.chain.signer.id,
      };
    },
  };
}
