// ldp_vc (W3C Verifiable Credentials Data Model 1.1 with a Linked Data proof) on the
// CredentialFormat port: signed by the tenant's Ed25519 DID key, bound to the holder's did:key.

import type { LdpVcConfiguration } from '../configurations/model.ts';
import { checkColor, checkHttpsUrl, checkKnownFields, checkList, checkType, CREDENTIAL_TYPE, isHttpsUrl, present } from '../configurations/rules.ts';
import type { Store } from '../ports.ts';
import { isPlainObject, type Problems } from '../shared/body-problems.ts';
import type { Ids } from '../shared/ports.ts';
import type { StatusListService } from '../status-lists/service.ts';
import { didKeyOf } from '../dids/did-key.ts';
import { DomainError, isDomainError } from '../shared/errors.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { CommonConfiguration, CredentialFormatHandler, FormatIssueRequest, LinkedDataSigner } from './port.ts';
import {
  bindingKeyOf,
  checkSignedFields,
  DID_SIGNED_HANDLER,
  holderProofTypes,
  issuedCredential,
  revocableStatus,
  signedConfigurationOf,
  VC_CONTEXT,
} from './shared.ts';
import { planSigning } from './signing-did.ts';
import { isoSeconds } from './validity.ts';

/** The Linked Data proof suites an ldp_vc configuration may ask for; the first is the default. */
export const LDP_PROOF_TYPES = ['Ed25519Signature2018', 'Ed25519Signature2020'] as const;

const LD_TYPE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
// The revocation list context is added by Vellum when the configuration is revocable.
const UNUSABLE_CONTEXTS: readonly string[] = [VC_CONTEXT, 'https://w3id.org/security/suites/ed25519-2018/v1', 'https://w3id.org/vc-revocation-list-2020/v1'];

/**
 * The last entry of every credential's @context. Credentials v1 defines only its own terms, and a
 * Linked Data proof cannot cover a member that no context defines (JSON-LD drops it). Ending the
 * context with a default vocabulary (JSON-LD 1.1 §4.1.2 `@vocab`) gives every other term, the
 * configuration's type, its claims and the legacy issuer and branding members, an IRI under
 * https://schema.org/ without fetching anything. It defines no term, so it redefines none of
 * credentials v1's protected ones, and terms that context defines keep their meaning.
 */
/** The context that defines RevocationList2020Status (bundled with the signer). */
export const REVOCATION_LIST_CONTEXT = 'https://w3id.org/vc-revocation-list-2020/v1';

export const LDP_CLAIM_VOCABULARY: Readonly<Record<'@vocab', string>> = { '@vocab': 'https://schema.org/' };

/**
 * The unsigned credential (W3C VC Data Model 1.1 §4): the current shape, or the legacy one of
 * docs/formats/ldp-vc.md with the issuer as an object and the configuration's branding, name and
 * description beside it.
 */
function unsignedCredential(
  request: FormatIssueRequest<LdpVcConfiguration>,
  holderKey: PublicJwk | undefined,
  parts: { id: string; issuer: string; claims: Record<string, unknown>; validFrom: Date; validUntil: Date; status?: { idx: number; uri: string } | undefined },
): Record<string, unknown> {
  const { configuration: c, form } = request;
  const { name, logoUrl, iconUrl } = c.issuer;
  const credential: Record<string, unknown> = {
    '@context': [VC_CONTEXT, ...(c.contexts ?? []), ...(parts.status ? [REVOCATION_LIST_CONTEXT] : []), { ...LDP_CLAIM_VOCABULARY }],
    id: parts.id,
    type: ['VerifiableCredential', c.type, ...(c.additionalTypes ?? [])],
    issuer: form === 'legacy' ? present({ id: parts.issuer, name, logoUrl, iconUrl }) : parts.issuer,
    issuanceDate: isoSeconds(parts.validFrom),
    expirationDate: isoSeconds(parts.validUntil),
    // The holder is named by the did:key of the key it proved possession of (§4.4 subject id); an
    // unbound configuration's credential names no holder (the id is optional there).
    credentialSubject: { ...(holderKey ? { id: didKeyOf(holderKey) } : {}), ...parts.claims },
    // W3C CCG Revocation List 2020 §2.1, the shape docs/formats/ldp-vc.md shows for legacy credentials.
    ...(parts.status
      ? {
          credentialStatus: {
            id: `${parts.status.uri}#${parts.status.idx}`,
            type: 'RevocationList2020Status',
            revocationListIndex: String(parts.status.idx),
            revocationListCredential: parts.status.uri,
          },
        }
      : {}),
  };
  if (form === 'legacy') {
    if (c.credentialBranding !== undefined) credential.credentialBranding = present({ ...c.credentialBranding });
    if (c.name !== undefined) credential.name = c.name;
    if (c.description !== undefined) credential.description = c.description;
  }
  return credential;
}

export interface LdpVcFormatDeps {
  store: Store;
  ids: Ids;
  /** Gives revocable configurations' credentials their RevocationList2020 entry. */
  statusLists?: Pick<StatusListService, 'allocateReferenced'>;
  /** Signs the credential; its `contexts` are the only ones a configuration may name. */
  signer: LinkedDataSigner;
}

