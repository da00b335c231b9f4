// Rotation of a tenant's signing keys, role by role (docs/key-custody.md "Rotation"): a new key signs
// from the moment of the rotation, and what the old one signed keeps verifying for an overlap.
// `POST /v1/signing-keys/<role>/rotate` and `vellum keys rotate --role <role>` both come here.

import { type Static, Type } from '@sinclair/typebox';
import type { EventPrefix } from '../events/catalogue.ts';
import type { EventRecorder } from '../events/recorder.ts';
import type { DidService } from '../dids/service.ts';
import type { VerifierApplicationService } from '../verification/applications/service.ts';
import type { DocumentSignerRecord } from '../mdoc-pki/model.ts';
import type { WalletTokens } from '../oauth/ports.ts';
import { WALLET_TOKEN_KEY_REFRESH_SECONDS } from '../oauth/token.ts';
import { adminOperations } from '../shared/admin-resource.ts';
import { Problems } from '../shared/body-problems.ts';
import { invalidField } from '../shared/errors.ts';
import type { Clock } from '../shared/ports.ts';
import type { Permission } from '../tenancy/permissions.ts';
import type { RequestContext, Tenant } from '../tenancy/model.ts';
import type { WebhookSigningKeys } from '../webhooks/keys.ts';

/**
 * The signing roles that rotate on request. `access-token`: the key of the tenant's wallet access
 * tokens (its JWKS). `webhook`: the webhook signing key (the webhook JWKS). `document-signers`: the
 * managed document signers of the tenant's mDoc IACAs (x5chain). `issuer-certificates`: the leaf
 * certificates of its managed issuer CA (x5c of SD-JWT VC, CWT, signed metadata, status lists).
 * `dids`: the keys of one did:web (its DID document). `verifier-applications`: the request-signing
 * key of one x509_hash verifier application (its certificate chain).
 */
export const SIGNING_KEY_ROLES = ['access-token', 'webhook', 'document-signers', 'issuer-certificates', 'dids', 'verifier-applications'] as const;
export type SigningKeyRole = (typeof SIGNING_KEY_ROLES)[number];

/** The longest overlap a rotation may ask for: 30 days. */
const MAX_OVERLAP_SECONDS = 30 * 86_400;
/** The access-token key's overlap when none is asked for: a day. */
const DEFAULT_OVERLAP_SECONDS = 86_400;

/** `POST /v1/signing-keys/access-token/rotate`: how long the old key keeps verifying. The other roles take no body. */
export const RotateAccessTokenKeyBody = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_OVERLAP_SECONDS, errorMessage: `A whole number of seconds, at most ${MAX_OVERLAP_SECONDS}` }),
    ),
  },
  { additionalProperties: false, errorMessage: 'An object such as { overlapSeconds: 86400 }, or nothing' },
);

/** `POST /v1/signing-keys/dids/rotate`: which did:web, and how long its old keys stay in its document (for good when not given). */
export const RotateDidKeysBody = Type.Object(
  {
    did: Type.String({ minLength: 1, maxLength: 2048, errorMessage: 'The did:web to rotate' }),
    overlapSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 * 365 * 86_400, errorMessage: 'A whole number of seconds, at most ten years' })),
  },
  { additionalProperties: false, errorMessage: "An object such as { did: 'did:web:acme.example', overlapSeconds: 31536000 }" },
);

/** `POST /v1/signing-keys/verifier-applications/rotate`: which x509_hash application; the CSR's country, when not its certificate's. */
export const RotateVerifierApplicationKeyBody = Type.Object(
  {
    applicationId: Type.String({ minLength: 1, maxLength: 64, errorMessage: 'The verifier application’s id' }),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', errorMessage: 'An ISO 3166-1 alpha-2 code, such as DE' })),
  },
  { additionalProperties: false, errorMessage: "An object such as { applicationId: '…' }" },
);

