import type { Clock, Ids } from '../shared/ports.ts';
import type { EventRepository } from './ports.ts';
import { isDomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { EVENT_PREFIXES, type EventOutcome, type EventPrefix } from './catalogue.ts';
import type { AnalyticEvent } from './model.ts';
import { EVENT_DATA_LIMITS, type EventDataLimits, isSecretName, sanitizeEventData, secretNameCache, TRUNCATED } from './sanitize.ts';

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
  /** How many events were lost or cut since the recorder started. */
  losses(): EventLosses;
}

/** Events the recorder could not keep whole (docs/limits.md "Analytic events"). */
export interface EventLosses {
  /** Refused at `record` because the queue was full (the newest are the ones dropped). */
  droppedQueueFull: number;
  /** Given up on: refused by the store while it wrote others, or unwritten for too long. */
  droppedUnwritable: number;
  /** Stored with part of their data replaced by the marker. */
  truncated: number;
  /** Flushes whose batch the store refused (each retried row by row). */
  failedWrites: number;
}

export interface EventRecorderOptions {
  events: Pick<EventRepository, 'insertMany'>;
  clock: Clock;
  ids: Ids;
  /** A queue this long is written at once rather than waiting for the next flush. */
  batchSize?: number;
  /** At most this many events wait in memory (default 10,000); past it new events are dropped and counted. */
  maxQueue?: number;
  /** How long the store may be unreachable before an unwritten event is given up on (default 10 minutes). */
  maxRetryMs?: number;
  /** Told when a batch could not be written; at most once per `reportIntervalMs`. */
  onError?: (error: unknown) => void;
  /** Told the losses so far when they changed; at most once per `reportIntervalMs`. */
  onLoss?: (losses: EventLosses) => void;
  /** Default one minute: how often at most `onError` and `onLoss` are called, so a log cannot fill. */
  reportIntervalMs?: number;
  /** What an event's data may hold (default EVENT_DATA_LIMITS). */
  limits?: EventDataLimits;
}

/** Replaces the values of secret-looking fields, at any depth, with a mask, within the event data limits. */
export function maskSecrets(value: unknown): unknown {
  return sanitizeEventData({ value }).data.value;
}

/** Codes are ours, but one taken from a payload must still be short. */
const boundCode = (code: string) => (code.length > 100 ? code.slice(0, 100) + TRUNCATED : code);

function keptData(
  level: 1 | 2 | 3,
  data: EventData | undefined,
  errorCode: string | undefined,
  limits: EventDataLimits,
  isSecret: (name: string) => boolean,
): { data?: Record<string, unknown>; truncated: boolean } {
  // Level 1 keeps at most the error code: nothing to walk.
  const meta = level >= 2 ? data?.meta : undefined;
  const payload = level >= 3 ? data?.payload : undefined;
  let out: Record<string, unknown> = {};
  let truncated = false;
  if (meta || payload) {
    const sanitized = sanitizeEventData({ ...meta, ...(payload ? { payload } : {}) }, limits, isSecret);
    out = sanitized.data;
    truncated = sanitized.truncated;
  }
  if (errorCode !== undefined) out.errorCode = boundCode(errorCode);
  return Object.keys(out).length > 0 ? { data: out, truncated } : { truncated };
}

/**
 * The part of an operation's data that the tenant's logging level allows to be stored: metadata
 * from level 2, payloads at level 3, always bounded and with secrets and credentials masked.
 */
export function eventDataFor(level: 1 | 2 | 3, data: EventData | undefined, errorCode?: string): Record<string, unknown> | undefined {
  return keptData(level, data, errorCode, EVENT_DATA_LIMITS, isSecretName).data;
}

/** When the first rows written one by one all fail, the store is taken to be down rather than refusing them. */
const PROBES = 3;

