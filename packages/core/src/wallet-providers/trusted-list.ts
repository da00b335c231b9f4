// Reading the certificates of an ETSI TS 119 612 trusted list (docs/dpop-and-attestation.md "Trusted wallet
// providers"). A small, strict reader, not an XML library: it accepts well-nested elements,
// comments, processing instructions and CDATA, refuses any DTD (so no entity can expand or reach
// out), and takes only the X509Certificate of each service's current digital identity
// (TSPService > ServiceInformation > ServiceDigitalIdentity > DigitalId, TS 119 612 §5.5.3) whose
// current status (§5.5.4) is one that grants trust. The list's own XAdES signature is not checked:
// the list is trusted for the https URL the tenant gave, fetched through the outbound guard.

/** Most certificates taken from one list, and the most elements read. */
export const MAX_TRUSTED_LIST_CERTIFICATES = 500;
const MAX_ELEMENTS = 200_000;
const MAX_DEPTH = 64;
const MAX_CERTIFICATE_BASE64 = 20_000;

/** TS 119 612 §5.5.4 statuses under which a service's certificates are trusted (the current and the pre-2016 ones). */
const TRUSTED_STATUSES = ['granted', 'recognisedatnationallevel', 'undersupervision', 'accredited'];

export type TrustedListResult = { ok: true; certificates: string[] } | { ok: false; reason: string };

/** The path, by local names, under which a service's current certificates sit. */
const IDENTITY_PATH = ['TSPService', 'ServiceInformation', 'ServiceDigitalIdentity', 'DigitalId', 'X509Certificate'];

const TOKEN = /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<\?[\s\S]*?\?>|<!|<(\/?)([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)((?:\s[^<>]*?)?)(\/?)>|</g;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

const decodeText = (text: string) => text.replace(/&(lt|gt|amp|quot|apos);/g, (_, name: string) => ENTITIES[name] as string);

/** A certificate's base64 DER as PEM, 64 characters a line. */
function toPem(base64: string): string {
  return `-----BEGIN CERTIFICATE-----\n${base64.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

const endsWithPath = (stack: readonly string[], path: readonly string[]) =>
  stack.length >= path.length && path.every((name, i) => stack[stack.length - path.length + i] === name);

/**
 * The PEM certificates an ETSI TS 119 612 trusted list (XML, UTF-8) grants trust to, distinct, in
 * document order; or why the document is no such list.
 */
export function readTrustedList(bytes: Uint8Array): TrustedListResult {
  let xml: string;
  try {
    xml = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, reason: 'The trusted list is not UTF-8' };
  }
  const stack: string[] = [];
  let root: string | undefined;
  let elements = 0;
  let text = '';
  let last = 0;
  // Per TSPService: its current status and the certificates of its current identity.
  let status: string | undefined;
  let pending: string[] = [];
  const certificates: string[] = [];

  for (const match of xml.matchAll(TOKEN)) {
    const between = xml.slice(last, match.index);
    last = match.index + match[0].length;
    if (stack.length === 0 && between.replace(/^\uFEFF/, '').trim() !== '') return { ok: false, reason: 'The trusted list has text outside its root element' };
    text += between;
    const [token, cdata, closing, , local, attributes, selfClosing] = match;
    if (token === '<!' || token === '<') return { ok: false, reason: 'The trusted list holds a DTD or a malformed tag: refused' };
    if (token.startsWith('<!--') || token.startsWith('<?')) continue;
    if (cdata !== undefined) {
      text += cdata;
      continue;
    }
    const name = local as string;
    if (closing === '/') {
      if (attributes !== '' || selfClosing === '/') return { ok: false, reason: 'The trusted list has a malformed closing tag' };
      if (stack[stack.length - 1] !== name) return { ok: false, reason: 'The trusted list is not well-formed XML' };
      if (endsWithPath(stack, IDENTITY_PATH)) {
        const base64 = text.replace(/\s+/g, '');
        if (base64.length === 0 || base64.length > MAX_CERTIFICATE_BASE64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0)
          return { ok: false, reason: 'The trusted list holds an X509Certificate that is not base64' };
        pending.push(base64);
      } else if (endsWithPath(stack, ['TSPService', 'ServiceInformation', 'ServiceStatus'])) {
        status = decodeText(text).trim();
      } else if (name === 'TSPService') {
        const granted = status !== undefined && TRUSTED_STATUSES.some((s) => status?.endsWith(`/Svcstatus/${s}`));
        if (granted) for (const c of pending) if (!certificates.includes(c)) certificates.push(c);
        status = undefined;
        pending = [];
      }
      stack.pop();
      text = '';
      continue;
    }
    if (stack.length === 0) {
      if (root !== undefined) return { ok: false, reason: 'The trusted list has more than one root element' };
      root = name;
      if (root !== 'TrustServiceStatusList') return { ok: false, reason: 'Not an ETSI TS 119 612 trusted list (root TrustServiceStatusList)' };
    }
    if (++elements > MAX_ELEMENTS) return { ok: false, reason: 'The trusted list is too large' };
    text = '';
    if (selfClosing === '/') continue;
    stack.push(name);
    if (stack.length > MAX_DEPTH) return { ok: false, reason: 'The trusted list nests too deep' };
  }
  if (xml.slice(last).trim() !== '') return { ok: false, reason: 'The trusted list has text outside its root element' };
  if (root === undefined || stack.length > 0) return { ok: false, reason: 'The trusted list is not well-formed XML' };
  if (certificates.length > MAX_TRUSTED_LIST_CERTIFICATES)
    return { ok: false, reason: `The trusted list grants more than ${MAX_TRUSTED_LIST_CERTIFICATES} certificates` };
  return { ok: true, certificates: certificates.map(toPem) };
}