/** What a rotation answers (and its event records): what signs from now on, and what still verifies. */
export interface SigningKeyRotationView {
  role: SigningKeyRole;
  rotatedAt: string;
  /** What signs from now on: key ids (`kid`) for keys published as JWKs, signer ids for certificates. */
  active: string[];
  /**
   * What signed before and still verifies: until the overlap ends for the access-token key, until
   * its certificate expires for a signer; the webhook key's, while a pending delivery signs with it.
   */
  retired: Array<{ id: string; until?: string }>;
  /**
   * A key that signs once its certificate is uploaded (a verifier application's next key), and the
   * CSR to have a CA certify: until then the key in `active` goes on signing.
   */
  next?: { id: string; csr: string };
}

/** Forced rotation of managed certificate signers (mdoc-pki, issuer-pki): what was made, and what it supersedes. */
export interface SignerRotation {
  documentSigners(tenant: Tenant, now: Date): Promise<{ created: DocumentSignerRecord[]; superseded: DocumentSignerRecord[] }>;
  issuerLeaves(tenant: Tenant, now: Date): Promise<{ created: DocumentSignerRecord[]; superseded: DocumentSignerRecord[] }>;
}

export interface SigningKeyRotationDeps {
  events: EventRecorder;
  clock: Clock;
  walletTokens: WalletTokens;
  webhookSigningKeys: WebhookSigningKeys;
  signers: SignerRotation;
  dids: Pick<DidService, 'rotateKeys'>;
  verifierApplications: Pick<VerifierApplicationService, 'rotateKey'>;
  /** The wallet access tokens' lifetime: the access-token key's overlap is at least this plus a key refresh. */
  accessTokenTtlSeconds: number;
}

/** Rotates each role's key; each role needs the permission that manages it. */
export interface SigningKeyRotationService {
  rotate(ctx: RequestContext, role: SigningKeyRole, input?: unknown): Promise<SigningKeyRotationView>;
}

/** The permission each role's rotation needs, and the event prefix it records. */
const ROLE_RULES: Record<SigningKeyRole, { permission: Permission; event: EventPrefix }> = {
  'access-token': { permission: 'issuance-setup', event: 'SIGNING_KEY_ACCESS_TOKEN_ROTATE' },
  webhook: { permission: 'webhooks', event: 'SIGNING_KEY_WEBHOOK_ROTATE' },
  'document-signers': { permission: 'iacas:manage', event: 'SIGNING_KEY_DOCUMENT_SIGNERS_ROTATE' },
  'issuer-certificates': { permission: 'iacas:manage', event: 'SIGNING_KEY_ISSUER_CERTIFICATES_ROTATE' },
  dids: { permission: 'dids', event: 'SIGNING_KEY_DIDS_ROTATE' },
  'verifier-applications': { permission: 'verification', event: 'SIGNING_KEY_VERIFIER_APPLICATIONS_ROTATE' },
};

const signerRotationView = (
  role: SigningKeyRole,
  rotatedAt: string,
  made: { created: DocumentSignerRecord[]; superseded: DocumentSignerRecord[] },
): SigningKeyRotationView => ({
  role,
  rotatedAt,
  active: made.created.map((s) => s.id),
  retired: made.superseded.map((s) => ({ id: s.id, ...(s.certificateData?.notAfter !== undefined ? { until: s.certificateData.notAfter } : {}) })),
});

/** The roles that take a body. */
const BODY_ROLES: readonly SigningKeyRole[] = ['access-token', 'dids', 'verifier-applications'];

/** The overlap asked for, checked: at least the access tokens' lifetime and a key refresh, so that no token outlives its key. */
function overlapOf(input: unknown, minimum: number): number {
  if (input === undefined || input === null) return Math.max(DEFAULT_OVERLAP_SECONDS, minimum);
  const p = new Problems();
  if (!p.checkShape(RotateAccessTokenKeyBody, input)) p.throwIfAny(RotateAccessTokenKeyBody);
  const { overlapSeconds } = input as Static<typeof RotateAccessTokenKeyBody>;
  if (overlapSeconds === undefined) return Math.max(DEFAULT_OVERLAP_SECONDS, minimum);
  if (overlapSeconds < minimum) {
    throw invalidField(
      'overlapSeconds',
      `At least ${minimum} seconds: an access token lives ${minimum - WALLET_TOKEN_KEY_REFRESH_SECONDS} seconds, and another server may sign with the old key for ${WALLET_TOKEN_KEY_REFRESH_SECONDS} more`,
      overlapSeconds,
    );
  }
  return overlapSeconds;
}

