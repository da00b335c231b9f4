// mDoc verification (ISO/IEC 18013-5 §9.3; docs/decisions.md "Verifying mDocs (issue 31)"): the
// reader port decodes and checks signatures, the chain port checks X.509 paths; this file decides
// trust, digests, validity and device authentication, and lists every check it ran.

import { base64UrlToBytes } from '../shared/encoding.ts';
import { refuse, type StatusListDecoder, type StatusListLookup } from '../shared/token-status-lists.ts';
import type { CertificateChainValidator, MdocDocumentView, MdocReader } from './mdoc-ports.ts';
import type { FormatVerifier, IssuerAnchor, VerificationCheck, VerificationResult, VerifyOptions } from './model.ts';
import { credentialStatus } from './status.ts';

export interface MdocVerifierDeps {
  reader: MdocReader;
  chains: CertificateChainValidator;
  /** Token Status Lists (shared/token-status-lists.ts); without it an mDoc naming a status fails the status check. */
  statusLists?: StatusListLookup;
}

/** The two status list token types an MSO's reference may lead to (docs/status-lists.md). */
const STATUS_LIST_TYPES = ['application/statuslist+cwt', 'mattr-statuslist+cwt'];

// ISO/IEC 18013-5 §9.1.2.5 names these three.
const DIGEST_ALGORITHMS = new Set(['SHA-256', 'SHA-384', 'SHA-512']);

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** The verifier of `mso_mdoc`: the `credential` is base64url of a CBOR DeviceResponse or IssuerSigned. */
export function createMdocVerifier(deps: MdocVerifierDeps): FormatVerifier {
  return async (credential, options) => {
    const checks: VerificationCheck[] = [];
    const failed = (check: string, reason: string): VerificationResult => ({
      verified: false,
      format: 'mso_mdoc',
      claims: {},
      checks: [...checks, { check, ok: false, reason }],
    });
    const bytes = base64UrlToBytes(credential);
    if (bytes === undefined || bytes.length === 0) return failed('decode', 'The credential is not base64url');
    let reading: ReturnType<MdocReader['read']>;
    try {
      reading = deps.reader.read(bytes, options.sessionTranscript ? { sessionTranscript: options.sessionTranscript } : {});
    } catch {
      reading = { ok: false, reason: 'The credential could not be read' };
    }
    if (!reading.ok) return failed('decode', reading.reason);
    // One document is verified: the first. A DeviceResponse with more is refused rather than half
    // verified, since the result has room for one docType and one issuer.
    const [document] = reading.documents;
    if (document === undefined) return failed('decode', 'The DeviceResponse holds no document');
    if (reading.documents.length > 1) return failed('decode', 'The DeviceResponse holds several documents; verify one at a time');
    checks.push({ check: 'decode', ok: true });
    return verifyDocument(document, reading.kind, options, deps, checks);
  };
}

/**
 * Verifies a fetched status list CWT: its signature, its typ, and its x5chain to one of the IACAs of
 * the trusted issuer that vouches for the mDoc.
 */
function statusListDecoder(deps: MdocVerifierDeps, iacas: readonly string[], now: Date): StatusListDecoder {
  return async (body) => {
    const token = deps.reader.readStatusList(body);
    if (!token.ok) return refuse(`The status list could not be read: ${token.reason}`);
    if (!token.signature.valid) return refuse(token.signature.reason ?? 'The status list signature does not verify');
    if (token.typ === undefined || !STATUS_LIST_TYPES.includes(token.typ)) return refuse('The status list must have typ application/statuslist+cwt');
    if (!iacas.some((pem) => deps.chains.validate(token.x5chain, pem, now).ok)) return refuse('The status list is not signed under the mDoc’s trusted IACA');
    return token.claims;
  };
}

