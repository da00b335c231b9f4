// A verifier's read of an mDoc's status (issue 15), with other people's code: cborg reads the MSO's
// status entry, @ldclabs/cose-ts checks the status list token's COSE_Sign1 against the certificate
// in its x5chain, node:crypto checks that the IACA issued that certificate, and pako inflates the bits.
import { X509Certificate } from 'node:crypto';
import * as cborg from 'cborg';
import pako from 'pako';
import { expect } from 'vitest';
import { loadCoseTs } from '../../../packages/formats/src/cwt/independent-cose.ts';

export type StatusEntry = { idx: number; uri: string };

const cose = await loadCoseTs();

/** The MSO's status entry, read with cborg (not the cbor-x Vellum writes with): `status` (draft 14) or `_status` (legacy). */
export function statusEntryOf(credential: string): { field: string; entry: StatusEntry } {
  // Tag 24 (embedded CBOR, RFC 8949 §3.4.5.1) is left as its bytes, then decoded where needed; Maps keep the keys' types.
  const tags: Array<(inner: unknown) => unknown> = [];
  tags[24] = (inner) => inner;
  tags[0] = (inner) => inner; // tdate (validityInfo)
  tags[1004] = (inner) => inner; // full-date
  const read = (bytes: Uint8Array) => cborg.decode(bytes, { tags, useMaps: true }) as unknown;
  const issuerSigned = read(new Uint8Array(Buffer.from(credential, 'base64url'))) as Map<string, unknown>;
  const issuerAuth = issuerSigned.get('issuerAuth') as [Uint8Array, unknown, Uint8Array, Uint8Array];
  const mso = read(read(issuerAuth[2]) as Uint8Array) as Map<string, unknown>;
  for (const field of ['status', '_status']) {
    const list = (mso.get(field) as Map<string, Map<string, unknown>> | undefined)?.get('status_list');
    if (list) return { field, entry: { idx: list.get('idx') as number, uri: list.get('uri') as string } };
  }
  throw new Error(`No status entry in the MSO: ${[...mso.keys()].join(', ')}`);
}

/** Fetches the token at the entry's URI and reads the status of its index as a verifier would, the signer checked up to the IACA. */
export async function mdocStatusAt(
  fetchFrom: typeof fetch,
  entry: StatusEntry,
  iacaPem: string,
): Promise<{ value: number; typ: string; ttl: unknown; contentType: string | null }> {
  const res = await fetchFrom(entry.uri);
  expect(res.status).toBe(200);
  const token = new Uint8Array(await res.arrayBuffer());
  const [protectedBytes, unprotected] = cose.decodeCBOR(token) as [Uint8Array, Map<number, unknown>];
  const x5chain = unprotected.get(33);
  const signer = new X509Certificate(Buffer.from(x5chain instanceof Uint8Array ? x5chain : ((x5chain as Uint8Array[])[0] as Uint8Array)));
  const iaca = new X509Certificate(iacaPem);
  expect(signer.checkIssued(iaca) && signer.verify(iaca.publicKey)).toBe(true);
  const jwk = signer.publicKey.export({ format: 'jwk' });
  const message = cose.Sign1Message.fromBytes(
    cose.ECDSAKey.fromPublic(Buffer.concat([Uint8Array.of(4), Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')])),
    token,
  );
  const claims = cose.decodeCBOR(message.payload) as Map<number, unknown>;
  const typ = (cose.decodeCBOR(protectedBytes) as Map<number, string>).get(16) as string;
  const legacy = typ === 'mattr-statuslist+cwt';
  expect(claims.get(2)).toBe(entry.uri);
  const list = claims.get(legacy ? -65538 : 65533) as Map<string, unknown>;
  const bits = list.get('bits') as number;
  const statuses = pako.inflate(list.get('lst') as Uint8Array) as Uint8Array;
  const at = entry.idx * bits;
  return {
    value: ((statuses[at >> 3] as number) >> (at & 7)) & ((1 << bits) - 1),
    typ,
    ttl: claims.get(legacy ? -65539 : 65534),
    contentType: res.headers.get('content-type'),
  };
}
