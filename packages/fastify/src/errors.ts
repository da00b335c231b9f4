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
  const fe = error as FastifyError;
  const status = isDomainError(error) ? STATUS_BY_CODE[error.code] : typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  // A request no route takes (an unknown path, a parameter past the router's 500 characters) is
  // refused for that, whatever its body: Fastify parses the body for its not-found handler too,
  // and a refusal of that body would speak for a route that does not exist, in no route's style.
  if (request.is404 && status < 500) {
    const notFound = () => sendError(reply, new DomainError('NotFound', `No route for ${request.method} ${request.url.split('?')[0]}`), 'api');
    return status === 413 && !request.raw.complete ? discardRestOfBody(request).then(() => void notFound()) : notFound();
  }
  if (isDomainError(error)) return sendError(reply, error, style);
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

/** How much of an unread body is read and thrown away before an early answer (such as a 413) goes out. */
export const MAX_DISCARDED_BODY_BYTES = 4 * 1024 * 1024;
/** How long the rest of an unread body may take to arrive before the early answer is sent anyway. */
const DISCARD_TIMEOUT_MS = 10_000;

/** The discarding of a request's unread body, once begun: true when the body ended, false when a bound was met. */
const discarding = new WeakMap<FastifyRequest['raw'], Promise<boolean>>();

/**
 * Reads and drops the rest of a request body. Settles true when the body has ended; false at once
 * when its declared length is over MAX_DISCARDED_BODY_BYTES, or when that many bytes or
 * DISCARD_TIMEOUT_MS have passed: the answer is then sent while the client is still sending, as
 * Fastify does (clients that read early answers still get it), and the connection closes after it.
 * Called twice for one request (the error handler, then the `onSend` hook), it discards once.
 */
function discardRestOfBody(request: FastifyRequest): Promise<boolean> {
  const raw = request.raw;
  const begun = discarding.get(raw);
  if (begun !== undefined) return begun;
  const declared = Number(request.headers['content-length']);
  const discarded =
    Number.isFinite(declared) && declared > MAX_DISCARDED_BODY_BYTES
      ? Promise.resolve(false)
      : new Promise<boolean>((resolve) => {
          let bytes = 0;
          const finish = (ended: boolean) => {
            clearTimeout(timer);
            raw.off('data', onData);
            raw.off('end', onEnd);
            raw.off('error', onFailure);
            raw.off('close', onFailure);
            resolve(ended);
          };
          const onEnd = () => finish(true);
          const onFailure = () => finish(false);
          const onData = (chunk: Buffer | string) => {
            bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
            if (bytes > MAX_DISCARDED_BODY_BYTES) finish(false);
          };
          const timer = setTimeout(onFailure, DISCARD_TIMEOUT_MS);
          raw.on('data', onData);
          raw.on('end', onEnd);
          raw.on('error', onFailure);
          raw.on('close', onFailure);
          raw.resume();
        });
  discarding.set(raw, discarded);
  return discarded;
}

/**
 * An `onSend` hook for the host's root: an answer that is ready before its request's body has all
 * arrived (a refusal in a hook, an unsupported media type, a GET with a body) waits until the rest
 * of that body has been read and dropped, within the bounds above; past them it goes at once and
 * closes the connection. A client sends its next request on the connection only after this answer,
 * so that request starts a read of its own instead of sharing one with the rest of this body: a
 * malformed one is then seen from its request line on, and `handleClientError` knows its method.
 */
export function readBodyBeforeEarlyAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  // `readableEnded` too: a request injected by light-my-request (app.inject) never sets `complete`.
  if (request.raw.complete || request.raw.readableEnded) {
    done(null, payload);
    return;
  }
  void discardRestOfBody(request).then((ended) => {
    if (!ended) reply.header('connection', 'close');
    done(null, payload);
  });
}

/** How long a connection answered by `handleClientError` stays open for the client to read the answer. */
const CLIENT_ERROR_LINGER_MS = 2000;
/** The connections `handleClientError` has answered. */
const answered = new WeakSet<Socket>();

/** A parse failure as Node's HTTP server reports it: the chunk it was reading and how far it got. */
interface ParseError extends Error {
  rawPacket?: Buffer;
  bytesParsed?: number;
}

// Any method Node's parser takes (WebDAV's PROPFIND and SEARCH too), not only HTTP's own: a method
// not listed here would leave a request refused for its URL with no error body.
const METHOD_AT = /(?:^|[^A-Z-])([A-Z][A-Z-]{2,19}) [/*a-z]/g;

/**
 * The method of the request a parse failure belongs to, when the chunk shows it: the last request
 * line begun before the point of failure. On a kept-alive connection the chunk can start with the
 * rest of the previous request's body, so the request line is looked for, not taken from the start.
 */
export function requestMethodOf(error: ParseError): string | undefined {
  const packet = error.rawPacket;
  if (packet === undefined) return undefined;
  const end = typeof error.bytesParsed === 'number' && error.bytesParsed > 0 ? Math.min(error.bytesParsed + 1, packet.length) : packet.length;
  const text = packet.subarray(Math.max(0, end - 64 * 1024), end).toString('latin1');
  let method: string | undefined;
  for (const m of text.matchAll(METHOD_AT)) method = m[1];
  return method;
}

/**
 * Answers connection-level parse failures (e.g. headers over the 16 KB limit, docs/decisions.md "HTTP")
 * with the error body instead of Node's bare status line. Pass it as Fastify's `clientErrorHandler`,
 * with `readBodyBeforeEarlyAnswer` as a root `onSend` hook so that a malformed request that follows an
 * early answer is seen from its request line on.
 */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // Once answered, the connection's parser fails again on each chunk that still comes (the rest of
  // the failed request's body): the answer stands, and the linger below ends the connection. Ending
  // it at once, with those bytes unread, would reset it under a client still reading the answer.
  if (answered.has(socket)) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  answered.add(socket);
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
  // read, and on a kept-alive connection a request line can begin in the chunk before. Then the
  // answer is the status line alone, right for HEAD and still saying why (its status) for the rest.
  const method = requestMethodOf(error as ParseError);
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
