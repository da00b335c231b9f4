import { caAnchorProblem } from '../mdoc-pki/ca-anchor.ts';
import type { Static } from '@sinclair/typebox';
import type { X509Authority } from '../mdoc-pki/ports.ts';
import { outboundUrl, Problems } from '../shared/body-problems.ts';
import { checkRootCertificates } from '../shared/root-certificates.ts';
import { WALLET_PROVIDER_TRUSTED_FOR, type WalletProviderJwk, type WalletProviderTrustedFor } from './model.ts';
import { WalletProviderBody } from './schema.ts';

/** A wallet provider as a create or replace body describes it, checked. */
export interface WalletProviderSettings {
  name: string;
  trustedFor: WalletProviderTrustedFor[];
  x509?: string[];
  jwks?: { keys: WalletProviderJwk[] };
  trustedListUrl?: string;
}

/** What the rules need: the certificate reader (X509Authority.parseCertificate) and the time certificates must be valid at. */
export interface WalletProviderRuleDeps {
  x509: Pick<X509Authority, 'parseCertificate'>;
  now: Date;
}

type BodyJwk = NonNullable<Static<typeof WalletProviderBody>['jwks']>['keys'][number];

const ANCHORS = ['x509', 'jwks', 'trustedListUrl'] as const;
/** A base64url P-256 coordinate or Ed25519 key: 32 bytes. */
const KEY_MEMBER = /^[A-Za-z0-9_-]{43}$/;

/** Why a JWK is no public P-256 or Ed25519 signing key, if it is not. */
function jwkProblem(jwk: BodyJwk): string | undefined {
  if (jwk.use !== undefined && jwk.use !== 'sig') return 'use must be sig';
  if (jwk.kty === 'EC') {
    if (jwk.crv !== 'P-256' || !KEY_MEMBER.test(jwk.x) || jwk.y === undefined || !KEY_MEMBER.test(jwk.y)) return 'An EC key must be P-256 with x and y';
    if (jwk.alg !== undefined && jwk.alg !== 'ES256') return 'A P-256 key signs with ES256';
    return undefined;
  }
  if (jwk.kty === 'OKP') {
    if (jwk.crv !== 'Ed25519' || !KEY_MEMBER.test(jwk.x) || jwk.y !== undefined) return 'An OKP key must be Ed25519 with x only';
    if (jwk.alg !== undefined && jwk.alg !== 'EdDSA') return 'An Ed25519 key signs with EdDSA';
    return undefined;
  }
  return 'kty must be EC (P-256) or OKP (Ed25519)';
}

/**
 * Checks a wallet provider create or replace body (docs/dpop-and-attestation.md "Trusted wallet providers"):
 * its shape, exactly one kind of trust anchor, CA certificates valid now, public keys with distinct
 * ids, an outbound https URL; every problem at once. Default trustedFor: both purposes.
 */
export function checkWalletProviderInput(input: unknown, deps: WalletProviderRuleDeps): WalletProviderSettings {
  const p = new Problems();
  if (!p.checkShape(WalletProviderBody, input) && p.has('body')) p.throwIfAny();
  const body = input as Static<typeof WalletProviderBody>;

  const given = ANCHORS.filter((a) => body[a] !== undefined);
  if (given.length !== 1) {
    p.add(given[1] ?? 'x509', given.length === 0 ? 'Required: one of x509, jwks or trustedListUrl' : `Give one of ${given.join(', ')}, not both`);
  }

  const trustedFor = body.trustedFor ?? [...WALLET_PROVIDER_TRUSTED_FOR];
  if (!p.has('trustedFor')) {
    trustedFor.forEach((purpose, i) => {
      if (!(WALLET_PROVIDER_TRUSTED_FOR as readonly string[]).includes(purpose))
        p.add(`trustedFor.${i}`, `One of ${WALLET_PROVIDER_TRUSTED_FOR.join(', ')}`, purpose);
      else if (trustedFor.indexOf(purpose) !== i) p.add(`trustedFor.${i}`, 'Listed twice', purpose);
    });
  }

  if (body.x509 !== undefined && !p.details.some((d) => d.param.startsWith('x509'))) {
    const pems = checkRootCertificates(body.x509, 'x509', (at, msg, value) => p.add(at, msg, value));
    pems?.forEach((pem, i) => {
      const problem = caAnchorProblem(deps, pem);
      if (problem !== undefined) p.add(`x509.${i}`, problem);
    });
  }

  if (body.jwks !== undefined && !p.details.some((d) => d.param.startsWith('jwks'))) {
    const kids = body.jwks.keys.map((k) => k.kid);
    body.jwks.keys.forEach((jwk, i) => {
      const problem = jwkProblem(jwk) ?? (kids.indexOf(jwk.kid) !== i ? 'Another key has this kid' : undefined);
      if (problem !== undefined) p.add(`jwks.keys.${i}`, problem);
    });
  }

  const url = body.trustedListUrl !== undefined && !p.has('trustedListUrl') ? outboundUrl(p, 'trustedListUrl', body.trustedListUrl, 'an https URL') : undefined;

  p.throwIfAny(WalletProviderBody);
  return {
    name: body.name,
    trustedFor: trustedFor as WalletProviderTrustedFor[],
    ...(body.x509 ? { x509: [...body.x509] } : {}),
    ...(body.jwks
      ? {
          jwks: {
            keys: body.jwks.keys.map((k) => ({
              kty: k.kty as WalletProviderJwk['kty'],
              crv: k.crv as WalletProviderJwk['crv'],
              x: k.x,
              ...(k.y !== undefined ? { y: k.y } : {}),
              kid: k.kid,
              ...(k.alg !== undefined ? { alg: k.alg } : {}),
            })),
          },
        }
      : {}),
    ...(url !== undefined ? { trustedListUrl: url } : {}),
  };
}
