import type { ClaimSubject } from '../configurations/claims.ts';
import type { CredentialConfiguration } from '../configurations/model.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { Clock } from '../shared/ports.ts';
import type { Tenant } from '../tenancy/model.ts';
import type { FormatRegistry, IssuedCredential } from './port.ts';

/** What to issue, in any format: a configuration, the user's claims, and the key the credential is bound to. */
export interface IssueCredentialRequest {
  tenant: Tenant;
  configuration: CredentialConfiguration;
  /** The user object claims are mapped from (docs/decisions.md "Credential configurations"). */
  subject: ClaimSubject;
  /** The holder's public key: the credential is bound to it. Absent only for a configuration with `holderBinding: false`. */
  holderKey?: PublicJwk;
  /** The credential issuer identifier (an https origin) the credential is issued under. */
  credentialIssuer: string;
  /** The issuance time (default: the clock's now). */
  now?: Date;
  /** The request shape that asked (default `current`); only ldp_vc's legacy credential differs. */
  form?: 'current' | 'legacy';
}

/** Issues credentials of every format for any flow (OpenID4VCI or an embedding host). */
export interface CredentialIssuance {
  /**
   * Issues one credential through its format's handler. A configuration whose credentials must
   * carry a status entry is refused (400) until status lists are built; so are claims that do not
   * satisfy the configuration, an already expired credential and a missing signing key.
   */
  issue(request: IssueCredentialRequest): Promise<IssuedCredential>;
}

export interface CredentialIssuanceDeps {
  clock: Clock;
  formats: FormatRegistry;
}

/** The core use case of issuance: the registry's handler for the configuration's format. */
export function createCredentialIssuance(deps: CredentialIssuanceDeps): CredentialIssuance {
  const { clock, formats } = deps;
  return {
    async issue(request) {
      const handler = formats.of(request.configuration);
      return handler.issue({
        tenant: request.tenant,
        configuration: request.configuration as never,
        subject: request.subject,
        ...(request.holderKey ? { holderKey: request.holderKey } : {}),
        credentialIssuer: request.credentialIssuer,
        now: request.now ?? clock.now(),
        form: request.form ?? 'current',
      });
    },
  };
}
