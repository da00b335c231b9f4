// The mDoc SessionTranscript of OpenID4VP 1.0 (Appendix B.2.6.1, as the issue 31 contracts fix it):
// [null, null, ["OpenID4VPHandover", SHA-256(CBOR([client_id, nonce, jwkThumbprint or null, response_uri]))]].
// The few CBOR items it needs (arrays, text and byte strings, null) are encoded here; the core
// carries no CBOR library, and these encodings have one form only.

type Item = null | string | Uint8Array | Item[];

function head(major: number, length: number): number[] {
  const m = major << 5;
  if (length < 24) return [m | length];
  if (length < 0x100) return [m | 24, length];
  if (length < 0x10000) return [m | 25, length >> 8, length & 0xff];
  return [m | 26, (length >>> 24) & 0xff, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff];
}

/** Encodes null, text strings (UTF-8), byte strings and arrays of them, with the shortest heads. */
export function encodeCbor(item: Item): Uint8Array {
  const out: number[] = [];
  const put = (i: Item): void => {
    if (i === null) out.push(0xf6);
    else if (typeof i === 'string') {
      const bytes = new TextEncoder().encode(i);
      out.push(...head(3, bytes.length), ...bytes);
    } else if (i instanceof Uint8Array) out.push(...head(2, i.length), ...i);
    else {
      out.push(...head(4, i.length));
      for (const e of i) put(e);
    }
  };
  put(item);
  return Uint8Array.from(out);
}

/** RFC 7638: the members of an EC or OKP public JWK that its thumbprint is taken over, as canonical JSON. */
export function thumbprintInput(jwk: Record<string, unknown>): string {
  const members = jwk.kty === 'EC' ? ['crv', 'kty', 'x', 'y'] : jwk.kty === 'OKP' ? ['crv', 'kty', 'x'] : ['e', 'kty', 'n'];
  return `{${members.map((m) => `${JSON.stringify(m)}:${JSON.stringify(jwk[m])}`).join(',')}}`;
}

/** What the handover hashes: the session's client_id, nonce, response_uri and, for direct_post.jwt, the encryption key's thumbprint. */
export interface HandoverInput {
  clientId: string;
  nonce: string;
  responseUri: string;
  /** The SHA-256 JWK thumbprint (RFC 7638) of the verifier's encryption key, raw bytes; absent for direct_post. */
  jwkThumbprint?: Uint8Array;
}

/** The CBOR SessionTranscript the wallet's device signature must cover; `sha256` hashes raw bytes. */
export function openId4VpSessionTranscript(input: HandoverInput, sha256: (bytes: Uint8Array) => Uint8Array): Uint8Array {
  const info = encodeCbor([input.clientId, input.nonce, input.jwkThumbprint ?? null, input.responseUri]);
  return encodeCbor([null, null, ['OpenID4VPHandover', sha256(info)]]);
}
