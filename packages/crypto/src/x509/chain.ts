import { createHash } from 'node:crypto';
import type { CertificateChainValidator } from '@vellum/core';
import { authorityKeyIdOf, parseCertificate, verifyIssuedBy } from './parse.ts';

/** One certificate of a path as far as time goes: its name for the refusal and its validity period. */
interface DatedCertificate {
  name: string;
  notBefore: number;
  notAfter: number;
}

/**
 * A path's verdict apart from time, a function of the bytes alone: either it is broken (and why),
 * or it holds and every certificate of it, the anchor included, has this validity period.
 */
export type CertificatePathVerdict = { ok: true; certificates: readonly DatedCertificate[] } | { ok: false; reason: string };

/** The chain validator, with the step that does not depend on time apart so that it can be cached. */
export interface CertificatePathValidator extends CertificateChainValidator {
  path(chain: readonly Uint8Array[], anchorPem: string): CertificatePathVerdict;
}

function pathOf(chain: readonly Uint8Array[], anchorPem: string): CertificatePathVerdict {
  if (chain.length === 0) return { ok: false, reason: 'No certificate chain' };
  let anchor: ReturnType<typeof parseCertificate>;
  let certificates: ReturnType<typeof parseCertificate>[];
  try {
    anchor = parseCertificate(anchorPem);
    certificates = chain.map((der) => parseCertificate(der));
  } catch {
    return { ok: false, reason: 'A certificate of the chain could not be read' };
  }
  // The anchor sent within the chain is dropped: the tenant's copy is the one trusted.
  const path = certificates.at(-1)?.fingerprintSha256 === anchor.fingerprintSha256 ? certificates.slice(0, -1) : certificates;
  if (path.length === 0) return { ok: false, reason: 'The chain holds only the trusted certificate, no signer' };
  try {
    for (let i = 0; i < path.length; i++) {
      const issuer = path[i + 1] ?? anchor;
      if (!verifyIssuedBy((path[i] as (typeof path)[number]).der, issuer.der))
        return { ok: false, reason: 'The chain does not lead to the trusted certificate' };
    }
  } catch {
    return { ok: false, reason: 'A certificate of the chain could not be read' };
  }
  return {
    ok: true,
    certificates: [...path, anchor].map((certificate) => ({
      name: (certificate.commonName ?? certificate.serialNumber).slice(0, 60),
      notBefore: certificate.notBefore.getTime(),
      notAfter: certificate.notAfter.getTime(),
    })),
  };
}

/** The verdict at an instant: a path that holds is refused as `outOfDate` when a certificate of it is not valid then. */
function verdictAt(verdict: CertificatePathVerdict, at: Date): ReturnType<CertificateChainValidator['validate']> {
  if (!verdict.ok) return { ok: false, reason: verdict.reason };
  const instant = at.getTime();
  for (const certificate of verdict.certificates) {
    // NaN (an invalid Date) is inside no period, as the Date comparisons it replaces decided.
    if (!(instant >= certificate.notBefore && instant <= certificate.notAfter))
      return {
        ok: false,
        outOfDate: true,
        reason: `Certificate ${certificate.name} is not valid at ${Number.isNaN(instant) ? 'an invalid instant' : at.toISOString()}`,
      };
  }
  return { ok: true };
}

/** The AuthorityKeyIdentifier keyIdentifiers of a chain, base64url, in order, without repeats (DCQL `aki`). */
function authorityKeyIds(chain: readonly Uint8Array[]): string[] {
  const ids: string[] = [];
  for (const der of chain) {
    const id = authorityKeyIdOf(der);
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * X.509 path validation for verifiers (RFC 5280 §6, reduced to what mDoc and SD-JWT VC trust needs):
 * each certificate issued by the next, the last by the anchor (or the anchor itself), every one,
 * the anchor included, valid at the instant asked. Revocation is not checked here.
 */
export function createCertificateChainValidator(): CertificatePathValidator {
  return {
    path: pathOf,
    validate: (chain, anchorPem, at) => verdictAt(pathOf(chain, anchorPem), at),
    authorityKeyIds,
  };
}

export interface CertificatePathCacheOptions {
  /** How many (chain, anchor) verdicts are kept; the least recently used goes first. Default 1,000. */
  maxEntries?: number;
}

/**
 * Keeps each (chain, anchor) pair's path verdict for the life of the process, so that a document
 * signer presented again is not parsed and its signatures verified again (docs/decisions.md
 * "Verification cost and its benchmark (issue 31)"). Only the part that depends on the bytes alone
 * is kept: the validity periods are compared with `at` on every call, so the answers are exactly
 * the inner validator's. The key is SHA-256 over every DER of the chain and the anchor's PEM, each
 * with its length; at most `maxEntries` verdicts are held (a few hundred bytes each).
 */
export function cacheCertificatePaths(
  inner: CertificatePathValidator,
  options: CertificatePathCacheOptions = {},
): CertificatePathValidator & { size(): number } {
  const maxEntries = options.maxEntries ?? 1000;
  if (!(Number.isInteger(maxEntries) && maxEntries > 0)) throw new Error('maxEntries must be a positive integer');
  const verdicts = new Map<string, CertificatePathVerdict>();

  function keyOf(chain: readonly Uint8Array[], anchorPem: string): string {
    const hash = createHash('sha256');
    const length = Buffer.alloc(4);
    for (const der of chain) {
      length.writeUInt32BE(der.length);
      hash.update(length).update(der);
    }
    // The anchor's PEM after all DERs, marked off from them: no chain's bytes can pass for it.
    length.writeUInt32BE(0xffffffff);
    return hash.update(length).update(anchorPem, 'utf8').digest('base64url');
  }

  function path(chain: readonly Uint8Array[], anchorPem: string): CertificatePathVerdict {
    const key = keyOf(chain, anchorPem);
    const known = verdicts.get(key);
    if (known !== undefined) {
      // Most recently used last: the Map's order is the eviction order.
      verdicts.delete(key);
      verdicts.set(key, known);
      return known;
    }
    const verdict = inner.path(chain, anchorPem);
    verdicts.set(key, verdict);
    if (verdicts.size > maxEntries) verdicts.delete(verdicts.keys().next().value as string);
    return verdict;
  }

  return {
    path,
    validate: (chain, anchorPem, at) => verdictAt(path(chain, anchorPem), at),
    // Cheap beside a path (no signature), and asked only of what is verified: not cached.
    ...(inner.authorityKeyIds ? { authorityKeyIds: inner.authorityKeyIds.bind(inner) } : {}),
    size: () => verdicts.size,
  };
}
