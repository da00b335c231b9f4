import type { CertificateChainValidator } from '@vellum/core';
import { authorityKeyIdOf, parseCertificate, verifyIssuedBy } from './parse.ts';

/**
 * X.509 path validation for verifiers (RFC 5280 §6, reduced to what mDoc and SD-JWT VC trust needs):
 * each certificate issued by the next, the last by the anchor (or the anchor itself), every one,
 * the anchor included, valid at the instant asked. Revocation is not checked here.
 */
export function createCertificateChainValidator(): CertificateChainValidator {
  return {
    validate(chain, anchorPem, at) {
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
      for (const certificate of [...path, anchor]) {
        if (at < certificate.notBefore || at > certificate.notAfter) {
          const name = (certificate.commonName ?? certificate.serialNumber).slice(0, 60);
          return { ok: false, outOfDate: true, reason: `Certificate ${name} is not valid at ${at.toISOString()}` };
        }
      }
      return { ok: true };
    },
    authorityKeyIds(chain) {
      const ids: string[] = [];
      for (const der of chain) {
        const id = authorityKeyIdOf(der);
        if (id !== undefined && !ids.includes(id)) ids.push(id);
      }
      return ids;
    },
  };
}
