// RFC 9421 HTTP Message Signatures for webhook deliveries: the signature base and the
// Signature-Input value. Hashing and signing happen in adapters (the KeyManager signs with Ed25519).

/** The components every delivery signs (API.md §10). */
export const SIGNED_COMPONENTS = ['@method', '@target-uri', 'content-type', 'content-digest', 'webhook-id'] as const;

export interface SignatureParams {
  keyId: string;
  /** Unix seconds. */
  created: number;
  /** The label under which Signature-Input and Signature carry this signature. */
  label?: string;
}

export interface SignedRequest {
  method: string;
  targetUri: string;
  /** Lowercase header names to values. */
  headers: Record<string, string>;
}

/** The `@signature-params` value (RFC 9421 §2.3): the covered components and the parameters. */
export function signatureParams(p: SignatureParams): string {
  const components = SIGNED_COMPONENTS.map((c) => `"${c}"`).join(' ');
  return `(${components});created=${p.created};keyid="${p.keyId}";alg="ed25519"`;
}

/** The signature base (RFC 9421 §2.5): one line per covered component, then `@signature-params`. */
export function signatureBase(request: SignedRequest, p: SignatureParams): string {
  const lines = SIGNED_COMPONENTS.map((c) => {
    const value = c === '@method' ? request.method.toUpperCase() : c === '@target-uri' ? request.targetUri : request.headers[c];
    if (value === undefined) throw new Error(`The signed component ${c} is missing`);
    return `"${c}": ${value.trim()}`;
  });
  lines.push(`"@signature-params": ${signatureParams(p)}`);
  return lines.join('\n');
}

/** The `Signature-Input` and `Signature` header values for a base64 signature (RFC 9421 §4). */
export function signatureHeaders(signatureBase64: string, p: SignatureParams): { 'signature-input': string; signature: string } {
  const label = p.label ?? 'sig1';
  return { 'signature-input': `${label}=${signatureParams(p)}`, signature: `${label}=:${signatureBase64}:` };
}