/**
 * Buffers events in memory and writes them in batches, so recording costs the request almost
 * nothing. The host flushes it on a timer and on shutdown; readers flush before they query.
 * One event the store refuses never holds up the others, and the queue is bounded.
 */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const { clock } = options;
  const batchSize = options.batchSize ?? 200;
  const maxQueue = options.maxQueue ?? 10_000;
  const maxRetryMs = options.maxRetryMs ?? 600_000;
  const reportIntervalMs = options.reportIntervalMs ?? 60_000;
  const limits = options.limits ?? EVENT_DATA_LIMITS;
  const isSecret = secretNameCache();
  const losses: EventLosses = { droppedQueueFull: 0, droppedUnwritable: 0, truncated: 0, failedWrites: 0 };
  let queue: AnalyticEvent[] = [];
  let writing: Promise<void> = Promise.resolve();
  let flushQueued = false;
  /** The last flush wrote nothing: leave retries to the host's timer rather than to every request. */
  let storeDown = false;
  let lastErrorAt = -Infinity;
  let lastLossAt = -Infinity;
  let lastLossKey = '0,0,0';

  const report = (error?: unknown) => {
    const now = clock.now().getTime();
    if (error !== undefined && options.onError && now - lastErrorAt >= reportIntervalMs) {
      lastErrorAt = now;
      options.onError(error);
    }
    const key = `${losses.droppedQueueFull},${losses.droppedUnwritable},${losses.truncated}`;
    if (options.onLoss && key !== lastLossKey && now - lastLossAt >= reportIntervalMs) {
      lastLossAt = now;
      lastLossKey = key;
      options.onLoss({ ...losses });
    }
  };

  /** After the batch failed: each row alone, so one bad row costs only itself. Returns the rows to retry. */
  const writeOneByOne = async (batch: AnalyticEvent[]): Promise<AnalyticEvent[]> => {
    let wrote = false;
    const failed: AnalyticEvent[] = [];
    let i = 0;
    for (; i < batch.length; i++) {
      if (!wrote && failed.length >= PROBES) break; // the store looks down: keep the rest untried
      const event = batch[i] as AnalyticEvent;
      try {
        await options.events.insertMany([event]);
        wrote = true;
      } catch {
        failed.push(event);
      }
    }
    storeDown = !wrote;
    if (wrote) {
      // The store took others: these rows are the problem, and retrying them would not help.
      losses.droppedUnwritable += failed.length;
      return batch.slice(i);
    }
    // Nothing written: keep everything, the failed rows behind the untried ones, until they are too old.
    const cutoff = clock.now().getTime() - maxRetryMs;
    const retry = failed.filter((e) => Date.parse(e.timestamp) >= cutoff);
    losses.droppedUnwritable += failed.length - retry.length;
    return batch.slice(i).concat(retry);
  };

  const flush = (): Promise<void> => {
    if (flushQueued) return writing;
    flushQueued = true;
    writing = writing
      .then(async () => {
        flushQueued = false;
        if (queue.length === 0) return report();
        const batch = queue;
        queue = [];
        try {
          await options.events.insertMany(batch);
          storeDown = false;
          return report();
        } catch (error) {
          losses.failedWrites += 1;
          const kept = await writeOneByOne(batch);
          queue = kept.concat(queue);
          if (queue.length > maxQueue) {
            losses.droppedUnwritable += queue.length - maxQueue;
            queue.length = maxQueue;
          }
          report(error);
        }
      })
      .catch(() => {
        // A reporting callback that threw must not stop every later flush.
      });
    return writing;
  };

  return {
    record(ctx, prefix, outcome, data) {
      if (queue.length >= maxQueue) {
        losses.droppedQueueFull += 1;
        return;
      }
      try {
        const errorCode = outcome === 'FAIL' ? String(data?.meta?.errorCode ?? 'InternalServerError') : undefined;
        const event: AnalyticEvent = {
          id: options.ids.uuid(),
          type: `${prefix}_${outcome}`,
          category: EVENT_PREFIXES[prefix],
          timestamp: clock.now().toISOString(),
          tenantId: ctx.tenant.id,
          requestId: ctx.requestId,
          requestIp: ctx.ip,
        };
        if (ctx.requestor) event.clientId = ctx.requestor.clientId;
        if (ctx.userAgent) event.userAgent = ctx.userAgent;
        let kept: ReturnType<typeof keptData>;
        try {
          kept = keptData(ctx.tenant.loggingLevel, data, errorCode, limits, isSecret);
        } catch {
          // Data that cannot even be read (a throwing getter, a revoked proxy): the event without it.
          kept = { data: { ...(errorCode === undefined ? {} : { errorCode: boundCode(errorCode) }), [TRUNCATED]: true }, truncated: true };
        }
        if (kept.data) event.data = kept.data;
        if (kept.truncated) losses.truncated += 1;
        queue.push(event);
        if (queue.length >= batchSize && !storeDown) void flush();
      } catch {
        // Recording never fails the operation it records.
        losses.droppedUnwritable += 1;
      }
    },
    flush,
    pending: () => queue.length,
    losses: () => ({ ...losses }),
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
