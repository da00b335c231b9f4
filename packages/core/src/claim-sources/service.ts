import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids, SecretBox } from '../shared/ports.ts';
import { adminCollection, type CollectionService } from '../shared/admin-resource.ts';
import { conflict, invalidField, notFound } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import type { PageQuery } from '../shared/pagination.ts';
import type { ClaimSource, ClaimSourceAuthorization, ClaimSourceParameter } from './model.ts';
import { type CheckedClaimSource, checkClaimSourceInput } from './rules.ts';

export interface ClaimSourceDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
  /** Seals the API key or client secret under the master key. */
  secrets: SecretBox;
}

/** How Vellum authenticates to the source, as the API shows it: never the key or the secret. */
export type ClaimSourceAuthorizationView =
  | { type: 'api-key' }
  | {
      type: 'oauth-client-credentials';
      tokenEndpoint: string;
      clientId: string;
      audience?: string;
      tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
    };

/** A claim source as the API shows it (docs/authentication.md). */
export interface ClaimSourceView {
  id: string;
  name: string;
  url: string;
  requestMethod: 'GET' | 'POST';
  requestParameters: Record<string, ClaimSourceParameter>;
  authorization: ClaimSourceAuthorizationView;
  createdAt: string;
  updatedAt: string;
}

export type ClaimSourceListQuery = PageQuery;

/**
 * `/v1/claim-sources` (docs/authentication.md): the issuer's APIs Vellum asks for a user's claims at
 * issuance. `update` replaces a source (PUT): a missing key or secret keeps the stored one when the
 * authorization type is unchanged. `delete` is a Conflict while a credential configuration names the source.
 */
export type ClaimSourceService = CollectionService<ClaimSourceView>;

/** The SecretBox context a claim source's key or client secret is sealed under. */
export const claimSourceSecretContext = (tenantId: string, id: string) => `claim-source:${tenantId}:${id}`;

/** Renders a stored claim source as the API shows it. */
export function claimSourceView(s: ClaimSource): ClaimSourceView {
  const a = s.authorization;
  return {
    id: s.id,
    name: s.name,
    url: s.url,
    requestMethod: s.requestMethod,
    requestParameters: structuredClone(s.requestParameters),
    authorization:
      a.type === 'api-key'
        ? { type: 'api-key' }
        : {
            type: a.type,
            tokenEndpoint: a.tokenEndpoint,
            clientId: a.clientId,
            ...(a.audience !== undefined ? { audience: a.audience } : {}),
            tokenEndpointAuthMethod: a.tokenEndpointAuthMethod,
          },
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

function checkId(id: string): string {
  if (!isUuid(id)) throw invalidField('id', 'A claim source id (UUID)', id, 'params');
  return id.toLowerCase();
}

const noSource = () => notFound('The tenant has no such claim source');

/** How many configurations a Conflict names before it says "and N more". */
const NAMED_USERS = 5;

/** Builds the claim source use cases. Permission `issuance-setup`. */
export function createClaimSourceService(deps: ClaimSourceDeps): ClaimSourceService {
  const { store, clock, ids, events, secrets } = deps;

  const sources = adminCollection({
    events,
    permission: 'issuance-setup',
    stem: 'CLAIM_SOURCE',
    records: () => store.claimSources,
    view: claimSourceView,
    meta: (v) => ({ id: v.id, requestMethod: v.requestMethod, authorizationType: v.authorization.type }),
    checkId,
    missing: noSource,
  });

  /** The stored authorization: the new secret sealed, or the stored one kept (the rules allow that only for the same type). */
  function sealAuthorization(checked: CheckedClaimSource, tenantId: string, id: string, existing?: ClaimSource): ClaimSourceAuthorization {
    const context = claimSourceSecretContext(tenantId, id);
    const a = checked.authorization;
    const before = existing?.authorization;
    if (a.type === 'api-key') {
      const sealedValue = a.value !== undefined ? secrets.seal(a.value, context) : before?.type === 'api-key' ? before.sealedValue : undefined;
      if (sealedValue === undefined) throw invalidField('authorization.value', 'Required: the API key (the source had another authorization type)');
      return { type: 'api-key', sealedValue };
    }
    const sealedClientSecret =
      a.clientSecret !== undefined
        ? secrets.seal(a.clientSecret, context)
        : before?.type === 'oauth-client-credentials'
          ? before.sealedClientSecret
          : undefined;
    if (sealedClientSecret === undefined)
      throw invalidField('authorization.clientSecret', 'Required: the client secret (the source had another authorization type)');
    return {
      type: 'oauth-client-credentials',
      tokenEndpoint: a.tokenEndpoint,
      clientId: a.clientId,
      sealedClientSecret,
      ...(a.audience !== undefined ? { audience: a.audience } : {}),
      tokenEndpointAuthMethod: a.tokenEndpointAuthMethod,
    };
  }

  return {
    create(ctx, input) {
      return sources.create(ctx, input, () => {
        const checked = checkClaimSourceInput(input);
        const id = ids.uuid();
        const now = clock.now().toISOString();
        return {
          id,
          tenantId: ctx.tenant.id,
          name: checked.name,
          url: checked.url,
          requestMethod: checked.requestMethod,
          requestParameters: checked.requestParameters,
          authorization: sealAuthorization(checked, ctx.tenant.id, id),
          createdAt: now,
          updatedAt: now,
        };
      });
    },

    list: sources.list,
    get: sources.get,

    update(ctx, id, input) {
      return sources.update(ctx, input, async () => {
        const checked = checkClaimSourceInput(input, true);
        const existing = await sources.find(ctx, id);
        return {
          ...existing,
          name: checked.name,
          url: checked.url,
          requestMethod: checked.requestMethod,
          requestParameters: checked.requestParameters,
          authorization: sealAuthorization(checked, existing.tenantId, existing.id, existing),
          updatedAt: clock.now().toISOString(),
        };
      });
    },

    delete(ctx, id) {
      return sources.run(ctx, 'CLAIM_SOURCE_DELETE', { meta: () => ({ id }) }, async () => {
        const sourceId = checkId(id);
        await store.transaction(async (tx) => {
          if (!(await tx.claimSources.get(ctx.tenant.id, sourceId))) throw noSource();
          // Issuance with a configuration whose claim source is gone would quietly lose those
          // claims: the configurations must let go of it first.
          const users = (await tx.credentialConfigurations.listAll(ctx.tenant.id)).filter((c) => c.claimSourceId?.toLowerCase() === sourceId).map((c) => c.id);
          if (users.length > 0) {
            const named = users.slice(0, NAMED_USERS).join(', ') + (users.length > NAMED_USERS ? ` and ${users.length - NAMED_USERS} more` : '');
            throw conflict(`The claim source is used by credential configuration ${named}; remove claimSourceId from them (or delete them) first`);
          }
          if (!(await tx.claimSources.delete(ctx.tenant.id, sourceId))) throw noSource();
        });
      });
    },
  };
}
