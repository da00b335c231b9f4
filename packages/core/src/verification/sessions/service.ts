// Presentation sessions over OpenID4VP 1.0 (docs/verification.md "Presentation sessions"): the
// tenant makes a session, the wallet fetches its signed request object and posts its vp_token to
// the response endpoint, Vellum verifies each presentation, evaluates the DCQL query, stores the
// result once, and tells the tenant through the session and a webhook.

import type { Static } from '@sinclair/typebox';
import { withEvents } from '../../events/recorder.ts';
import type { EventRecorder } from '../../events/recorder.ts';
import { issuerOf } from '../../metadata/service.ts';
import type { Store } from '../../ports.ts';
import { Problems } from '../../shared/body-problems.ts';
import { toBase64Url } from '../../shared/encoding.ts';
import { DomainError, invalidField, notFound } from '../../shared/errors.ts';
import { isUuid } from '../../shared/ids.ts';
import type { Clock, Digests, DomainEventSink, Ids, SecretBox } from '../../shared/ports.ts';
import { requirePermission } from '../../tenancy/admin-auth.ts';
import type { RequestContext } from '../../tenancy/model.ts';
import type { TrustedIssuerService } from '../trusted-issuers/service.ts';
import { type FormatVerifiers, VERIFIABLE_FORMATS, type VerifiableFormat, type VerificationResult } from '../model.ts';
import {
  type PresentationOutcome,
  type PresentationResult,
  type PresentationSession,
  RESPONSE_ENC_VALUES,
  type SessionResponseMode,
  type SessionState,
  SESSION_TTL_SECONDS,
  sessionKeyContext,
} from './model.ts';
import type { PresentationCrypto, SessionApplications, SessionDcql } from './ports.ts';
import { CreateSessionBody, PresentationResponseBody, RequestUriPostBody } from './schema.ts';
import { openId4VpSessionTranscript, thumbprintInput } from './transcript.ts';

export type CreateSessionInput = Static<typeof CreateSessionBody>;

export interface PresentationSessionDeps {
  store: Pick<Store, 'presentationSessions' | 'transaction'>;
  clock: Clock;
  ids: Ids;
  digests: Digests;
  /** Seals the ephemeral private keys of direct_post.jwt sessions at rest. */
  secrets: SecretBox;
  events: EventRecorder;
  /** The webhook outbox: PresentationVerified and PresentationFailed, written with the result. */
  domainEvents: DomainEventSink;
  crypto: PresentationCrypto;
  /** Contract A: the verifier applications and their request signers. */
  applications: SessionApplications;
  /** Contract B: DCQL. */
  dcql: SessionDcql;
  trustedIssuers: Pick<TrustedIssuerService, 'anchorsFor'>;
  verifiers: FormatVerifiers;
}

/** A session as the tenant reads it. */
export interface PresentationSessionView {
  id: string;
  applicationId: string;
  clientId: string;
  state: SessionState;
  responseMode: SessionResponseMode;
  redirectUri?: string;
  /** The `openid4vp://` authorization request: client_id and request_uri, request_uri_method=post. */
  authorizationRequestUri: string;
  requestUri: string;
  createdAt: string;
  expiresAt: string;
  completedAt?: string;
  result?: PresentationResult;
}

/** `POST /v2/presentations/sessions` answers the view and the OpenID4VP `state` it sent the wallet. */
export interface CreatedSessionView extends PresentationSessionView {
  oauthState: string;
}

export interface PresentationSessionService {
  /** `POST /v2/presentations/sessions` (permission `verification`). `basePath`: where the API is mounted. */
  create(ctx: RequestContext, input: unknown, basePath?: string): Promise<CreatedSessionView>;
  /** `GET /v2/presentations/sessions/{id}`; with `responseCode`, only when it is the code of the session's redirect. */
  get(ctx: RequestContext, id: string, query?: { responseCode?: string }, basePath?: string): Promise<PresentationSessionView>;
  /** `GET|POST /v1/openid/presentations/{id}/request`: the request object (a JWT). `form` is the POST body (§5.10). */
  requestObject(ctx: RequestContext, id: string, form: unknown, basePath?: string): Promise<string>;
  /** `POST /v1/openid/presentations/{id}/response`: OpenID4VP 1.0 §8.2; the answer to the wallet. */
  respond(ctx: RequestContext, id: string, form: unknown, basePath?: string): Promise<{ redirect_uri?: string }>;
  /** The page's data: the authorization request URI while the session waits, else its state. */
  page(ctx: RequestContext, id: string, basePath?: string): Promise<{ state: SessionState; authorizationRequestUri: string }>;
}

