// dc+sd-jwt (IETF SD-JWT VC) on the CredentialFormat port: an SD-JWT signed by the tenant's P-256
// DID key, the configured claims selectively disclosable, bound to the holder's key in `cnf.jwk`.

import type { DisclosureRule, SdJwtConfiguration, TypeMetadata } from '../configurations/model.ts';
import type { Digests } from '../shared/ports.ts';
import { isPlainObject, type Problems } from '../shared/body-problems.ts';
import { checkList, checkType, present, VCT_TYPE } from '../configurations/rules.ts';
import type { Store } from '../ports.ts';
import type { StatusListService } from '../status-lists/service.ts';
import type { IssuerSigners } from '../issuer-pki/model.ts';
import type { CommonConfiguration, CredentialFormatHandler, FormatIssueRequest, SdJwtSigner } from './port.ts';
import { bindingKeyOf, checkSignedFields, DID_SIGNED_HANDLER, holderProofTypes, issuedCredential, revocableStatus, signedConfigurationOf } from './shared.ts';
import { checkKeyResolution, planSigningBy, type ResolvedSigning } from './signing-did.ts';
import { TYPE_METADATA_PATH, TYPE_NAME, typeMetadataOf } from './type-metadata.ts';

/** A JWT NumericDate: whole seconds since the epoch (RFC 7519 §2). */
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export interface SdJwtFormatDeps {
  store: Store;
  signer: SdJwtSigner;
  /** Gives revocable configurations' credentials their Token Status List entry (a JWT list). */
  statusLists?: Pick<StatusListService, 'allocateReferenced'>;
  /** The leaves of issuer CAs, for configurations whose key resolution is `x5c` (docs/decisions.md "Issuer certificates"). */
  issuerSigners?: Pick<IssuerSigners, 'current'>;
  /** Hashes the type metadata a configuration publishes, for `vct#integrity`; required once a configuration has `typeMetadata`. */
  digests?: Pick<Digests, 'sha256'>;
}

/** Absent a list, every claim is disclosable; a listed claim the subject has no value for is simply not there. */
function disclosableOf(configuration: SdJwtConfiguration, claims: Record<string, unknown>, registered: Record<string, unknown>): string[] {
  return (configuration.selectivelyDisclosable ?? Object.keys(claims)).filter((name) => Object.hasOwn(claims, name) && !Object.hasOwn(registered, name));
}

/** The claims an SD-JWT VC registers or SD-JWT reserves (IETF SD-JWT VC §3.2.2, SD-JWT §4.1): no mapping and no disclosure rule may name one. */
const RESERVED = ['iss', 'nbf', 'exp', 'iat', 'cnf', 'vct', 'vct#integrity', 'status', '_sd', '_sd_alg'];

const pathKey = (path: readonly unknown[]) => JSON.stringify(path);

/** Checks `disclosureRules`: each starts at a mapped claim, none twice. */
function checkDisclosureRules(rules: unknown, mapped: Record<string, unknown>, problems: Problems): void {
  if (!Array.isArray(rules)) return;
  const seen = new Set<string>();
  rules.forEach((rule: unknown, i) => {
    if (!isPlainObject(rule) || !Array.isArray(rule.path)) return;
    const [first] = rule.path;
    if (typeof first !== 'string' || !Object.hasOwn(mapped, first) || RESERVED.includes(first))
      problems.add(`disclosureRules.${i}.path.0`, 'A claim named in claimMappings', first);
    const key = pathKey(rule.path);
    if (seen.has(key)) problems.add(`disclosureRules.${i}.path`, 'Listed twice', rule.path);
    seen.add(key);
  });
}

/**
 * Checks `typeMetadata` against the rest of the body: the vct must be a URL Vellum serves
 * (`{credential_issuer}/types/{name}`), `extends#integrity` needs `extends`, and a claim the
 * metadata says is always (never) selectively disclosable must be (must not be) one the
 * configuration discloses.
 */
