import { type ErrorDetail, validationError } from '../shared/errors.ts';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Normalises a custom domain to lowercase ASCII (IDN names become punycode) and checks it is a host
 * name a tenant may claim (docs/decisions.md "Custom domains"). Returns the normalised name or a message saying what is wrong.
 */
export function normaliseDomain(input: string, platformDomain: string): { domain: string } | { problem: string } {
  const raw = input.trim().replace(/\.$/, '');
  if (raw.length === 0) return { problem: 'A domain name is required' };
  if (/[\s/\\:?#@[\]%*]/.test(raw)) return { problem: 'Must be a bare host name, not a URL' };
  let ascii: string;
  try {
    // WHATWG URL parsing applies UTS #46 (IDNA) and lowercases: exactly the mapping browsers use.
    ascii = new URL(`http://${raw}`).hostname;
  } catch {
    return { problem: 'Not a valid domain name' };
  }
  if (ascii.length > 253) return { problem: 'Longer than 253 characters' };
  const labels = ascii.split('.');
  if (labels.length < 2) return { problem: 'Must have at least two labels, such as example.com' };
  if (!labels.every((l) => LABEL.test(l))) return { problem: 'Not a valid domain name' };
  const tld = labels[labels.length - 1] ?? '';
  if (/^[0-9]+$/.test(tld) || /^0x[0-9a-f]*$/i.test(tld)) return { problem: 'Must not be an IP address' };
  const platform = platformDomain.toLowerCase();
  if (ascii === platform || ascii.endsWith(`.${platform}`)) return { problem: 'Must not be under the platform domain' };
  return { domain: ascii };
}

/** Checks an https logo URL; returns a message when it is unacceptable. */
export function checkLogoUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Must be a URL';
  }
  if (url.protocol !== 'https:') return 'Must use https';
  return value.length > 2048 ? 'Longer than 2048 characters' : undefined;
}

export interface CustomDomainInput {
  name?: string | undefined;
  logoUrl?: string | undefined;
  domain?: string | undefined;
}

/** Validates a create or update body (docs/decisions.md "Custom domains"), reporting every problem at once. */
export function checkCustomDomainInput(input: CustomDomainInput, platformDomain: string): { name?: string; logoUrl?: string; domain: string } {
  const details: ErrorDetail[] = [];
  let domain = '';
  if (typeof input.domain !== 'string') {
    details.push({ value: input.domain, msg: 'A domain name is required', param: 'domain', location: 'body' });
  } else {
    const checked = normaliseDomain(input.domain, platformDomain);
    if ('problem' in checked) details.push({ value: input.domain, msg: checked.problem, param: 'domain', location: 'body' });
    else domain = checked.domain;
  }
  if (input.logoUrl !== undefined) {
    const problem = checkLogoUrl(input.logoUrl);
    if (problem) details.push({ value: input.logoUrl, msg: problem, param: 'logoUrl', location: 'body' });
  }
  if (input.name !== undefined && (input.name.trim().length === 0 || input.name.length > 200)) {
    details.push({ value: input.name, msg: '1 to 200 characters', param: 'name', location: 'body' });
  }
  if (details.length > 0) throw validationError(details);
  return {
    domain,
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.logoUrl !== undefined ? { logoUrl: input.logoUrl } : {}),
  };
}
