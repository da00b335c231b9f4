// Root certificates an issuer trusts for attestations it is shown: a wallet provider's roots for
// client attestations (oauth-clients) and a key attestation issuer's for key proofs
// (configurations). Here only their shape is checked; chains are checked when attestations are
// (the JwtProofVerifier port).

export const MAX_ROOT_CERTIFICATES = 10;
export const MAX_ROOT_CERTIFICATE_LENGTH = 20_000;

/** One certificate in PEM form: the armour lines around base64 lines of at most 76 characters. */
const PEM_CERTIFICATE = /^-----BEGIN CERTIFICATE-----\r?\n(?:[A-Za-z0-9+/=]{1,76}\r?\n)+-----END CERTIFICATE-----\r?\n?$/;

/**
 * Checks a list of 1 to MAX_ROOT_CERTIFICATES distinct PEM certificates at `param`, reporting each
 * problem through `add`; returns the list when it holds, undefined otherwise.
 */
export function checkRootCertificates(value: unknown, param: string, add: (param: string, msg: string, value?: unknown) => void): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ROOT_CERTIFICATES) {
    add(param, `Required: 1 to ${MAX_ROOT_CERTIFICATES} PEM certificates`, Array.isArray(value) ? undefined : value);
    return undefined;
  }
  let ok = true;
  value.forEach((pem: unknown, i) => {
    if (typeof pem !== 'string' || pem.length > MAX_ROOT_CERTIFICATE_LENGTH || !PEM_CERTIFICATE.test(pem)) {
      add(
        `${param}.${i}`,
        'One certificate in PEM form: -----BEGIN CERTIFICATE-----, base64 lines, -----END CERTIFICATE-----',
        typeof pem === 'string' ? undefined : pem,
      );
      ok = false;
    } else if (value.indexOf(pem) !== i) {
      add(`${param}.${i}`, 'Listed twice');
      ok = false;
    }
  });
  return ok ? [...(value as string[])] : undefined;
}