/** The ldp_vc handler. */
export function createLdpVcFormat(deps: LdpVcFormatDeps): CredentialFormatHandler<LdpVcConfiguration> {
  const { signer, ids } = deps;
  const bundled = new Set(signer.contexts);
  return {
    format: 'ldp_vc',
    claimLayout: 'flat',
    claimPathPrefix: ['credentialSubject'],
    // The holder's DID goes into credentialSubject.id; `type` would make a claim an RDF class, and
    // `proof` would read as a proof's IRI (JSON-LD 1.1 §4.3, VC Data Model 1.1 §4.3, §4.7).
    reservedClaims: ['id', 'type', 'proof'],
    signingKey: 'Ed25519',
    ...DID_SIGNED_HANDLER,
    checkType: (type, problems) => checkType(type, CREDENTIAL_TYPE, 'Letters, digits and . _ : -, up to 200 characters', problems),
    checkFields(body: Record<string, unknown>, problems: Problems) {
      checkSignedFields(body, true, problems);
      // Contexts are never fetched (they would change what was signed): only bundled ones can be used,
      // and not credentials v1 (always first) nor the 2018 suite's, which redefines a term that
      // credentials v1 protects (JSON-LD 1.1 §4.1.11).
      const usable = [...bundled].filter((url) => !UNUSABLE_CONTEXTS.includes(url));
      checkList(
        'contexts',
        body.contexts,
        (url) => isHttpsUrl(url) && usable.includes(url),
        `JSON-LD context bundled with Vellum (${usable.join(', ')})`,
        problems,
      );
      // A claim named as a blank node (`_:x`) is dropped by JSON-LD, so no proof would cover it.
      if (isPlainObject(body.claimMappings)) {
        for (const claim of Object.keys(body.claimMappings))
          if (claim.startsWith('_:')) problems.add(`claimMappings.${claim}`, 'A claim name may not start with _: (JSON-LD reads it as a blank node)', claim);
      }
      checkList(
        'additionalTypes',
        body.additionalTypes,
        (t) => LD_TYPE.test(t) && t !== 'VerifiableCredential' && t !== body.type,
        'credential type other than VerifiableCredential and type',
        problems,
      );
      if (body.proofType !== undefined && !(LDP_PROOF_TYPES as readonly unknown[]).includes(body.proofType)) {
        problems.add('proofType', `One of ${LDP_PROOF_TYPES.join(', ')}`, body.proofType);
      }
      const branding = body.credentialBranding;
      if (branding !== undefined) {
        if (!isPlainObject(branding)) problems.add('credentialBranding', 'A { backgroundColor, watermarkImageUrl } object', branding);
        else {
          checkKnownFields('credentialBranding', branding, ['backgroundColor', 'watermarkImageUrl'], problems);
          checkColor('credentialBranding.backgroundColor', branding.backgroundColor, problems);
          checkHttpsUrl('credentialBranding.watermarkImageUrl', branding.watermarkImageUrl, problems);
        }
      }
    },
    build: (common: CommonConfiguration, body) =>
      present({
        ...common,
        format: 'ldp_vc',
        ...signedConfigurationOf<LdpVcConfiguration>(body),
        contexts: body.contexts as string[] | undefined,
        additionalTypes: body.additionalTypes as string[] | undefined,
        proofType: (body.proofType as LdpVcConfiguration['proofType'] | undefined) ?? LDP_PROOF_TYPES[0],
        credentialBranding: body.credentialBranding as LdpVcConfiguration['credentialBranding'],
        revocable: body.revocable === true,
      }),
    metadata: (c) => ({
      credential_definition: { '@context': [VC_CONTEXT, ...(c.contexts ?? [])], type: ['VerifiableCredential', c.type, ...(c.additionalTypes ?? [])] },
      credential_signing_alg_values_supported: [c.proofType],
      cryptographic_binding_methods_supported: ['did:key'],
      proof_types_supported: holderProofTypes(),
    }),
    legacyMetadata: (c) => ({
      '@context': [VC_CONTEXT, ...(c.contexts ?? [])],
      type: ['VerifiableCredential', c.type, ...(c.additionalTypes ?? [])],
      credentialSubject: Object.fromEntries(Object.keys(c.claimMappings).map((k) => [k, {}])),
      cryptographic_binding_methods_supported: ['did:key'],
      cryptographic_suites_supported: [c.proofType],
    }),
    statusEntry: revocableStatus('status-list-credential'),
    async issue(request) {
      const { tenant, configuration } = request;
      const holderKey = bindingKeyOf(request);
      const { claims, validFrom, validUntil, did, key, entry: status } = await planSigning(request, deps, 'Ed25519', 'revocation-list');
      const document = unsignedCredential(request, holderKey, { id: `urn:uuid:${ids.uuid()}`, issuer: did, claims, validFrom, validUntil, status });
      const credential = await signer
        .sign({
          tenantId: tenant.id,
          keyId: key.kmsKeyId,
          type: configuration.proofType,
          verificationMethod: key.didDocumentKeyId,
          proofPurpose: 'assertionMethod',
          created: isoSeconds(validFrom),
          document,
        })
        .catch((error: unknown) => {
          // The signer refuses a document JSON-LD cannot carry whole (a claim value with a relative
          // IRI, say): the user's claims do not fit, which is the request's fault, not the server's.
          if (isDomainError(error)) throw error;
          throw new DomainError('BadRequest', `The claims cannot be signed as JSON-LD: ${(error as Error).message}`);
        });
      return issuedCredential(credential, { validFrom, validUntil }, status);
    },
  };
}
