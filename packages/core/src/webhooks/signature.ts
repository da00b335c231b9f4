// RFC 9421 HTTP Message Signatures for webhook deliveries: the signature base and the
// Signature-Input value. Hashing and signing happen in adapters (the KeyManager signs with Ed25519).

/** The components every delivery signs (docs/decisions.md "Webhooks"). */
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

/** Standard base64 with padding (RFC 4648 §4), as structured fields carry byte sequences. */
export function bytesToBase64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** SHA-256 of some bytes; a host may pass a synchronous one (node:crypto) to skip WebCrypto's thread hop. */
export type Sha256 = (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;

const webCryptoSha256: Sha256 = async (data) => new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));

/** The `Content-Digest` value of a body (RFC 9530 §2): `sha-256=:<base64>:` (WebCrypto unless told). */
export async function contentDigest(body: Uint8Array, sha256: Sha256 = webCryptoSha256): Promise<string> {
  return `sha-256=:${bytesToBase64(await sha256(body))}:`;
}

/** A bare item of a structured field (RFC 8941 §3.3) as far as signatures use them; a token is `{ token }`. */
export type SignatureParamValue = string | number | boolean | Uint8Array | { token: string };

/** One member of `Signature-Input`: the covered components and the signature parameters, in order. */
export interface ParsedSignatureInput {
  components: string[];
  params: Array<[string, SignatureParamValue]>;
}

/** Reads RFC 8941 dictionaries the way signatures use them; throws on anything malformed. */
class FieldReader {
  private i = 0;
  private lastWasString = false;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  dictionary<T>(member: () => T): Map<string, T> {
    const out = new Map<string, T>();
    this.spaces();
    while (this.i < this.text.length) {
      const key = this.key();
      if (this.text[this.i] !== '=') throw new Error(`Member ${key} has no value`);
      this.i += 1;
      out.set(key, member());
      this.ows();
      if (this.i >= this.text.length) break;
      if (this.text[this.i] !== ',') throw new Error('Expected a comma between members');
      this.i += 1;
      this.ows();
      if (this.i >= this.text.length) throw new Error('Trailing comma');
    }
    return out;
  }

  innerList(): ParsedSignatureInput {
    if (this.text[this.i] !== '(') throw new Error('Expected an inner list');
    this.i += 1;
    const components: string[] = [];
    for (;;) {
      this.spaces();
      if (this.text[this.i] === ')') {
        this.i += 1;
        break;
      }
      const item = this.bareItem();
      if (typeof item !== 'string' || !this.lastWasString) throw new Error('Covered components are strings');
      // Component parameters (`;req`, `;key=…`) are not used by Vellum's signatures.
      if (this.text[this.i] === ';') throw new Error('Component parameters are not supported');
      components.push(item);
      if (this.text[this.i] !== ' ' && this.text[this.i] !== ')') throw new Error('Malformed inner list');
    }
    return { components, params: this.params() };
  }

  byteSequenceMember(): Uint8Array {
    const item = this.bareItem();
    if (!(item instanceof Uint8Array)) throw new Error('Expected a byte sequence');
    this.params();
    return item;
  }

  private params(): Array<[string, SignatureParamValue]> {
    const out: Array<[string, SignatureParamValue]> = [];
    while (this.text[this.i] === ';') {
      this.i += 1;
      this.spaces();
      const key = this.key();
      let value: SignatureParamValue = true;
      if (this.text[this.i] === '=') {
        this.i += 1;
        value = this.bareItem();
      }
      out.push([key, value]);
    }
    return out;
  }

  private key(): string {
    const m = /^[a-z*][a-z0-9_\-.*]*/.exec(this.text.slice(this.i));
    if (!m) throw new Error('Malformed key');
    this.i += m[0].length;
    return m[0];
  }