export function createSigningKeyRotationService(deps: SigningKeyRotationDeps): SigningKeyRotationService {
  const { events, clock, walletTokens, webhookSigningKeys, signers, dids, verifierApplications } = deps;
  const minimumOverlap = deps.accessTokenTtlSeconds + WALLET_TOKEN_KEY_REFRESH_SECONDS;
  const operations = Object.fromEntries(SIGNING_KEY_ROLES.map((role) => [role, adminOperations(events, ROLE_RULES[role].permission)])) as Record<
    SigningKeyRole,
    ReturnType<typeof adminOperations>
  >;

  async function rotateRole(ctx: RequestContext, role: SigningKeyRole, input: unknown): Promise<SigningKeyRotationView> {
    if (!BODY_ROLES.includes(role) && input !== undefined && input !== null && !(typeof input === 'object' && Object.keys(input).length === 0)) {
      throw invalidField('body', `Rotating ${role} takes no options`, undefined);
    }
    const now = clock.now();
    const rotatedAt = now.toISOString();
    const tenantId = ctx.tenant.id;
    switch (role) {
      case 'access-token': {
        const overlap = overlapOf(input, minimumOverlap);
        const done = await walletTokens.rotate(tenantId, new Date(now.getTime() + overlap * 1000));
        return {
          role,
          rotatedAt,
          active: [done.activeKid],
          retired: done.retiredKid !== undefined ? [{ id: done.retiredKid, ...(done.retiredUntil !== undefined ? { until: done.retiredUntil } : {}) }] : [],
        };
      }
      case 'webhook': {
        const { active, retired } = await webhookSigningKeys.rotate(tenantId);
        return { role, rotatedAt, active: [active.keyId], retired: [{ id: retired.keyId }] };
      }
      case 'document-signers':
        return signerRotationView(role, rotatedAt, await signers.documentSigners(ctx.tenant, now));
      case 'issuer-certificates':
        return signerRotationView(role, rotatedAt, await signers.issuerLeaves(ctx.tenant, now));
      case 'dids': {
        const p = new Problems();
        if (!p.checkShape(RotateDidKeysBody, input)) p.throwIfAny(RotateDidKeysBody);
        const { did, overlapSeconds } = input as Static<typeof RotateDidKeysBody>;
        const { created, retired } = await dids.rotateKeys(tenantId, did, now, overlapSeconds);
        return {
          role,
          rotatedAt,
          active: created.map((k) => k.didDocumentKeyId),
          retired: retired.map((k) => ({ id: k.didDocumentKeyId, ...(k.verifiesUntil !== undefined ? { until: k.verifiesUntil } : {}) })),
        };
      }
      case 'verifier-applications': {
        const p = new Problems();
        if (!p.checkShape(RotateVerifierApplicationKeyBody, input)) p.throwIfAny(RotateVerifierApplicationKeyBody);
        const { applicationId, country } = input as Static<typeof RotateVerifierApplicationKeyBody>;
        const { current, next } = await verifierApplications.rotateKey(ctx.tenant, applicationId, country);
        return { role, rotatedAt, active: [current], retired: [], next: { id: next.keyId, csr: next.csrPem } };
      }
    }
  }

  return {
    rotate(ctx, role, input) {
      const meta = (r: SigningKeyRotationView) => ({ role: r.role, active: r.active, retired: r.retired.map((k) => k.id) });
      return operations[role].run(ctx, ROLE_RULES[role].event, { meta }, () => rotateRole(ctx, role, input));
    },
  };
}
