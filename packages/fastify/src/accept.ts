// Content negotiation for the issuer metadata (OpenID4VCI 1.0 §12.2.2): JSON unless the wallet names
// `application/jwt` (RFC 9110 §12.5.1), docs/decisions.md "Signed issuer metadata and JWT VC Issuer Metadata".

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** The media ranges of an Accept header; a range whose `q` is not a number from 0 to 1 counts as 0. */
function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';');
    const [type, subtype] = range.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((s) => s.trim());
      if (name?.toLowerCase() === 'q') q = value !== undefined && /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The weight `ranges` give `type/subtype`: that of the most specific range that matches it (RFC 9110 §12.5.1), 0 when none does. */
function weightOf(ranges: MediaRange[], type: string, subtype: string): { q: number; named: boolean } {
  const exact = ranges.find((r) => r.type === type && r.subtype === subtype);
  if (exact) return { q: exact.q, named: true };
  const sameType = ranges.find((r) => r.type === type && r.subtype === '*');
  if (sameType) return { q: sameType.q, named: false };
  const any = ranges.find((r) => r.type === '*' && r.subtype === '*');
  return { q: any?.q ?? 0, named: false };
}

/**
 * Whether a metadata request asks for the signed form: its Accept header names `application/jwt`
 * with a weight above 0 and no lower than the one JSON gets. A wildcard alone (`*∕*`,
 * `application/*`) or no header keeps the JSON, which every wallet reads.
 */
export function prefersJwt(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = mediaRanges(accept);
  const jwt = weightOf(ranges, 'application', 'jwt');
  if (!jwt.named || jwt.q <= 0) return false;
  return jwt.q >= weightOf(ranges, 'application', 'json').q;
}
