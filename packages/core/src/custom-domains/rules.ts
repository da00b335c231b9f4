import { Problems } from '../shared/body-problems.ts';
import { CustomDomainBody } from './schema.ts';

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
  return url.protocol !== 'https:' ? 'Must use https' : undefined;
}

export interface CustomDomainInput {
  name?: string | undefined;
  logoUrl?: string | undefined;
  domain?: string | undefined;
}

/** Validates a create or update body (docs/decisions.md "Custom domains"): its shape, then the host name and logo rules, reporting every problem at once. */
export function checkCustomDomainInput(input: CustomDomainInput, platformDomain: string): { name?: string; logoUrl?: string; domain: string } {
  const p = new Problems();
  // A body that is no object has nothing more to check.
  if (!p.checkShape(CustomDomainBody, input) && p.has('body')) p.throwIfAny();
  let domain = '';
  if (!p.has('domain')) {
    const checked = normaliseDomain(input.domain as string, platformDomain);
    if ('problem' in checked) p.add('domain', checked.problem, input.domain);
    else domain = checked.domain;
  }
  if (input.logoUrl !== undefined && !p.has('logoUrl')) {
    const problem = checkLogoUrl(input.logoUrl);
    if (problem) p.add('logoUrl', problem, input.logoUrl);
  }
  if (input.name !== undefined && !p.has('name') && input.name.trim().length === 0) p.add('name', '1 to 200 characters', input.name);
  p.throwIfAny(CustomDomainBody);
  return {
    domain,
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.logoUrl !== undefined ? { logoUrl: input.logoUrl } : {}),
  };
}
