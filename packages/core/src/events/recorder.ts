import type { Clock, EventRepository, Ids } from '../ports.ts';
import { isDomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { EVENT_PREFIXES, type EventOutcome, type EventPrefix } from './catalogue.ts';
import type { AnalyticEvent } from './model.ts';

/** What an operation tells about itself; which parts are kept depends on the tenant's logging level. */
export interface EventData {
  /** Non-personal metadata (ids, counts, formats): kept from logging level 2. */
  meta?: Record<string, unknown>;
  /** Full request and response payloads: kept at logging level 3, with secrets masked. */
  payload?: Record<string, unknown>;
}

export interface EventRecorder {
  /** Queues one event; it never blocks the request and never throws. */
  record(ctx: RequestContext, prefix: EventPrefix, outcome: EventOutcome, data?: EventData): void;
  /** Writes everything queued so far. */
  flush(): Promise<void>;
  /** How many events wait to be written. */
  pending(): number;
}

export interface EventRecorderOptions {
  events: Pick<EventRepository, 'insertMany'>;
  clock: Clock;
  ids: Ids;
  /** A queue this long is written at once rather than waiting for the next flush. */
  batchSize?: number;
  /** Told when a batch could not be written; the batch is kept for the next flush. */
  onError?: (error: unknown) => void;
}

const SECRET_KEY = /secret|password|token|code|key|authorization|jwt|proof|nonce|verifier/i;

/** Replaces the values of secret-looking fields, at any depth, with a mask. */
export function maskSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '***' : maskSecrets(v, depth + 1);
  return out;
}

/** The part of an operation's data that the tenant's logging level allows to be stored. */
export function eventDataFor(level: 1 | 2 | 3, data: EventData | undefined, errorCode?: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (errorCode !== undefined) out.errorCode = errorCode;
  if (level >= 2 && data?.meta) Object.assign(out, data.meta);
  if (level >= 3 && data?.payload) out.payload = maskSecrets(data.payload);
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Buffers events in memory and writes them in batches, so recording costs the request almost
 * nothing. The host flushes it on a timer and on shutdown; readers flush before they query.
 */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const batchSize = options.batchSize ?? 200;
  let queue: AnalyticEvent[] = [];
  let writing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    writing = writing.then(async () => {
      if (queue.length === 0) return;
      const batch = queue;
      queue = [];
      try {
        await options.events.insertMany(batch);
      } catch (error) {
        queue = batch.concat(queue);
        options.onError?.(error);
      }
    });
    return writing;
  };

  return {
    record(ctx, prefix, outcome, data) {
      const errorCode = outcome === 'FAIL' ? String(data?.meta?.errorCode ?? 'InternalServerError') : undefined;
      const event: AnalyticEvent = {
        id: options.ids.uuid(),
        type: `${prefix}_${outcome}`,
        category: EVENT_PREFIXES[prefix],
        timestamp: options.clock.now().toISOString(),
        tenantId: ctx.tenant.id,
        requestId: ctx.requestId,
        requestIp: ctx.ip,
      };
      if (ctx.requestor) event.clientId = ctx.requestor.clientId;
      if (ctx.userAgent) event.userAgent = ctx.userAgent;
      const kept = eventDataFor(ctx.tenant.loggingLevel, data, errorCode);
      if (kept) event.data = kept;
      queue.push(event);
      if (queue.length >= batchSize) void flush();
    },
    flush,
    pending: () => queue.length,
  };
}

/**
 * Runs one operation between its START event and its SUCCESS or FAIL event. `describe` says what
 * the finished operation may tell about itself (subject to the logging level).
 */
export async function withEvents<T>(
  recorder: EventRecorder,
  ctx: RequestContext,
  prefix: EventPrefix,
  work: () => Promise<T>,
  describe?: {
    input?: unknown;
    meta?: (result: T) => Record<string, unknown>;
    keepResponse?: boolean;
    /** What of the result the level-3 payload keeps, when not all of it (e.g. without a URI that carries a code). */
    response?: (result: T) => unknown;
  },
): Promise<T> {
  const payload = describe?.input === undefined ? undefined : { request: describe.input };
  recorder.record(ctx, prefix, 'START', payload ? { payload } : undefined);
  try {
    const result = await work();
    const meta = describe?.meta?.(result);
    recorder.record(ctx, prefix, 'SUCCESS', {
      ...(meta ? { meta } : {}),
      // Responses that are themselves event logs are never kept, or each read would nest the last.
      payload:
        describe?.keepResponse === false
          ? { ...payload }
          : { ...payload, response: describe?.response ? describe.response(result) : result === undefined ? null : result },
    });
    return result;
  } catch (error) {
    // Wallet-facing failures say what OAuth says (invalid_grant, …), which tells more than BadRequest.
    const errorCode = isDomainError(error) ? (error.oauthError ?? error.code) : 'InternalServerError';
    recorder.record(ctx, prefix, 'FAIL', { meta: { errorCode }, ...(payload ? { payload } : {}) });
    throw error;
  }
}
