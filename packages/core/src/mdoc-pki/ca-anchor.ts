import type { X509Authority } from './ports.ts';

/**
 * Why a PEM certificate cannot be a trust anchor (of wallet providers, or of trusted issuers): not
 * readable, not a CA, or not valid at `now`; undefined when it can. Any failure of the reader is this
 * certificate's problem, named in the caller's 400.
 */
export function caAnchorProblem(deps: { x509: Pick<X509Authority, 'parseCertificate'>; now: Date }, pem: string): string | undefined {
  try {
    const info = deps.x509.parseCertificate(pem);
    if (!info.isCa) return 'Not a CA certificate (BasicConstraints cA is not true)';
    const now = deps.now.getTime();
    if (info.notAfter.getTime() <= now) return 'The certificate has expired';
    if (info.notBefore.getTime() > now) return 'The certificate is not valid yet';
    return undefined;
  } catch {
    return 'Not a readable X.509 certificate';
  }
}