/** OpenID4VP 1.0 §5.8: the audience of a request object that a wallet fetches by reference. */
export const SELF_ISSUED_AUDIENCE = 'https://self-issued.me/v2';

/** OpenID4VP 1.0 Appendix B: what this verifier accepts, per format (client_metadata.vp_formats_supported). */
export const VP_FORMATS_SUPPORTED = {
  'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256', 'EdDSA'], 'kb-jwt_alg_values': ['ES256', 'EdDSA'] },
  mso_mdoc: { issuerauth_alg_values: [-7, -35, -36], deviceauth_alg_values: [-7] },
} as const;

const isVerifiable = (f: unknown): f is VerifiableFormat => typeof f === 'string' && (VERIFIABLE_FORMATS as readonly string[]).includes(f);

/** A wallet-facing refusal: the OAuth `error` body (OpenID4VP 1.0 §8.5 uses the OAuth error codes). */
const walletError = (message: string, code: 'BadRequest' | 'NotFound' = 'BadRequest') => new DomainError(code, message, { oauthError: 'invalid_request' });

const sessionPaths = (ctx: RequestContext, id: string, basePath?: string) => {
  const base = `${issuerOf(ctx, basePath)}/v1/openid/presentations/${id}`;
  return { requestUri: `${base}/request`, responseUri: `${base}/response` };
};

/** The state a stored session shows at `now`. */
export function sessionState(s: PresentationSession, now: Date): SessionState {
  if (s.status !== 'pending') return s.status;
  return now.getTime() >= Date.parse(s.expiresAt) ? 'expired' : 'pending';
}

