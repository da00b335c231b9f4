// cwt and cwt_vc (CBOR Web Tokens, RFC 8392, in a COSE_Sign1, RFC 9052) on the CredentialFormat
// port: signed with ES256 by the tenant's P-256 DID key, bound to the holder's key in `cnf`.

import type { CwtConfiguration } from '../configurations/model.ts';
import type { Problems } from '../shared/body-problems.ts';
import { checkType, CREDENTIAL_TYPE, present } from '../configurations/rules.ts';
import type { Store } from '../ports.ts';
import type { StatusListService } from '../status-lists/service.ts';
import { didKeyOf } from '../dids/did-key.ts';
import type { CommonConfiguration, CredentialFormatHandler, CwtSigner } from './port.ts';
import {
  bindingKeyOf,
  checkSignedFields,
  COSE_ES256,
  DID_SIGNED_HANDLER,
  holderProofTypes,
  issuedCredential,
  revocableStatus,
  signedConfigurationOf,
  VC_CONTEXT,
} from './shared.ts';
import { checkKeyResolution, planSigningBy } from './signing-did.ts';
import type { IssuerSigners } from '../issuer-pki/model.ts';

export interface CwtFormatDeps {
  store: Store;
  signer: CwtSigner;
  /** `cwt` writes the claims flat beside `type`; `cwt_vc` puts them in a `vc` claim. */
  format: 'cwt' | 'cwt_vc';
  /** Gives revocable configurations' credentials their Token Status List entry (a CWT list). */
  statusLists?: Pick<StatusListService, 'allocateReferenced'>;
  /** The leaves of issuer CAs, for configurations whose key resolution is `x5c` (docs/decisions.md "Issuer certificates"). */
  issuerSigners?: Pick<IssuerSigners, 'current'>;
}

/** The cwt or cwt_vc handler. */
export function createCwtFormat(deps: CwtFormatDeps): CredentialFormatHandler<CwtConfiguration> {
  const { format, signer } = deps;

  /**
   * The private claims (RFC 8392 §3, text names). `cwt` writes the mapped claims flat beside the
   * configuration's `type` (a reserved name, so no mapping replaces it). `cwt_vc` writes one `vc`
   * claim holding a W3C VC Data Model 1.1 credential, as the JWT encoding of that model does
   * (§6.3.1): `iss`, `sub`, `nbf` and `exp` stand for its issuer, credentialSubject.id,
   * issuanceDate and expirationDate, so `vc` carries the rest.
   */
  const privateClaims = (type: string, claims: Record<string, unknown>): Record<string, unknown> =>
    format === 'cwt' ? { type, ...claims } : { vc: { '@context': [VC_CONTEXT], type: ['VerifiableCredential', type], credentialSubject: { ...claims } } };

  return {
    format,
    claimLayout: 'flat',
    claimPathPrefix: format === 'cwt_vc' ? ['vc', 'credentialSubject'] : [],
    // The registered claims of a CWT (RFC 8392 §3.1) and the ones Vellum writes; in a cwt_vc the
    // claims sit in vc.credentialSubject, whose `id` is the holder's.
    reservedClaims: format === 'cwt' ? ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'cti', 'cnf', 'status', 'type'] : ['id'],
    signingKey: 'P-256',
    ...DID_SIGNED_HANDLER,
    checkType: (type, problems) => checkType(type, CREDENTIAL_TYPE, 'Letters, digits and . _ : -, up to 200 characters', problems),
    checkFields(body: Record<string, unknown>, problems: Problems) {
      checkSignedFields(body, false, problems);
      checkKeyResolution(body, problems);
    },
    build: (common: CommonConfiguration, body) =>
      present({
        ...common,
        format,
        ...signedConfigurationOf<CwtConfiguration>(body),
        revocable: body.revocable === true,
        keyResolution: body.keyResolution as CwtConfiguration['keyResolution'],
      }),
    metadata: (c) => ({
      ...(format === 'cwt_vc' ? { types: ['VerifiableCredential', c.type] } : { type: c.type }),
      credential_signing_alg_values_supported: [COSE_ES256],
      cryptographic_binding_methods_supported: ['did:key'],
      proof_types_supported: holderProofTypes(),
    }),
    legacyMetadata: (c) => ({ type: c.type, cryptographic_binding_methods_supported: ['did:key'], cryptographic_suites_supported: ['ES256'] }),
    statusEntry: revocableStatus('token-status-list'),
    async issue(request) {
      const { configuration } = request;
      const holderKey = bindingKeyOf(request);
      // With x5c (HAIP 1.0, RFC 9360) the issuer is the credential issuer and the leaf that signs,
      // which names it, travels in the protected x5chain; its CA is the verifier's trust anchor.
      const { iss, key, x509, claims, validFrom, validUntil, entry } = await planSigningBy(request, deps, 'token-cwt');
      const credential = await signer.sign({
        ...key,
        ...(x509 ? { x5chain: x509.x5chain } : {}),
        claims: {
          iss,
          // The holder is named by the did:key of the key it proved; `cnf` binds that key (RFC 8747).
          // An unbound configuration's credential has neither.
          ...(holderKey ? { sub: didKeyOf(holderKey), cnf: holderKey } : {}),
          iat: validFrom,
          nbf: validFrom,
          exp: validUntil,
          claims: privateClaims(configuration.type, claims),
          // IETF Token Status List §6.2: a Referenced Token in CWT form names its list in claim 65535.
          ...(entry ? { status: { idx: entry.idx, uri: entry.uri } } : {}),
        },
      });
      return issuedCredential(credential, { validFrom, validUntil }, entry);
    },
  };
}
