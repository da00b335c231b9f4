// The JSON-LD contexts Vellum signs with, bundled so that nothing is ever fetched from the network
// (docs/decisions.md "DIDs"). Each is the document published at its URL:
// - credentials-v1: https://www.w3.org/2018/credentials/v1 (W3C VC Data Model 1.1), as served by W3C.
// - did-configuration-v1: https://identity.foundation/.well-known/did-configuration/v1 (DIF Well
//   Known DID Configuration).
// - ed25519-signature-2018-v1: https://w3id.org/security/suites/ed25519-2018/v1, copied from the
//   ed25519-signature-2018-context package (BSD-3-Clause, Digital Bazaar).
// - ed25519-signature-2020-v1: https://w3id.org/security/suites/ed25519-2020/v1 (W3C CCG Ed25519
//   Signature 2020), copied from contexts/ed25519-signature-2020-v1.jsonld of the
//   ed25519-signature-2020-context package 1.1.0 (BSD-3-Clause, Digital Bazaar).
// - jws-2020-v1: https://w3id.org/security/suites/jws-2020/v1 (W3C CCG JSON Web Signature 2020).
// - vc-revocation-list-2020-v1: https://w3id.org/vc-revocation-list-2020/v1 (W3C CCG Revocation
//   List 2020), copied from contexts/vc-revocation-list-2020.jsonld of the
//   vc-revocation-list-context package 1.0.0 (Digital Bazaar; context data under the W3C Software
//   and Document License).
// A context may never change once published (signatures depend on it), so neither may these files.

import credentialsV1 from './contexts/credentials-v1.json' with { type: 'json' };
import didConfigurationV1 from './contexts/did-configuration-v1.json' with { type: 'json' };
import ed25519Signature2018V1 from './contexts/ed25519-signature-2018-v1.json' with { type: 'json' };
import ed25519Signature2020V1 from './contexts/ed25519-signature-2020-v1.json' with { type: 'json' };
import jws2020V1 from './contexts/jws-2020-v1.json' with { type: 'json' };
import vcRevocationList2020V1 from './contexts/vc-revocation-list-2020-v1.json' with { type: 'json' };

const CONTEXTS: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ['https://www.w3.org/2018/credentials/v1', credentialsV1],
  ['https://identity.foundation/.well-known/did-configuration/v1', didConfigurationV1],
  ['https://w3id.org/security/suites/ed25519-2018/v1', ed25519Signature2018V1],
  ['https://w3id.org/security/suites/ed25519-2020/v1', ed25519Signature2020V1],
  ['https://w3id.org/security/suites/jws-2020/v1', jws2020V1],
  ['https://w3id.org/vc-revocation-list-2020/v1', vcRevocationList2020V1],
]);

/** The URLs of every bundled context. */
export const BUNDLED_CONTEXT_URLS: readonly string[] = [...CONTEXTS.keys()];

/** A copy of the bundled context document published at `url`, or undefined when none is bundled. */
export function bundledContext(url: string): Record<string, unknown> | undefined {
  const document = CONTEXTS.get(url);
  return document === undefined ? undefined : (structuredClone(document) as Record<string, unknown>);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

// The parser reads contexts and never changes them (freezing proves it: a write would throw), so
// it is handed the same frozen copy every time rather than a fresh clone for every document.
const FROZEN: ReadonlyMap<string, Record<string, unknown>> = new Map(
  [...CONTEXTS].map(([url, document]) => [url, deepFreeze(structuredClone(document) as Record<string, unknown>)]),
);

/** Loads a context for the JSON-LD parser from the bundle; any other URL is an error, never a fetch. */
export async function loadBundledContext(url: string): Promise<Record<string, unknown>> {
  const document = FROZEN.get(url);
  if (document === undefined) throw new Error(`The JSON-LD context ${url} is not bundled with Vellum; it is never fetched`);
  return document;
}