/** Builds the presentation session use cases. */
export function createPresentationSessionService(deps: PresentationSessionDeps): PresentationSessionService {
  const { store, clock, ids, digests, secrets, events, domainEvents, crypto, applications, dcql, trustedIssuers, verifiers } = deps;

  const authorizationRequestUri = (clientId: string, requestUri: string) =>
    `openid4vp://?${new URLSearchParams({ client_id: clientId, request_uri: requestUri, request_uri_method: 'post' }).toString()}`;

  const view = (ctx: RequestContext, s: PresentationSession, basePath?: string): PresentationSessionView => {
    const { requestUri } = sessionPaths(ctx, s.id, basePath);
    return {
      id: s.id,
      applicationId: s.applicationId,
      clientId: s.clientId,
      state: sessionState(s, clock.now()),
      responseMode: s.responseMode,
      ...(s.redirectUri !== undefined ? { redirectUri: s.redirectUri } : {}),
      authorizationRequestUri: authorizationRequestUri(s.clientId, requestUri),
      requestUri,
      createdAt: s.createdAt,
      expiresAt: s.expiresAt,
      ...(s.completedAt !== undefined ? { completedAt: s.completedAt } : {}),
      ...(s.result ? { result: s.result } : {}),
    };
  };

  const checkId = (id: string, wallet: boolean) => {
    if (!isUuid(id))
      throw wallet ? walletError('No such presentation session', 'NotFound') : invalidField('id', 'A presentation session id (UUID)', id, 'params');
    return id;
  };

  /** The wallet's session: one that exists and still waits for its answer. */
  const openSession = async (ctx: RequestContext, id: string): Promise<PresentationSession> => {
    const s = await store.presentationSessions.get(ctx.tenant.id, checkId(id, true));
    if (!s) throw walletError('No such presentation session', 'NotFound');
    const state = sessionState(s, clock.now());
    if (state === 'expired') throw walletError('The presentation session has expired');
    if (state !== 'pending') throw walletError('The presentation session has been answered already');
    return s;
  };

  const thumbprintOf = (jwk: Record<string, unknown>) => crypto.sha256(new TextEncoder().encode(thumbprintInput(jwk)));

  /** Verifies one presentation of a credential query, against the tenant's anchors for its format. */
  async function verifyOne(
    ctx: RequestContext,
    s: PresentationSession,
    format: VerifiableFormat,
    presentation: string,
    responseUri: string,
  ): Promise<VerificationResult> {
    const verifier = verifiers[format];
    const failed = (reason: string): VerificationResult => ({ verified: false, format, claims: {}, checks: [{ check: 'readable', ok: false, reason }] });
    if (!verifier) return failed(`This server has no ${format} verifier`);
    const sessionTranscript =
      format === 'mso_mdoc'
        ? openId4VpSessionTranscript(
            { clientId: s.clientId, nonce: s.nonce, responseUri, ...(s.encryptionJwk ? { jwkThumbprint: thumbprintOf(s.encryptionJwk) } : {}) },
            (b) => crypto.sha256(b),
          )
        : undefined;
    try {
      return await verifier(presentation, {
        anchors: await trustedIssuers.anchorsFor(ctx.tenant.id, format),
        now: clock.now(),
        nonce: s.nonce,
        audience: s.clientId,
        ...(sessionTranscript ? { sessionTranscript } : {}),
      });
    } catch {
      return failed('The presentation could not be read');
    }
  }

  /** The wallet's answer, decrypted when the session asked for direct_post.jwt: its fields as strings. */
  async function readResponse(s: PresentationSession, form: unknown): Promise<Record<string, unknown>> {
    const p = new Problems();
    if (!p.checkShape(PresentationResponseBody, form)) throw walletError(`Malformed response: ${p.details.map((d) => `${d.param}: ${d.msg}`).join('; ')}`);
    const body = form as Static<typeof PresentationResponseBody>;
    if (s.responseMode === 'direct_post') {
      if (body.response !== undefined) throw walletError('This session asked for response_mode direct_post: the response is not encrypted');
      return body;
    }
    // direct_post.jwt (OpenID4VP 1.0 §8.3.1): everything comes inside the JWE, nothing beside it.
    if (body.response === undefined) throw walletError('This session asked for response_mode direct_post.jwt: post the encrypted response');
    const privateJwk = s.sealedKey === undefined ? undefined : secrets.open(s.sealedKey, sessionKeyContext(s.tenantId, s.id));
    if (privateJwk === undefined) throw walletError('The session can no longer decrypt responses');
    const opened = await crypto.decrypt(body.response, privateJwk, RESPONSE_ENC_VALUES);
    if ('reason' in opened) throw walletError(`The encrypted response cannot be read: ${opened.reason}`);
    const payload = opened.payload;
    // The JWE payload holds vp_token as JSON (an object), unlike the form where it is a string.
    return { ...payload, ...(payload.vp_token !== undefined && typeof payload.vp_token !== 'string' ? { vp_token: JSON.stringify(payload.vp_token) } : {}) };
  }

  /** The vp_token as OpenID4VP 1.0 §8.1 shapes it for DCQL: credential query id → non-empty array of presentations. */
  function parseVpToken(text: unknown): Record<string, string[]> {
    if (typeof text !== 'string') throw walletError('vp_token is required');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw walletError('vp_token is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw walletError('vp_token must be a JSON object: credential query id to presentations');
    const out: Record<string, string[]> = {};
    const entries = Object.entries(parsed as Record<string, unknown>);
    if (entries.length === 0 || entries.length > 50) throw walletError('vp_token must answer 1 to 50 credential queries');
    for (const [id, list] of entries) {
      if (!Array.isArray(list) || list.length === 0 || list.length > 20 || !list.every((x) => typeof x === 'string' && x.length > 0))
        throw walletError(`vp_token.${id.slice(0, 64)} must be a non-empty array of presentations (strings)`);
      out[id] = list as string[];
    }
    return out;
  }

  const formatOf = (query: Record<string, unknown>, id: string): unknown => {
    const credentials = Array.isArray(query.credentials) ? (query.credentials as Record<string, unknown>[]) : [];
    return credentials.find((c) => c && typeof c === 'object' && c.id === id)?.format;
  };

  const outcome = (r: VerificationResult): PresentationOutcome => ({
    verified: r.verified,
    format: r.format,
    ...(r.issuer ? { issuer: r.issuer } : {}),
    ...(r.credentialType !== undefined ? { credentialType: r.credentialType } : {}),
    ...(r.validity ? { validity: r.validity } : {}),
    ...(r.status ? { status: r.status } : {}),
    failedChecks: r.checks.filter((c) => !c.ok),
  });

  /** Verifies what the wallet sent and evaluates the query: the session's result. */
  async function evaluate(
    ctx: RequestContext,
    s: PresentationSession,
    answer: Record<string, unknown>,
    responseUri: string,
    receivedAt: string,
  ): Promise<PresentationResult> {
    if (typeof answer.error === 'string') {
      // OpenID4VP 1.0 §8.5: the wallet declined or failed; the session ends failed with its reason.
      const description = typeof answer.error_description === 'string' ? `: ${answer.error_description.slice(0, 300)}` : '';
      return { verified: false, credentials: {}, failures: [`The wallet answered ${answer.error.slice(0, 100)}${description}`], receivedAt };
    }
    const token = parseVpToken(answer.vp_token);
    const presented: Record<string, VerificationResult[]> = {};
    const credentials: PresentationResult['credentials'] = {};
    const failures: string[] = [];
    for (const [queryId, list] of Object.entries(token)) {
      const format = formatOf(s.dcqlQuery, queryId);
      if (!isVerifiable(format)) {
        failures.push(`vp_token answers ${queryId.slice(0, 64)}, which the query does not ask for`);
        continue;
      }
      presented[queryId] = await Promise.all(list.map((p) => verifyOne(ctx, s, format, p, responseUri)));
    }
    const evaluation = dcql.evaluate(s.dcqlQuery, presented);
    for (const [queryId, results] of Object.entries(presented)) {
      const e = evaluation.credentials[queryId];
      credentials[queryId] = {
        satisfied: (e?.satisfied ?? false) && results.every((r) => r.verified),
        claims: e?.claims ?? [],
        presentations: results.map(outcome),
        failures: e?.failures ?? [],
      };
    }
    failures.push(...evaluation.failures);
    const everyVerified = Object.values(presented).every((rs) => rs.every((r) => r.verified));
    return { verified: evaluation.satisfied && everyVerified && failures.length === 0, credentials, failures, receivedAt };
  }

  return {
    create(ctx, input, basePath) {
      return withEvents(
        events,
        ctx,
        'PRESENTATION_SESSION_CREATE',
        async () => {
          requirePermission(ctx, 'verification');
          const p = new Problems();
          p.checkShape(CreateSessionBody, input);
          const body = input as CreateSessionInput;
          if (!p.details.some((d) => d.param === 'body' || d.param.startsWith('dcqlQuery')))
            for (const problem of dcql.problems(body.dcqlQuery)) p.add(`dcqlQuery${problem.path ? `.${problem.path}` : ''}`, problem.message);
          p.throwIfAny(CreateSessionBody);

          const now = clock.now();
          const id = ids.uuid();
          const { responseUri } = sessionPaths(ctx, id, basePath);
          const { application, signer } = await applications.signerFor(ctx.tenant, body.applicationId, responseUri, now);
          const allowed = application.responseModes;
          const responseMode: SessionResponseMode =
            body.responseMode ?? (allowed.includes('direct_post.jwt') ? 'direct_post.jwt' : (allowed[0] ?? 'direct_post.jwt'));
          if (!allowed.includes(responseMode)) p.add('responseMode', `The application allows ${allowed.join(', ')}`, responseMode);
          if (body.redirectUri !== undefined && !application.redirectUris.includes(body.redirectUri))
            p.add('redirectUri', 'Not one of the application’s redirect URIs', body.redirectUri);
          p.throwIfAny(CreateSessionBody);

          const key = responseMode === 'direct_post.jwt' ? await crypto.generateKey() : undefined;
          const iso = now.toISOString();
          const session: PresentationSession = {
            tenantId: ctx.tenant.id,
            id,
            applicationId: application.id,
            clientId: signer.clientId,
            responseMode,
            ...(body.redirectUri !== undefined ? { redirectUri: body.redirectUri } : {}),
            state: ids.token(),
            nonce: ids.token(),
            dcqlQuery: body.dcqlQuery as Record<string, unknown>,
            ...(key ? { encryptionJwk: key.publicJwk, sealedKey: secrets.seal(key.privateJwk, sessionKeyContext(ctx.tenant.id, id)) } : {}),
            status: 'pending',
            expiresAt: new Date(now.getTime() + (body.expiresIn ?? SESSION_TTL_SECONDS.default) * 1000).toISOString(),
            createdAt: iso,
            updatedAt: iso,
          };
          await store.presentationSessions.insert(session);
          return { ...view(ctx, session, basePath), oauthState: session.state };
        },
        { input, meta: (v) => ({ id: v.id, applicationId: v.applicationId, responseMode: v.responseMode }), response: ({ oauthState: _s, ...v }) => v },
      );
    },

    get(ctx, id, query = {}, basePath) {
      return withEvents(
        events,
        ctx,
        'PRESENTATION_SESSION_RETRIEVE',
        async () => {
          requirePermission(ctx, 'verification');
          const s = await store.presentationSessions.get(ctx.tenant.id, checkId(id, false));
          if (!s) throw notFound('The tenant has no such presentation session');
          if (query.responseCode !== undefined && (s.responseCodeDigest === undefined || digests.sha256(query.responseCode) !== s.responseCodeDigest))
            throw invalidField('responseCode', 'Not the response code of this session', undefined, 'query');
          return view(ctx, s, basePath);
        },
        { meta: (v) => ({ id: v.id, state: v.state }), keepResponse: false },
      );
    },

    requestObject(ctx, id, form, basePath) {
      return withEvents(
        events,
        ctx,
        'OPENID_PRESENTATION_REQUEST',
        async () => {
          let walletNonce: string | undefined;
          if (form !== undefined) {
            const p = new Problems();
            if (!p.checkShape(RequestUriPostBody, form)) throw walletError(`Malformed request: ${p.details.map((d) => `${d.param}: ${d.msg}`).join('; ')}`);
            const body = form as Static<typeof RequestUriPostBody>;
            if (body.wallet_metadata !== undefined) {
              let metadata: unknown;
              try {
                metadata = JSON.parse(body.wallet_metadata);
              } catch {
                metadata = undefined;
              }
              if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) throw walletError('wallet_metadata must be a JSON object');
            }
            walletNonce = body.wallet_nonce;
          }
          const s = await openSession(ctx, id);
          const now = clock.now();
          const { responseUri } = sessionPaths(ctx, s.id, basePath);
          const { application, signer } = await applications.signerFor(ctx.tenant, s.applicationId, responseUri, now);
          if (signer.clientId !== s.clientId) throw walletError('The verifier application changed since the session was made');
          const claims: Record<string, unknown> = {
            iss: s.clientId,
            aud: SELF_ISSUED_AUDIENCE,
            response_type: 'vp_token',
            client_id: s.clientId,
            response_uri: responseUri,
            response_mode: s.responseMode,
            nonce: s.nonce,
            state: s.state,
            dcql_query: s.dcqlQuery,
            client_metadata: {
              vp_formats_supported: VP_FORMATS_SUPPORTED,
              ...(s.encryptionJwk ? { jwks: { keys: [s.encryptionJwk] }, encrypted_response_enc_values_supported: [...RESPONSE_ENC_VALUES] } : {}),
              ...(application.display
                ? { client_name: application.display.name, ...(application.display.logoUri ? { logo_uri: application.display.logoUri } : {}) }
                : {}),
            },
            iat: Math.floor(now.getTime() / 1000),
            exp: Math.floor(Date.parse(s.expiresAt) / 1000),
            ...(walletNonce !== undefined ? { wallet_nonce: walletNonce } : {}),
          };
          if (signer.sign) return signer.sign(claims);
          // The redirect_uri prefix (OpenID4VP 1.0 §5.9.3): its requests are not signed.
          return `${toBase64Url(JSON.stringify({ alg: 'none', typ: 'oauth-authz-req+jwt' }))}.${toBase64Url(JSON.stringify(claims))}.`;
        },
        { meta: () => ({ id, method: form === undefined ? 'get' : 'post' }), keepResponse: false },
      );
    },

    respond(ctx, id, form, basePath) {
      return withEvents(
        events,
        ctx,
        'OPENID_PRESENTATION_RESPONSE',
        async () => {
          const s = await openSession(ctx, id);
          const answer = await readResponse(s, form);
          // The state binds the answer to this session: a mismatch is refused and ends nothing.
          if (answer.state !== s.state) throw walletError('state does not match the session');
          if (typeof answer.error !== 'string') parseVpToken(answer.vp_token);
          const { responseUri } = sessionPaths(ctx, s.id, basePath);
          const receivedAt = clock.now().toISOString();
          const result = await evaluate(ctx, s, answer, responseUri, receivedAt);
          const responseCode = s.redirectUri !== undefined ? ids.token() : undefined;
          const completedAt = clock.now().toISOString();
          const done = await store.transaction(async (tx) => {
            const completed = await tx.presentationSessions.complete(
              ctx.tenant.id,
              s.id,
              {
                status: result.verified ? 'verified' : 'failed',
                result,
                ...(responseCode ? { responseCodeDigest: digests.sha256(responseCode) } : {}),
                completedAt,
              },
              completedAt,
            );
            if (!completed) return undefined;
            await domainEvents.publish(tx, {
              id: ids.uuid(),
              tenantId: ctx.tenant.id,
              occurredAt: completedAt,
              type: result.verified ? 'PresentationVerified' : 'PresentationFailed',
              payload: {
                sessionId: s.id,
                applicationId: s.applicationId,
                verified: result.verified,
                credentials: result.credentials,
                failures: result.failures,
              },
            });
            return completed;
          });
          // Another answer won the race, or the session expired while this one was verified: nothing was written.
          if (!done) throw walletError('The presentation session has been answered already or has expired');
          return {
            verified: result.verified,
            failures: result.failures,
            failedChecks: Object.values(result.credentials).flatMap((c) =>
              c.presentations.flatMap((p) => p.failedChecks.map((f) => `${f.check}: ${f.reason ?? ''}`)),
            ),
            answer: responseCode && s.redirectUri ? { redirect_uri: `${s.redirectUri}#response_code=${responseCode}` } : {},
          };
        },
        {
          // Refusal reasons are words safe to show (no claims); the vp_token is payload, kept at level 3 only.
          input: form,
          meta: (r) => ({ id, verified: r.verified, failures: r.failures.slice(0, 20), failedChecks: r.failedChecks.slice(0, 20) }),
          response: (r) => ({ verified: r.verified }),
        },
      ).then((r) => r.answer);
    },

    async page(ctx, id, basePath) {
      const s = await store.presentationSessions.get(ctx.tenant.id, checkId(id, true));
      if (!s) throw walletError('No such presentation session', 'NotFound');
      return { state: sessionState(s, clock.now()), authorizationRequestUri: view(ctx, s, basePath).authorizationRequestUri };
    },
  };
}

/**
 * What a server composed without the crypto port sessions need (createVellum's `presentationCrypto`)
 * answers: 503, after the same permission check, so nothing pretends to work.
 */
export function unavailablePresentationSessions(): PresentationSessionService {
  const unavailable = () => new DomainError('ServiceUnavailable', 'This server has no presentation sessions: it was composed without their crypto port');
  const admin = async (ctx: RequestContext): Promise<never> => {
    requirePermission(ctx, 'verification');
    throw unavailable();
  };
  const wallet = async (): Promise<never> => {
    throw unavailable();
  };
  return { create: admin, get: admin, requestObject: wallet, respond: wallet, page: wallet };
}