function checkTypeMetadata(body: Record<string, unknown>, mapped: Record<string, unknown>, problems: Problems): void {
  const metadata = body.typeMetadata;
  if (!isPlainObject(metadata)) return;
  if (typeof body.type === 'string' && !isServedVct(body.type))
    problems.add(
      'type',
      `With typeMetadata, an https URL ending in ${TYPE_METADATA_PATH}{name} under the credential issuer, where Vellum serves the metadata`,
      body.type,
    );
  if (metadata['extends#integrity'] !== undefined && metadata.extends === undefined)
    problems.add('typeMetadata.extends#integrity', 'Only with extends', metadata['extends#integrity']);
  if (!Array.isArray(metadata.claims)) return;
  const listed = Array.isArray(body.selectivelyDisclosable) ? new Set(body.selectivelyDisclosable) : undefined;
  const rules = new Set(
    Array.isArray(body.disclosureRules) ? body.disclosureRules.map((rule) => (isPlainObject(rule) ? pathKey(rule.path as unknown[]) : '')) : [],
  );
  const disclosed = (path: unknown[]) =>
    rules.has(pathKey(path)) || (path.length === 1 && typeof path[0] === 'string' && Object.hasOwn(mapped, path[0]) && (listed ? listed.has(path[0]) : true));
  metadata.claims.forEach((claim: unknown, i) => {
    if (!isPlainObject(claim) || !Array.isArray(claim.path) || claim.path.some((step) => typeof step === 'number')) return;
    if (claim.sd === 'always' && !disclosed(claim.path))
      problems.add(
        `typeMetadata.claims.${i}.sd`,
        'The configuration does not disclose this claim selectively (selectivelyDisclosable, disclosureRules)',
        claim.sd,
      );
    if (claim.sd === 'never' && disclosed(claim.path))
      problems.add(`typeMetadata.claims.${i}.sd`, 'The configuration discloses this claim selectively (selectivelyDisclosable, disclosureRules)', claim.sd);
  });
}

/** Whether a vct is one Vellum can serve type metadata at: https, no query or fragment, the last segments `types/{name}`. */
function isServedVct(vct: string): boolean {
  let url: URL;
  try {
    url = new URL(vct);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.search !== '' || url.hash !== '' || url.href !== vct) return false;
  const at = url.pathname.lastIndexOf(TYPE_METADATA_PATH);
  return at >= 0 && TYPE_NAME.test(url.pathname.slice(at + TYPE_METADATA_PATH.length));
}

/** The signer's nested rules, only when the configuration has some (none: the signer's top-level path, as before). */
const rulesOf = (configuration: SdJwtConfiguration) => (configuration.disclosureRules ? { rules: configuration.disclosureRules } : {});

