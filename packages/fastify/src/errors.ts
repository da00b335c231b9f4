import type { Socket } from 'node:net';
import { DomainError, type ErrorCode, type ErrorDetail, isDomainError, type OAuthErrorCode, oauthErrorDescription } from '@vellum/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { boundDetails } from './body-limits.ts';
import { RAW_SECURITY_HEADERS } from './http-policy.ts';

/** The one table from error class to HTTP status (STYLE 8). */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  RequestHeaderFieldsTooLarge: 431,
  TooManyRequests: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
};

const CODE_BY_STATUS = new Map<number, ErrorCode>(Object.entries(STATUS_BY_CODE).map(([c, s]) => [s, c as ErrorCode]));

/** The error body (docs/errors.md), with the OAuth fields that token and wallet endpoints add. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  error?: OAuthErrorCode;
  error_description?: string;
}

/** How a route reports failures: the admin API's body, or OAuth's (token and wallet endpoints). */
export type ErrorStyle = 'api' | 'oauth';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorStyle?: ErrorStyle;
  }
}

function oauthErrorFor(code: ErrorCode): OAuthErrorCode {
  return code === 'Unauthorized' || code === 'Forbidden' ? 'access_denied' : 'invalid_request';
}

/** The OAuth `error` each refusal in the OAuth style answered with, for the metrics plugin to count. */
const answeredOAuthErrors = new WeakMap<FastifyReply, string>();

/** The OAuth `error` this reply answered with, if `sendError` wrote one. */
export function answeredOAuthError(reply: FastifyReply): string | undefined {
  return answeredOAuthErrors.get(reply);
}

/** Renders a DomainError in the style the route asks for. */
export function sendError(reply: FastifyReply, error: DomainError, style: ErrorStyle): FastifyReply {
  const status = STATUS_BY_CODE[error.code];
  if (style === 'api' && error.code === 'Unauthorized') {
    // docs/errors.md: an unauthorized admin request gets the plain word, with a Bearer challenge.
    return reply.code(401).header('www-authenticate', 'Bearer').type('text/plain; charset=utf-8').send('Unauthorized');
  }
  // RFC 9110 §10.2.3: a rate-limited request learns when to try again (docs/limits.md).
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  // The core's own challenge (DPoP, RFC 9449 §7.1) or DPoP-Nonce goes out as it wrote it.
  if (error.headers) reply.headers(error.headers);
  const body: ErrorBody = { code: error.code, message: error.message };
  // Bounded, so that no received value can make the error body too large or too deep to serialise.
  if (error.details?.length) body.details = boundDetails(error.details);
  if (style === 'oauth') {
    body.error = error.oauthError ?? oauthErrorFor(error.code);
    answeredOAuthErrors.set(reply, body.error);
    // RFC 6749 §5.2: printable ASCII without `"` and `\`, whatever the message says.
    body.error_description = oauthErrorDescription(error.message);
    reply.header('cache-control', 'no-store');
    // RFC 6750 §3: a resource request without a valid access token is challenged (docs/errors.md).
    if (body.error === 'invalid_token' && !reply.hasHeader('www-authenticate')) reply.header('www-authenticate', 'Bearer error="invalid_token"');
    // RFC 6749 §5.2: a client that failed to authenticate is challenged with the scheme it may use.
    if (body.error === 'invalid_client' && status === 401) reply.header('www-authenticate', 'Basic realm="token endpoint"');
  }
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/**
 * The single error handler (STYLE 8): domain errors and client errors render as the error body;
 * anything else becomes a 500 that says only the request id, with the detail in the log.
 */
export function handleError(error: FastifyError | DomainError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<void> {
  const style = request.routeOptions.config?.errorStyle ?? 'api';
  if (isDomainError(error)) return sendError(reply, error, style);
  const fe = error as FastifyError;
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  const code = CODE_BY_STATUS.get(status) ?? (status >= 500 ? 'InternalServerError' : 'BadRequest');
  if (status === 413 && !request.raw.complete) {
    // Read the rest of the body before answering: a client still sending when the connection
    // closes sees EPIPE or a reset instead of the 413 (the answer then closes the connection).
    return discardRestOfBody(request).then(() => {
      sendError(reply, new DomainError('PayloadTooLarge', fe.message || code), style);
    });
  }
  if (status < 500) return sendError(reply, new DomainError(code, fe.message || code), style);
  return sendInternalError(error, request, reply, style);
}

/** A failure the caller cannot act on: logged in full, answered with the request id only. */
function sendInternalError(error: Error, request: FastifyRequest, reply: FastifyReply, style: ErrorStyle): FastifyReply {
  request.log.error({ err: error }, 'request failed');
  return sendError(reply, new DomainError('InternalServerError', `Something went wrong; quote request id ${request.id}`), style);
}

/** How much of an oversized body is read and thrown away so that the client can read the 413. */
export const MAX_DISCARDED_BODY_BYTES = 4 * 1024 * 1024;
/** How long an oversized body may take to arrive before the 413 is sent anyway. */
const DISCARD_TIMEOUT_MS = 10_000;

/**
 * Reads and drops the rest of a request body. Settles when the body has ended, or at once when its
 * declared length is over MAX_DISCARDED_BODY_BYTES, or when that many bytes or DISCARD_TIMEOUT_MS
 * have passed: the 413 is then sent while the client is still sending, as Fastify does (clients
 * that read early answers still get it), and the connection closes after it.
 */
function discardRestOfBody(request: FastifyRequest): Promise<void> {
  const raw = request.raw;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_DISCARDED_BODY_BYTES) return Promise.resolve();
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', finish);
      raw.off('error', finish);
      raw.off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer | string) => {
      discarded += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (discarded > MAX_DISCARDED_BODY_BYTES) finish();
    };
    const timer = setTimeout(finish, DISCARD_TIMEOUT_MS);
    raw.on('data', onData);
    raw.on('end', finish);
    raw.on('error', finish);
    raw.on('close', finish);
    raw.resume();
  });
}

