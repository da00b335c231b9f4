// mso_mdoc (ISO/IEC 18013-5) on the CredentialFormat port: the configuration's namespaced claims,
// its metadata entries, the legacy `doctype` request, and issuance through the mDoc use case.

import type { MdocConfiguration } from '../configurations/model.ts';
import type { Problems } from '../shared/body-problems.ts';
import { checkBoolean, checkType, CREDENTIAL_TYPE, isMdlDocType, MAX_MDL_VALIDITY_DAYS, MAX_VALIDITY_DAYS } from '../configurations/rules.ts';
import type { MdocIssuance } from '../mdoc-issuance/service.ts';
import { DomainError } from '../shared/errors.ts';
import type { CommonConfiguration, CredentialFormatHandler } from './port.ts';
import { bindingKeyOf, COSE_ES256 } from './shared.ts';

export interface MdocFormatDeps {
  /** The mDoc use case, which signs under the tenant's active IACA. */
  issuance: MdocIssuance;
}

/** The mso_mdoc handler. */
export function createMdocFormat(deps: MdocFormatDeps): CredentialFormatHandler<MdocConfiguration> {
  const { issuance } = deps;
  return {
    format: 'mso_mdoc',
    claimLayout: 'namespaced',
    claimPathPrefix: [],
    reservedClaims: [],
    // Device keys are P-256, so their proofs are ES256 (ISO/IEC 18013-5 §9.1.2.4).
    proofAlgorithms: ['ES256'],
    holderBindingRequired:
      'An mDoc is always bound to a device key (the MSO’s deviceKey, ISO/IEC 18013-5 §9.1.2.4): mso_mdoc configurations cannot turn holder binding off',
    maxValidityDays: (type) => (typeof type === 'string' && isMdlDocType(type) ? MAX_MDL_VALIDITY_DAYS : MAX_VALIDITY_DAYS),
    checkType: (type, problems) => checkType(type, CREDENTIAL_TYPE, 'A docType such as org.iso.18013.5.1.mDL', problems),
    checkFields(body: Record<string, unknown>, problems: Problems) {
      checkBoolean('includeStatus', body.includeStatus, problems);
    },
    build: (common: CommonConfiguration, body) => ({
      ...common,
      format: 'mso_mdoc',
      claimMappings: body.claimMappings as MdocConfiguration['claimMappings'],
      includeStatus: body.includeStatus === true,
    }),
    metadata: (c) => ({
      doctype: c.type,
      credential_signing_alg_values_supported: [COSE_ES256],
      cryptographic_binding_methods_supported: ['cose_key'],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
    }),
    legacyMetadata: (c) => ({ doctype: c.type, cryptographic_binding_methods_supported: ['mso'], cryptographic_suites_supported: ['ES256'] }),
    legacyRequestTypes(body) {
      const { doctype } = body;
      if (typeof doctype !== 'string' || doctype.length === 0 || doctype.length > 200) {
        const message = 'A legacy mso_mdoc request names its doctype';
        throw new DomainError('BadRequest', message, {
          oauthError: 'invalid_credential_request',
          details: [{ ...(typeof doctype === 'object' || doctype === undefined ? {} : { value: doctype }), msg: message, param: 'doctype', location: 'body' }],
        });
      }
      return [doctype];
    },
    statusEntry: (c) => (c.includeStatus ? 'mdoc-status-list' : undefined),
    async issue(request) {
      const { tenant, configuration, subject, now, credentialIssuer } = request;
      const holderKey = bindingKeyOf({ configuration: {}, holderKey: request.holderKey }) as NonNullable<typeof request.holderKey>;
      const issued = await issuance.issue({ tenant, configuration, subject, holderKey, now, origin: credentialIssuer });
      return {
        credential: issued.credential,
        validFrom: issued.validFrom,
        validUntil: issued.validUntil,
        ...(issued.statusEntry ? { statusEntry: issued.statusEntry } : {}),
      };
    },
  };
}
