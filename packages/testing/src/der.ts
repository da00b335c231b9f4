// A small DER reader, so that tests check certificates, CSRs and CRLs with code that is not the
// issuer's (@peculiar/x509).

/** One DER element: its tag, where it starts, where its contents start and where it ends. */
export interface Tlv {
  tag: number;
  start: number;
  body: number;
  end: number;
}

/** The DER element at `at`. */
export function tlv(der: Uint8Array, at: number): Tlv {
  const tag = der[at] as number;
  let length = der[at + 1] as number;
  let body = at + 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (der[body + i] as number);
    body += n;
  }
  return { tag, start: at, body, end: body + length };
}

/** The elements inside a constructed element. */
export function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.body; at < parent.end; at = out[out.length - 1]!.end) out.push(tlv(der, at));
  return out;
}