/** How long a connection answered by `handleClientError` stays open for the client to read the answer. */
const CLIENT_ERROR_LINGER_MS = 2000;

/** A parse failure as Node's HTTP server reports it: the chunk it was reading and how far it got. */
interface ParseError extends Error {
  rawPacket?: Buffer;
  bytesParsed?: number;
}

const METHOD_AT = /(?:^|[^A-Z])(GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH|TRACE|CONNECT) [/*a-z]/g;

/** The method of the last request line begun in `text`, if it shows one. */
function lastMethodIn(text: string): string | undefined {
  let method: string | undefined;
  for (const m of text.matchAll(METHOD_AT)) method = m[1];
  return method;
}

/** What a connection followed by `followRequestLines` remembers of the bytes read before the current chunk. */
interface RequestLineTrail {
  /** The method of the last request line seen in earlier chunks. */
  method: string | undefined;
  /** The last bytes of the previous chunk, for a request line split between two chunks. */
  carry: string;
}

const TRAIL = Symbol('vellum.requestLineTrail');
type FollowedSocket = Socket & { [TRAIL]?: RequestLineTrail };
/** Longer than any method and the space and byte after it. */
const CARRY_BYTES = 16;

/**
 * Keeps track of where request lines begin on the connection of a request that is being answered
 * before its body has all arrived (a refusal in a hook, a GET with a body, an unsupported type).
 * The rest of that body is then read after the answer, and the client's next request can share a
 * read with it and be split across two reads: if that request is malformed, the chunk Node hands
 * `handleClientError` may hold only the end of its request line, not its method. From the early
 * answer on, the connection's bytes pass through here as well (Node then parses them in JavaScript
 * instead of natively, for that connection only), so the method is known whatever the reads.
 * Call it before an answer is written (an `onSend` hook), with the request's raw message.
 */
export function followRequestLines(request: { readonly complete: boolean; readonly socket: Socket }): void {
  if (request.complete) return;
  const socket = request.socket as FollowedSocket;
  if (socket[TRAIL] !== undefined) return;
  const trail: RequestLineTrail = { method: undefined, carry: '' };
  socket[TRAIL] = trail;
  // Node's own parser reads each chunk first, so a parse failure is reported before this sees the
  // chunk that caused it: the trail then holds only what came before.
  socket.on('data', (chunk: Buffer) => {
    const text = trail.carry + chunk.toString('latin1');
    trail.method = lastMethodIn(text) ?? trail.method;
    trail.carry = text.slice(-CARRY_BYTES);
  });
}

/**
 * The method of the request a parse failure belongs to: the last request line begun before the
 * point of failure, in the chunk being parsed or, on a connection `followRequestLines` follows,
 * in the chunks before it. On a kept-alive connection the chunk can start with the rest of the
 * previous request's body, so the request line is looked for, not taken from the start.
 */
export function requestMethodOf(error: ParseError, socket?: Socket): string | undefined {
  const trail = (socket as FollowedSocket | undefined)?.[TRAIL];
  const packet = error.rawPacket;
  if (packet === undefined) return undefined;
  const end = typeof error.bytesParsed === 'number' && error.bytesParsed > 0 ? Math.min(error.bytesParsed + 1, packet.length) : packet.length;
  const text = (trail?.carry ?? '') + packet.subarray(Math.max(0, end - 64 * 1024), end).toString('latin1');
  return lastMethodIn(text) ?? trail?.method;
}

/**
 * Answers connection-level parse failures (e.g. headers over the 16 KB limit, docs/decisions.md "HTTP")
 * with the error body instead of Node's bare status line. Pass it as Fastify's `clientErrorHandler`,
 * and call `followRequestLines` from a root `onSend` hook so that it knows the method of a request
 * that follows an early answer.
 */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // The answer half-closes the connection; a client that never closes its side must not keep it.
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'RequestHeaderFieldsTooLarge', 'Request headers exceed 16 KB']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'BadRequest', 'Request timed out']
        : [400, 'BadRequest', 'Malformed HTTP request'];
  const body = JSON.stringify({ code, message });
  const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  // RFC 9110 §9.3.2: no content in an answer to HEAD (a client would read it as a broken next answer).
  // A parse failure's chunk may not show the method: headers too long come with the last chunk Node
  // read, and a request line can begin in the chunk before (after an early answer on a kept-alive
  // connection, which `followRequestLines` follows, so that its method is still known; or from a
  // client that pipelines). Where it stays unknown, the answer is the status line alone, right for
  // HEAD and still saying why (its status) for the rest.
  const method = requestMethodOf(error as ParseError, socket);
  const content = method === 'HEAD' || (method === undefined && error.code?.startsWith('HPE_')) ? '' : body;
  const length = method === 'HEAD' ? Buffer.byteLength(body) : Buffer.byteLength(content);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n${RAW_SECURITY_HEADERS}Content-Type: application/json; charset=utf-8\r\nContent-Length: ${length}\r\n\r\n${content}`,
  );
}

/**
 * Answers what Fastify refuses before any route runs (a URL whose percent-encoding does not decode)
 * with the error body: Fastify's own answer echoes the URL unescaped, which is neither the error
 * body nor always JSON. Pass it as Fastify's `frameworkErrors`.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_BAD_URL') {
    void sendError(reply, new DomainError('BadRequest', 'Malformed URL: its percent-encoding does not decode'), 'api');
    return;
  }
  void sendInternalError(error, request, reply, 'api');
}
