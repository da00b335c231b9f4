import { type ClaimSubject, resolveMdocClaims } from '../configurations/claims.ts';
import type { MdocConfiguration } from '../configurations/model.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { IssuingChains } from '../mdoc-pki/signers.ts';
import type { MdocEngine } from '../credential-formats/port.ts';
import type { Clock } from '../shared/ports.ts';
import type { StatusListService } from '../status-lists/service.ts';
import { DomainError, invalidField, isDomainError } from '../shared/errors.ts';
import { validityOf } from '../credential-formats/validity.ts';
import type { Tenant } from '../tenancy/model.ts';

export interface MdocIssuanceDeps {
  clock: Clock;
  engine: MdocEngine;
  /** Picks (and for managed IACAs rotates) the IACA and document signer that sign. */
  chains: IssuingChains;
  /** Gives configurations with includeStatus their status list entry; without it they are refused. */
  statusLists?: Pick<StatusListService, 'allocate'>;
}

/** What to issue: a configuration, the user's claims, and the key the credential is bound to. */
export interface IssueMdocRequest {
  tenant: Tenant;
  configuration: MdocConfiguration;
  /** The user object claims are mapped from (docs/decisions.md "Credential configurations"). */
  subject: ClaimSubject;
  /** The holder's P-256 key: the MSO's deviceKey. */
  holderKey: PublicJwk;
  /** The issuance time (default: the clock's now). The credential is valid from it for the configuration's `expiresIn`. */
  now?: Date;
  /**
   * The origin the tenant's status list tokens are served at (its credential issuer identifier):
   * required when the configuration sets includeStatus.
   */
  origin?: string;
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
  /**
   * Its status list entry, when the configuration sets includeStatus: the caller records it with
   * the credential (`statusLists.insertEntry`), as the credential endpoint does.
   */
  statusEntry?: { listId: string; idx: number };
}

/** Issues mDocs for any flow (OpenID4VCI or an embedding host): one call with plain values. */
export interface MdocIssuance {
  /**
   * Resolves the claims (none, a missing required one or a wrong type: 400), computes the validity
   * (an already expired credential is refused: docs/decisions.md "Credential configurations"), picks the signing chain (no
   * active IACA: 400) and signs. Records no analytic event: the flow that calls it does.
   */
  issue(request: IssueMdocRequest): Promise<IssuedMdoc>;
}

/** The 400 for a configuration that asks for a status list entry where no status lists are wired (an embedding host without them). */
export function statusListsUnavailable(): DomainError {
  return new DomainError(
    'BadRequest',
    'This configuration sets includeStatus, so every mDoc needs a status list entry, and this issuance has none to give (an embedding host passes `origin` and wires status lists). Vellum does not issue a credential without the status entry it promises.',
    { details: [{ value: true, msg: 'No status list to take an entry from', param: 'includeStatus', location: 'body' }] },
  );
}

/** mDoc issuance (ISO/IEC 18013-5) independent of OpenID4VCI: the core use case every flow calls. */
export function createMdocIssuance(deps: MdocIssuanceDeps): MdocIssuance {
  const { clock, engine, chains } = deps;

  return {
    async issue(request) {
      const { tenant, configuration, subject, holderKey } = request;
      if (configuration.format !== 'mso_mdoc') throw invalidField('configuration.format', 'An mso_mdoc configuration', configuration.format);
      if (configuration.includeStatus && (!deps.statusLists || request.origin === undefined)) throw statusListsUnavailable();
      const now = request.now ?? clock.now();
      const namespaces = resolveMdocClaims(configuration.claimMappings, subject);
      // Whole seconds, as the MSO writes them: a credential that ends within this second is expired too.
      const { validUntil } = validityOf(now, configuration.expiresIn, clock.now());
      // Taken before signing, as the MSO names it; an entry whose credential is never recorded stays valid and unused.
      const status = configuration.includeStatus ? await deps.statusLists?.allocate(tenant, configuration.type, request.origin as string) : undefined;
      const sign = async () => {
        const chain = await chains.current(tenant, now, validUntil.getTime() - now.getTime());
        const issued = await engine.issue({
          tenantId: tenant.id,
          docType: configuration.type,
          namespaces,
          deviceKey: holderKey,
          validity: { signed: now, validFrom: now, validUntil },
          ...(status ? { status: { field: status.field, idx: status.idx, uri: status.uri } } : {}),
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
        ...(status ? { statusEntry: { listId: status.listId, idx: status.idx } } : {}),
      };
    },
  };
}
