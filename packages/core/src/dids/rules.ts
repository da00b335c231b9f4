import { KEY_ALGORITHMS, type KeyAlgorithm } from '../keys/model.ts';
import { type ErrorDetail, invalidField, validationError } from '../shared/errors.ts';
import { type DidWebLocation, parseDidWebUrl } from './did-web.ts';
import { DID_METHODS } from './model.ts';

/** docs/decisions.md "DIDs": the body of `POST /v1/dids`. */
export interface CreateDidInput {
  method?: string | undefined;
  options?: { keyType?: string | undefined; url?: string | undefined } | undefined;
}

/** A create request that passed the rules; a did:web's host is still to be matched to the tenant. */
export type CheckedDidInput = { method: 'key'; keyType: KeyAlgorithm } | { method: 'web'; location: DidWebLocation };

/** Validates a create request, reporting every problem at once. */
export function checkCreateDidInput(input: CreateDidInput): CheckedDidInput {
  const details: ErrorDetail[] = [];
  const options = input.options ?? {};
  const problem = (param: string, msg: string, value: unknown) => details.push({ value, msg, param, location: 'body' });
  const fail = () => validationError(details);

  if (input.method === 'key') {
    if (options.url !== undefined) problem('options.url', 'Only did:web takes a url', options.url);
    const keyType = options.keyType ?? 'Ed25519';
    if (!(KEY_ALGORITHMS as readonly string[]).includes(keyType)) problem('options.keyType', `One of ${KEY_ALGORITHMS.join(', ')}`, options.keyType);
    if (details.length > 0) throw fail();
    return { method: 'key', keyType: keyType as KeyAlgorithm };
  }
  if (input.method === 'web') {
    if (options.keyType !== undefined) problem('options.keyType', 'Not used by did:web, which always gets an Ed25519 and a P-256 key', options.keyType);
    let location: DidWebLocation | undefined;
    if (typeof options.url !== 'string')
      problem('options.url', 'Required for did:web: the tenant’s host or verified custom domain, with an optional path', options.url);
    else {
      const parsed = parseDidWebUrl(options.url);
      if ('problem' in parsed) problem('options.url', parsed.problem, options.url);
      else location = parsed.location;
    }
    if (details.length > 0 || !location) throw fail();
    return { method: 'web', location };
  }
  throw invalidField('method', `One of ${DID_METHODS.join(', ')}`, input.method);
}

// W3C DID core 3.1 syntax: did:<method>:<method-specific-id>, where the id is idchars, ':' and
// percent-encoded octets, and does not end with ':'.
const DID_SYNTAX = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}|:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})$/;

/** Checks a DID named in a path; a malformed one is a 400 about the `did` parameter. */
export function checkDidParam(did: string): string {
  if (did.length > 2048 || !DID_SYNTAX.test(did)) throw invalidField('did', 'Not a DID (did:<method>:<identifier>)', did, 'params');
  return did;
}
