import type { TokenRequestProofs } from '@vellum/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * One proof header as received: its value, or every value when it was sent more than once. Node
 * joins repeated headers with ", "; a JWT holds no comma, so only then are the values read apart
 * from the raw headers, and the core refuses the request for sending the header twice (RFC 9449 §4.3 step 1).
 */
export function proofHeader(
  request: FastifyRequest,
  name: 'dpop' | 'oauth-client-attestation' | 'oauth-client-attestation-pop',
): string | string[] | undefined {
  const value = request.headers[name];
  if (typeof value !== 'string' || !value.includes(',')) return value;
  // rawHeaders: name, value, name, value… as they came (light-my-request fills it too).
  const raw = request.raw.rawHeaders ?? [];
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === name) values.push(raw[i + 1] as string);
  return values.length > 1 ? values : value;
}

/**
 * The proof headers of a token or pushed authorization request (docs/dpop-and-attestation.md): `DPoP`
 * (RFC 9449), `OAuth-Client-Attestation` and `OAuth-Client-Attestation-PoP`. The core checks them.
 */
export function walletProofHeaders(request: FastifyRequest): TokenRequestProofs {
  return {
    dpop: proofHeader(request, 'dpop'),
    attestation: { attestation: proofHeader(request, 'oauth-client-attestation'), pop: proofHeader(request, 'oauth-client-attestation-pop') },
  };
}

/** RFC 9449 §8: the server's next nonce goes out with each answer, when it asks for nonces. */
export function sendDpopNonce(reply: FastifyReply, nonce: string | undefined): void {
  if (nonce !== undefined) reply.header('dpop-nonce', nonce);
}
