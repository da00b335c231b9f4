import { type EventRecorder, withEvents } from '../events/recorder.ts';
import type { Clock } from '../shared/ports.ts';
import type { NonceCodec } from './ports.ts';
import type { RequestContext } from '../tenancy/model.ts';

/** docs/decisions.md "Users, offers, the token and nonce endpoints": a nonce lives 5 minutes. */
export const NONCE_TTL_SECONDS = 300;

export interface NonceDeps {
  clock: Clock;
  /** Mints self-authenticating nonces: @vellum/crypto's loadNonceCodec. */
  codec: NonceCodec;
  events: EventRecorder;
}

/**
 * `POST /v1/openid/nonce` (OpenID4VCI 1.0 §7). Nothing is stored when a nonce is issued; the
 * credential endpoint opens it with the codec and records its single use with `store.nonces.markUsed`.
 */
export interface NonceService {
  issue(ctx: RequestContext): Promise<{ c_nonce: string }>;
}

/** Single-use nonces with a 5-minute life; the retention job deletes the records of used ones after expiry (docs/retention.md). */
export function createNonceService(deps: NonceDeps): NonceService {
  const { clock, codec, events } = deps;
  return {
    issue(ctx) {
      return withEvents(events, ctx, 'OPENID_NONCE', async () => {
        const now = clock.now();
        const nonce = codec.mint(ctx.tenant.id, new Date(now.getTime() + NONCE_TTL_SECONDS * 1000));
        return { c_nonce: nonce };
      });
    },
  };
}
