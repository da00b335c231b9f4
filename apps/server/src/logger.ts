import pino, { type Logger } from 'pino';

/** Paths of log fields that may carry secrets; pino replaces their values. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers.dpop',
  'req.headers["oauth-client-attestation"]',
  'req.headers["oauth-client-attestation-pop"]',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.password',
  '*.masterKey',
];

/** `…/v1/openid/offers/{reference}` (not `…/offers/pre-authorized…`): the reference is a secret. */
const OFFER_REFERENCE = /(\/v1\/openid\/offers\/)(?!pre-authorized(?:\/|$))[^/]+$/;

/** The server's pino logger: JSON lines, secrets redacted, URLs logged without their query. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: { method?: string; url?: string; host?: string; ip?: string; id?: string }) => ({
          id: req.id,
          method: req.method,
          // Query strings can carry codes and tokens; the path is enough to trace a request. The
          // path of a by-reference offer is its pre-authorized code (or issuer state): hidden too.
          url: req.url?.split('?')[0]?.replace(OFFER_REFERENCE, '$1[redacted]'),
          host: req.host,
          remoteAddress: req.ip,
        }),
      },
    },
    destination,
  );
}