  private bareItem(): SignatureParamValue {
    const c = this.text[this.i];
    this.lastWasString = false;
    if (c === '"') {
      let out = '';
      for (this.i += 1; this.i < this.text.length; this.i += 1) {
        const ch = this.text[this.i] as string;
        if (ch === '\\') {
          const next = this.text[this.i + 1];
          if (next !== '"' && next !== '\\') throw new Error('Bad escape in a string');
          out += next;
          this.i += 1;
        } else if (ch === '"') {
          this.i += 1;
          this.lastWasString = true;
          return out;
        } else if (ch < ' ' || ch > '~') throw new Error('Bad character in a string');
        else out += ch;
      }
      throw new Error('Unterminated string');
    }
    if (c === ':') {
      const end = this.text.indexOf(':', this.i + 1);
      if (end < 0) throw new Error('Unterminated byte sequence');
      const b64 = this.text.slice(this.i + 1, end);
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw new Error('Bad byte sequence');
      this.i = end + 1;
      const raw = atob(b64);
      return Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
    }
    if (c === '?') {
      const v = this.text[this.i + 1];
      if (v !== '0' && v !== '1') throw new Error('Bad boolean');
      this.i += 2;
      return v === '1';
    }
    const number = /^-?\d{1,15}(\.\d{1,3})?/.exec(this.text.slice(this.i));
    if (number) {
      this.i += number[0].length;
      return Number(number[0]);
    }
    const token = /^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*/.exec(this.text.slice(this.i));
    if (token) {
      this.i += token[0].length;
      return { token: token[0] };
    }
    throw new Error('Malformed item');
  }

  private spaces(): void {
    while (this.text[this.i] === ' ') this.i += 1;
  }

  private ows(): void {
    while (this.text[this.i] === ' ' || this.text[this.i] === '\t') this.i += 1;
  }
}

/** Parses a `Signature-Input` field (RFC 9421 §4.1) into its labelled members. Throws on a malformed field. */
export function parseSignatureInput(value: string): Map<string, ParsedSignatureInput> {
  const reader = new FieldReader(value.trim());
  return reader.dictionary(() => reader.innerList());
}

/** Parses a `Signature` field (RFC 9421 §4.2) into labelled signatures. Throws on a malformed field. */
export function parseSignatureField(value: string): Map<string, Uint8Array> {
  const reader = new FieldReader(value.trim());
  return reader.dictionary(() => reader.byteSequenceMember());
}

/** Serialises a parsed member again (RFC 8941 §4.1), which is what `@signature-params` must hold. */
export function serializeSignatureInput(input: ParsedSignatureInput): string {
  const item = (v: SignatureParamValue) =>
    typeof v === 'string'
      ? `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
      : typeof v === 'boolean'
        ? `?${v ? 1 : 0}`
        : v instanceof Uint8Array
          ? `:${bytesToBase64(v)}:`
          : typeof v === 'number'
            ? String(v)
            : v.token;
  const params = input.params.map(([k, v]) => (v === true ? `;${k}` : `;${k}=${item(v)}`)).join('');
  return `(${input.components.map((c) => item(c)).join(' ')})${params}`;
}

/**
 * The signature base of a received request for the components a `Signature-Input` member lists
 * (RFC 9421 §2.5). Only `@method`, `@target-uri` and header fields are understood; anything else,
 * or a missing header, throws.
 */
export function receivedSignatureBase(request: SignedRequest, input: ParsedSignatureInput): string {
  const lines = input.components.map((c) => {
    let value: string | undefined;
    if (c === '@method') value = request.method.toUpperCase();
    else if (c === '@target-uri') value = request.targetUri;
    else if (c.startsWith('@')) throw new Error(`The component ${c} is not supported`);
    else value = request.headers[c];
    if (value === undefined) throw new Error(`The signed component ${c} is missing`);
    return `"${c}": ${value.trim()}`;
  });
  lines.push(`"@signature-params": ${serializeSignatureInput(input)}`);
  return lines.join('\n');
}