async function verifyDocument(
  document: MdocDocumentView,
  kind: 'device-response' | 'issuer-signed',
  options: VerifyOptions,
  deps: MdocVerifierDeps,
  checks: VerificationCheck[],
): Promise<VerificationResult> {
  const { chains } = deps;
  const record = (check: string, ok: boolean, reason?: string) => checks.push(ok || reason === undefined ? { check, ok } : { check, ok, reason });
  const { mso, docType } = document;
  const now = options.now;

  record('issuer-signature', document.issuerSignature.valid, document.issuerSignature.reason ?? 'The issuer signature does not verify');

  // Trust (§9.3.3): a chain to one of the tenant's IACAs for mso_mdoc, valid now, whose types allow the docType.
  const iacas = options.anchors.filter(
    (anchor): anchor is Extract<IssuerAnchor, { kind: 'x509' }> => anchor.kind === 'x509' && anchor.formats.includes('mso_mdoc'),
  );
  let trustedBy: Extract<IssuerAnchor, { kind: 'x509' }> | undefined;
  let trustReason = 'No trusted IACA issued the document signer';
  if (document.x5chain.length === 0) trustReason = 'issuerAuth carries no x5chain';
  for (const anchor of iacas) {
    const path = chains.validate(document.x5chain, anchor.certificatePem, now);
    if (!path.ok) {
      // A path that fails only on dates says so, so that an expired signer is not reported as unknown.
      if (path.outOfDate) trustReason = path.reason;
      continue;
    }
    if (anchor.types && anchor.types.length > 0 && !anchor.types.includes(docType)) {
      trustReason = `The trusted IACA may not issue ${docType.slice(0, 100)}`;
      continue;
    }
    trustedBy = anchor;
    break;
  }
  record('trusted-issuer', trustedBy !== undefined, trustReason);

  // The MSO (§9.1.2.4).
  record('doc-type', mso.docType === docType, 'The MSO names another docType');
  const algorithmOk = DIGEST_ALGORITHMS.has(mso.digestAlgorithm);
  record('digest-algorithm', algorithmOk, `Digest algorithm ${mso.digestAlgorithm.slice(0, 40)} is not supported`);
  if (algorithmOk) {
    const mismatch = document.items.find((item) => {
      const expected = mso.valueDigests[item.namespace]?.get(item.digestId);
      return expected === undefined || item.digest === undefined || !equalBytes(expected, item.digest);
    });
    record(
      'value-digests',
      mismatch === undefined,
      mismatch && `${`The digest of ${mismatch.namespace}/${mismatch.elementIdentifier}`.slice(0, 150)} does not match the MSO`,
    );
  }
  const { signed, validFrom, validUntil } = mso.validityInfo;
  if (!validFrom || !validUntil) record('validity', false, 'The MSO has no validFrom or validUntil');
  else if (now < validFrom) record('validity', false, `Not valid before ${validFrom.toISOString()}`);
  else if (now > validUntil) record('validity', false, `Expired at ${validUntil.toISOString()}`);
  else record('validity', true);
  record('signed', signed !== undefined && signed <= now, signed ? `Signed in the future (${signed.toISOString()})` : 'The MSO has no signed time');

  // Device authentication (§9.1.3): checked when the caller gives the session transcript.
  let holderBound = false;
  if (kind === 'device-response') {
    const auth = document.deviceAuth ?? { kind: 'missing' as const };
    if (auth.kind === 'mac') record('device-auth', false, 'deviceMac is not supported; only deviceSignature');
    else if (auth.kind === 'missing') record('device-auth', false, 'The document has no deviceSignature');
    else if (!options.sessionTranscript) checks.push({ check: 'device-auth', ok: true, reason: 'Not checked: no session transcript given' });
    else {
      holderBound = auth.valid === true;
      record('device-auth', holderBound, auth.reason ?? 'The device signature does not verify over the session transcript');
    }
  }

  // Status (draft-ietf-oauth-status-list §6.2 for mDocs): read only for a trusted issuer's sound mDoc.
  let status: NonNullable<VerificationResult['status']> = 'not-checked';
  if (mso.status && 'invalid' in mso.status) record('status', false, mso.status.invalid);
  else if (mso.status && trustedBy && checks.every((c) => c.ok)) {
    const by = trustedBy.trustedIssuerId;
    const pems = options.anchors.flatMap((a) => (a.kind === 'x509' && a.trustedIssuerId === by ? [a.certificatePem] : []));
    const checked = await credentialStatus(deps.statusLists, mso.status, {
      accept: 'application/statuslist+cwt',
      cacheKey: by,
      decode: statusListDecoder(deps, pems, now),
      at: now,
    });
    status = checked.status;
    checks.push(checked.check);
  }

  const claims: Record<string, Record<string, unknown>> = {};
  for (const item of document.items) {
    const namespace = claims[item.namespace] ?? {};
    namespace[item.elementIdentifier] = item.elementValue;
    claims[item.namespace] = namespace;
  }
  const issuerTrusted = trustedBy !== undefined;
  return {
    verified: checks.every((check) => check.ok) && issuerTrusted,
    format: 'mso_mdoc',
    issuer: {
      kind: 'x509',
      id: document.signerFingerprint,
      trusted: issuerTrusted,
      ...(trustedBy ? { trustedIssuerId: trustedBy.trustedIssuerId } : {}),
      ...(chains.authorityKeyIds ? { authorityKeyIds: chains.authorityKeyIds(document.x5chain) } : {}),
    },
    holderBound,
    credentialType: docType,
    claims,
    validity: {
      ...(validFrom ? { validFrom: validFrom.toISOString() } : {}),
      ...(validUntil ? { validUntil: validUntil.toISOString() } : {}),
    },
    status,
    checks,
  };
}
