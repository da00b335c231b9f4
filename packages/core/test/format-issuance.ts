// What the tests of the format handlers share: a tenant with did:key DIDs to sign with, a holder's
// key, and the request to issue (docs/decisions.md "Credential configurations").
import { generateKeyPairSync } from 'node:crypto';
import type { CredentialConfiguration } from '../src/configurations/model.ts';
import type { CredentialFormatHandler, FormatIssueRequest } from '../src/credential-formats/port.ts';
import type { PublicJwk } from '../src/keys/model.ts';
import { withTenant } from './harness.ts';

/** A fresh public key on `curve`, as a holder's key proof names it. */
export function holderKey(curve: 'P-256' | 'Ed25519' = 'P-256'): PublicJwk {
  if (curve === 'Ed25519') return { kty: 'OKP', crv: 'Ed25519', x: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string };
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  return { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
}

/** The harness with the tenant acme, its admin context, and makers of its did:key DIDs of either key type. */
export async function signingTenant() {
  const h = await withTenant();
  const { ctx } = h;
  const p256Did = async () => h.dids.create(ctx, { method: 'key', options: { keyType: 'P-256' } });
  const ed25519Did = async () => h.dids.create(ctx, { method: 'key', options: { keyType: 'Ed25519' } });
  return { ...h, p256Did, ed25519Did };
}

/** `handler.issue` of a current request to the tenant's origin: `base` fills it in, and each call's `over` changes it. */
export function issuing<C extends CredentialConfiguration>(
  handler: Pick<CredentialFormatHandler<C>, 'issue'>,
  base: Omit<FormatIssueRequest<C>, 'credentialIssuer' | 'form'>,
) {
  return (over: Partial<FormatIssueRequest<C>> = {}) => handler.issue({ credentialIssuer: 'https://acme.eu01.vellum.test', form: 'current', ...base, ...over });
}
