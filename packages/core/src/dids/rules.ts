import type { KeyAlgorithm, KeyCustody } from '../keys/model.ts';
import { isPlainObject, Problems } from '../shared/body-problems.ts';
import { invalidField } from '../shared/errors.ts';
import { type DidWebLocation, parseDidWebUrl } from './did-web.ts';
import { CreateDidBody } from './schema.ts';

/** docs/decisions.md "DIDs": the body of `POST /v1/dids`. */
export interface CreateDidInput {
  method?: string | undefined;
  options?: { keyType?: string | undefined; url?: string | undefined } | undefined;
  keyCustody?: string | undefined;
}

/** A create request that passed the rules; a did:web's host is still to be matched to the tenant. */
export type CheckedDidInput = ({ method: 'key'; keyType: KeyAlgorithm } | { method: 'web'; location: DidWebLocation }) & { keyCustody?: KeyCustody };

/** Validates a create request: the body's shape (schema.ts), then which options the method takes; every problem at once. */
export function checkCreateDidInput(input: CreateDidInput): CheckedDidInput {
  const p = new Problems();
  p.checkShape(CreateDidBody, input);
  const options = isPlainObject(input.options) ? input.options : {};
  let location: DidWebLocation | undefined;
  if (input.method === 'key' && options.url !== undefined && !p.has('options.url')) p.add('options.url', 'Only did:web takes a url', options.url);
  if (input.method === 'web') {
    if (options.keyType !== undefined && !p.has('options.keyType'))
      p.add('options.keyType', 'Not used by did:web, which always gets an Ed25519 and a P-256 key', options.keyType);
    if (options.url === undefined) p.add('options.url', 'Required for did:web: the tenant’s host or verified custom domain, with an optional path');
    else if (!p.has('options.url')) {
      const parsed = parseDidWebUrl(options.url);
      if ('problem' in parsed) p.add('options.url', parsed.problem, options.url);
      else location = parsed.location;
    }
  }
  p.throwIfAny(CreateDidBody);
  const custody = input.keyCustody !== undefined ? { keyCustody: input.keyCustody as KeyCustody } : {};
  if (location) return { method: 'web', location, ...custody };
  return { method: 'key', keyType: (options.keyType ?? 'Ed25519') as KeyAlgorithm, ...custody };
}

// W3C DID core 3.1 syntax: did:<method>:<method-specific-id>, where the id is idchars, ':' and
// percent-encoded octets, and does not end with ':'.
const DID_SYNTAX = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}|:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})$/;

/** Checks a DID named in a path; a malformed one is a 400 about the `did` parameter. */
export function checkDidParam(did: string): string {
  if (did.length > 2048 || !DID_SYNTAX.test(did)) throw invalidField('did', 'Not a DID (did:<method>:<identifier>)', did, 'params');
  return did;
}
