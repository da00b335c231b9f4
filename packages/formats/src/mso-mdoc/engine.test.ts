import type { MdocEngineInput } from '@vellum/core';
import { Decoder, type Tag } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { holderKey, mdocStatusEntry, memoryKeyManager } from '../../test/fixtures.ts';
import { createMdocEngine } from './engine.ts';

// Reads the credential with a decoder of its own, not the engine's encoder.
const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });
const decode = (bytes: Uint8Array) => decoder.decode(bytes) as unknown;

async function engineAndInput() {
  const { keys, tenant } = await memoryKeyManager();
  const key = await keys.create(tenant.id, 'P-256');
  const input: MdocEngineInput = {
    tenantId: tenant.id,
    docType: 'org.iso.18013.5.1.mDL',
    namespaces: { 'org.iso.18013.5.1': { family_name: { type: 'string', value: 'Turner' } } },
    deviceKey: holderKey(),
    validity: { signed: new Date('2026-01-01T00:00:00Z'), validFrom: new Date('2026-01-01T00:00:00Z'), validUntil: new Date('2027-01-01T00:00:00Z') },
    signer: { keyId: key.id, x5chain: [Uint8Array.of(0x30, 0x00)] },
  };
  return { engine: createMdocEngine({ keys }), input };
}

/** The MSO of a base64url IssuerSigned: issuerAuth's payload is #6.24(bstr .cbor MSO). */
function msoOf(credential: string): Map<string, unknown> {
  const issuerSigned = decode(Buffer.from(credential, 'base64url')) as Map<string, unknown>;
  const [, , payload] = issuerSigned.get('issuerAuth') as [Uint8Array, unknown, Uint8Array];
  return decode((decode(payload) as Tag).value as Uint8Array) as Map<string, unknown>;
}

describe('createMdocEngine: the status list entry (docs/status-lists.md)', () => {
  const uri = 'https://issuer.example/v2/credentials/mobile/status-lists/77/token';

  it.each([
    ['status', '_status'],
    ['_status', 'status'],
  ] as const)('writes the core’s entry under `%s` in the signed MSO', async (field, other) => {
    const { engine, input } = await engineAndInput();
    const { credential } = await engine.issue({ ...input, status: { field, idx: 123_456, uri } });
    const mso = msoOf(credential);
    expect(mso.get(field)).toEqual(mdocStatusEntry(123_456, uri));
    expect(mso.has(other)).toBe(false);
  });

  it('writes no entry when the core gives none', async () => {
    const { engine, input } = await engineAndInput();
    const mso = msoOf((await engine.issue(input)).credential);
    expect(mso.has('status') || mso.has('_status')).toBe(false);
  });
});
