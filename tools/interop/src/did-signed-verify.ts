// The DID-signed formats (ldp_vc, cwt, cwt_vc, dc+sd-jwt) checked by libraries Vellum does not sign
// with: @digitalbazaar/vc for ldp_vc, @ldclabs/cose-ts for CWTs, @sd-jwt/sd-jwt-vc for SD-JWT VC.
// Each check also flips one byte or character of the signature and expects the library to refuse,
// so a check that could not fail is caught here. Returns the subject's claims for the test to read.
import { createHash, createPublicKey, type JsonWebKey, verify as verifySignature } from 'node:crypto';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { resolveDidKey } from '@vellum/testing';
import { expect } from 'vitest';
import { loadCoseTs } from '../../../packages/formats/src/cwt/independent-cose.ts';
import { verifyWithDigitalBazaar } from '../../../packages/formats/src/linked-data/independent-verifier.ts';

export type DidSignedFormat = 'ldp_vc' | 'cwt' | 'cwt_vc' | 'dc+sd-jwt';

/** ES256 (r‖s) over `data` by a public JWK, with node:crypto. */
export const es256Valid = (jwk: object, data: string, signature: string) =>
  verifySignature(
    'sha256',
    Buffer.from(data),
    { key: createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );

/**
 * Verifies `credential` as issued by the did:key `issuerDid` to the holder key `holder`; returns what
 * its subject holds (for dc+sd-jwt, the disclosed payload).
 */
export async function verifyDidSigned(
  format: DidSignedFormat,
  credential: unknown,
  issuerDid: string,
  holder: { x: string; y?: string },
): Promise<Record<string, unknown>> {
  const issuer = resolveDidKey(issuerDid);
  if (format === 'ldp_vc') {
    const vc = credential as Record<string, any>;
    expect(await verifyWithDigitalBazaar(vc, issuer, new Date()), format).toEqual({ verified: true });
    expect(resolveDidKey(vc.credentialSubject.id)).toMatchObject(holder);
    // One claim's value changed (a new, undefined term could be dropped by JSON-LD expansion unseen).
    const tampered = structuredClone(vc);
    const claim = Object.keys(tampered.credentialSubject).find((k) => k !== 'id' && typeof tampered.credentialSubject[k] === 'string');
    expect(claim, 'a string claim to tamper with').toBeDefined();
    tampered.credentialSubject[claim as string] = `${tampered.credentialSubject[claim as string]}!`;
    expect((await verifyWithDigitalBazaar(tampered, issuer, new Date())).verified, format).toBe(false);
    return vc.credentialSubject as Record<string, unknown>;
  }
  if (format === 'cwt' || format === 'cwt_vc') {
    const cose = await loadCoseTs();
    const bytes = new Uint8Array(Buffer.from(credential as string, 'base64url'));
    const point = Buffer.concat([Uint8Array.of(4), Buffer.from(issuer.x, 'base64url'), Buffer.from(issuer.y as string, 'base64url')]);
    const message = cose.Sign1Message.fromBytes(cose.ECDSAKey.fromPublic(point), bytes);
    const claims = cose.decodeCBOR(message.payload) as Map<string | number, unknown>;
    expect(claims.get(1), format).toBe(issuerDid);
    const confirmation = (claims.get(8) as Map<number, Map<number, Uint8Array>>).get(1) as Map<number, Uint8Array>;
    expect(Buffer.from(confirmation.get(-2) as Uint8Array).toString('base64url'), format).toBe(holder.x);
    const subject = format === 'cwt' ? claims : ((claims.get('vc') as Map<string, unknown>).get('credentialSubject') as Map<string, unknown>);
    const flipped = Uint8Array.from(bytes);
    flipped[flipped.length - 70] = (flipped[flipped.length - 70] as number) ^ 1;
    expect(() => cose.Sign1Message.fromBytes(cose.ECDSAKey.fromPublic(point), flipped), format).toThrow();
    return Object.fromEntries([...subject].filter(([k]) => typeof k === 'string')) as Record<string, unknown>;
  }
  const compact = credential as string;
  const sdJwtVc = new SDJwtVcInstance({
    hasher: (data: string | ArrayBuffer) =>
      createHash('sha256')
        .update(typeof data === 'string' ? data : new Uint8Array(data))
        .digest(),
    verifier: (data: string, signature: string) => es256Valid(issuer, data, signature),
  });
  const verified = await sdJwtVc.verify(compact);
  expect(verified.payload, format).toMatchObject({ iss: issuerDid, cnf: { jwk: holder } });
  const [jwt = '', ...rest] = compact.split('~');
  const [h, p, sig = ''] = jwt.split('.');
  const flipped = `${h}.${p}.${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`;
  await expect(sdJwtVc.verify([flipped, ...rest].join('~'))).rejects.toThrow();
  return verified.payload as Record<string, unknown>;
}