/** The dc+sd-jwt handler. */
export function createSdJwtFormat(deps: SdJwtFormatDeps): CredentialFormatHandler<SdJwtConfiguration> {
  /** `vct#integrity` of a configuration that publishes type metadata (the SRI of the served bytes), else nothing. */
  const integrityOf = (configuration: SdJwtConfiguration): { 'vct#integrity': string } | undefined => {
    if (!configuration.typeMetadata) return undefined;
    if (!deps.digests) throw new Error('The dc+sd-jwt handler needs digests to publish type metadata');
    return { 'vct#integrity': (typeMetadataOf(configuration, deps.digests) as { integrity: string }).integrity };
  };

  /**
   * The payload and its signature, the same whichever way the key is found but for `iss` and the
   * key. JWT times are whole seconds (RFC 7519 §2). IETF Token Status List §6.1: a Referenced Token
   * in JWT form names its list in `status`.
   */
  async function signCredential(request: FormatIssueRequest<SdJwtConfiguration>, plan: ResolvedSigning) {
    const { configuration } = request;
    const { claims, validFrom, validUntil, entry, key, x509 } = plan;
    const holderKey = bindingKeyOf(request);
    const registered = {
      iss: plan.iss,
      iat: seconds(validFrom),
      nbf: seconds(validFrom),
      exp: seconds(validUntil),
      vct: configuration.type,
      ...integrityOf(configuration),
      // An unbound configuration's credential names no key (SD-JWT VC §3.2.2.2: cnf is for Key Binding).
      ...(holderKey ? { cnf: { jwk: holderKey } } : {}),
      ...(entry ? { status: { status_list: { idx: entry.idx, uri: entry.uri } } } : {}),
    };
    // Registered claims first for a readable payload, and again last so that no mapped claim can
    // replace one (configurations already refuse those names; this holds for older ones too).
    const payload = { ...registered, ...claims, ...registered };
    const credential = await deps.signer.issue({
      ...key,
      // HAIP 1.0: the leaf that signs, which names the credential issuer, and chains to the tenant's
      // issuer CA, the verifier's trust anchor (SD-JWT VC §3.5); kid is its id in /.well-known/jwt-vc-issuer.
      ...(x509 ? { x5c: x509.x5c } : {}),
      alg: 'ES256',
      payload,
      disclosable: disclosableOf(configuration, claims, registered),
      ...rulesOf(configuration),
    });
    return issuedCredential(credential, { validFrom, validUntil }, entry);
  }

  return {
    format: 'dc+sd-jwt',
    claimLayout: 'flat',
    claimPathPrefix: [],
    // The claims an SD-JWT VC registers or SD-JWT reserves (IETF SD-JWT VC §3.2.2, SD-JWT §4.1).
    reservedClaims: RESERVED,
    signingKey: 'P-256',
    ...DID_SIGNED_HANDLER,
    checkType: (type, problems) =>
      checkType(
        type,
        VCT_TYPE,
        'A vct: a URL such as https://credentials.example.com/pid, or letters, digits and . _ : / ~ % -, up to 200 characters',
        problems,
      ),
    checkFields(body: Record<string, unknown>, problems: Problems) {
      checkSignedFields(body, false, problems);
      const mapped = isPlainObject(body.claimMappings) ? body.claimMappings : {};
      checkList('selectivelyDisclosable', body.selectivelyDisclosable, (claim) => Object.hasOwn(mapped, claim), 'claim named in claimMappings', problems);
      checkDisclosureRules(body.disclosureRules, mapped, problems);
      checkTypeMetadata(body, mapped, problems);
      checkKeyResolution(body, problems);
    },
    build: (common: CommonConfiguration, body) =>
      present({
        ...common,
        format: 'dc+sd-jwt',
        ...signedConfigurationOf<SdJwtConfiguration>(body),
        selectivelyDisclosable: body.selectivelyDisclosable as string[] | undefined,
        // An empty list is no list: the configuration stays as one saved before rules existed.
        disclosureRules: Array.isArray(body.disclosureRules) && body.disclosureRules.length > 0 ? (body.disclosureRules as DisclosureRule[]) : undefined,
        typeMetadata: body.typeMetadata as TypeMetadata | undefined,
        revocable: body.revocable === true,
        keyResolution: body.keyResolution as SdJwtConfiguration['keyResolution'],
      }),
    metadata: (c) => ({
      vct: c.type,
      credential_signing_alg_values_supported: ['ES256'],
      cryptographic_binding_methods_supported: ['jwk'],
      proof_types_supported: holderProofTypes(),
    }),
    legacyMetadata: (c) => ({ type: c.type, cryptographic_binding_methods_supported: ['jwk'], cryptographic_suites_supported: ['ES256'] }),
    statusEntry: revocableStatus('token-status-list'),
    async issue(request) {
      // With did, the Issuer is the DID and the header's kid names its key (the DID URL), so a
      // verifier resolves the DID: an Issuer Signature Mechanism beyond the two SD-JWT VC defines
      // (§3.5), as that section allows. With x5c, it is the credential issuer and the leaf's chain.
      return signCredential(request, await planSigningBy(request, deps, 'token-jwt'));
    },
  };
}
