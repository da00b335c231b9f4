// The verify API (docs/verification.md "The verify API"): an operator posts one credential or
// presentation and gets the verification result, checked against the tenant's trusted issuers.

import type { Static } from '@sinclair/typebox';
import { withEvents } from '../events/recorder.ts';
import type { EventRecorder } from '../events/recorder.ts';
import { Problems } from '../shared/body-problems.ts';
import { base64UrlToBytes } from '../shared/encoding.ts';
import { DomainError } from '../shared/errors.ts';
import type { Clock } from '../shared/ports.ts';
import { requirePermission } from '../tenancy/admin-auth.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { type FormatVerifiers, VERIFIABLE_FORMATS, type VerifiableFormat, type VerificationResult, type VerifyOptions } from './model.ts';
import { VerifyBody } from './schema.ts';
import type { TrustedIssuerService } from './trusted-issuers/service.ts';

export type VerifyInput = Static<typeof VerifyBody>;

export interface VerificationDeps {
  clock: Clock;
  events: EventRecorder;
  /** Where the tenant's anchors come from (cached per tenant there). */
  trustedIssuers: Pick<TrustedIssuerService, 'anchorsFor'>;
  /** The verifiers the host composed; a format without one is refused with 503. */
  verifiers: FormatVerifiers;
}

/** `POST /v2/credentials/{profile}/verify`, permission `verification`. */
export interface VerificationService {
  /**
   * Verifies one credential of `format`. A credential that fails a check is still an answer
   * (`verified: false`); only malformed input is a 400, and a format this server cannot verify a 503.
   */
  verify(ctx: RequestContext, format: string, input: unknown): Promise<VerificationResult>;
}

const isVerifiable = (f: string): f is VerifiableFormat => (VERIFIABLE_FORMATS as readonly string[]).includes(f);

export function createVerificationService(deps: VerificationDeps): VerificationService {
  const { clock, events, trustedIssuers, verifiers } = deps;
  return {
    verify(ctx, format, input) {
      return withEvents(
        events,
        ctx,
        'CREDENTIAL_VERIFY',
        async () => {
          requirePermission(ctx, 'verification');
          if (!isVerifiable(format)) throw new DomainError('BadRequest', `The ${String(format).slice(0, 40)} format is not verifiable yet`);
          const p = new Problems();
          p.checkShape(VerifyBody, input);
          const body = input as VerifyInput;
          let transcript: Uint8Array | undefined;
          if (!p.has('sessionTranscript') && body?.sessionTranscript !== undefined) {
            if (format !== 'mso_mdoc') p.add('sessionTranscript', 'Only mobile (mso_mdoc) credentials are bound to a session transcript');
            else if (!(transcript = base64UrlToBytes(body.sessionTranscript))) p.add('sessionTranscript', 'Not base64url');
          }
          p.throwIfAny(VerifyBody);
          const verifier = verifiers[format];
          // docs/verification.md: the host did not compose this format's verifier; the request was sound.
          if (!verifier) throw new DomainError('ServiceUnavailable', `This server has no ${format} verifier`);
          const options: VerifyOptions = {
            anchors: await trustedIssuers.anchorsFor(ctx.tenant.id, format),
            now: clock.now(),
            ...(body.nonce !== undefined ? { nonce: body.nonce } : {}),
            ...(body.audience !== undefined ? { audience: body.audience } : {}),
            ...(transcript ? { sessionTranscript: transcript } : {}),
          };
          try {
            return await verifier(body.credential, options);
          } catch {
            // A verifier promises not to throw; if one does, the caller still gets an answer, not a 500.
            return { verified: false, format, claims: {}, checks: [{ check: 'readable', ok: false, reason: 'The credential could not be read' }] };
          }
        },
        {
          // Level 2 keeps only what was checked, which checks failed and why; the credential and its
          // claims are payloads, kept at level 3 only (docs/decisions.md "Analytic events").
          input,
          meta: (r) => {
            const failed = r.checks.filter((c) => !c.ok);
            // The reasons name checks, fields and types, never a claim's value (docs/verification.md).
            return { format: r.format, verified: r.verified, failedChecks: failed.map((c) => c.check), reasons: failed.map((c) => c.reason ?? 'Failed') };
          },
        },
      );
    },
  };
}
