// Rows of the tenant's authentication provider, OpenID settings and claim sources (docs/authentication.md), and
// their mapping to the domain types. Secrets arrive sealed (SecretBox) and are stored as they are.

import type {
  AuthenticationProvider,
  ClaimSource,
  ClaimSourceAuthorization,
  ClaimSourceParameter,
  InteractionHook,
  OpenIdSettings,
  ProviderAuthMethod,
} from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

export interface AuthenticationProvidersTable {
  seq: Seq;
  id: string;
  /** Unique: one provider per tenant. */
  tenant_id: string;
  url: string;
  client_id: string;
  sealed_client_secret: string;
  scope: string;
  token_endpoint_auth_method: string;
  /** JSON object of name → value. */
  static_request_parameters: string;
  /** JSON array of names. */
  forwarded_request_parameters: string;
  /** JSON array of claim names. */
  claims_to_persist: string;
  created_at: string;
  updated_at: string;
}

export interface OpenIdSettingsTable {
  tenant_id: string;
  /** JSON of the hook (its secret sealed); null when the tenant has none. */
  interaction_hook: string | null;
  updated_at: string;
}

export interface ClaimSourcesTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  request_method: string;
  /** JSON object of name → { mapFrom?, defaultValue? }. */
  request_parameters: string;
  /** JSON of the authorization, its key or client secret sealed. */
  authorization: string;
  created_at: string;
  updated_at: string;
}

export function toAuthenticationProvider(row: Selectable<AuthenticationProvidersTable>): AuthenticationProvider {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    clientId: row.client_id,
    sealedClientSecret: row.sealed_client_secret,
    scope: row.scope,
    tokenEndpointAuthMethod: row.token_endpoint_auth_method as ProviderAuthMethod,
    staticRequestParameters: JSON.parse(row.static_request_parameters) as Record<string, string>,
    forwardedRequestParameters: JSON.parse(row.forwarded_request_parameters) as string[],
    claimsToPersist: JSON.parse(row.claims_to_persist) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toAuthenticationProviderRow(p: AuthenticationProvider): Insertable<AuthenticationProvidersTable> {
  return {
    id: p.id,
    tenant_id: p.tenantId,
    url: p.url,
    client_id: p.clientId,
    sealed_client_secret: p.sealedClientSecret,
    scope: p.scope,
    token_endpoint_auth_method: p.tokenEndpointAuthMethod,
    static_request_parameters: JSON.stringify(p.staticRequestParameters),
    forwarded_request_parameters: JSON.stringify(p.forwardedRequestParameters),
    claims_to_persist: JSON.stringify(p.claimsToPersist),
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

export function toOpenIdSettings(row: Selectable<OpenIdSettingsTable>): OpenIdSettings {
  return {
    tenantId: row.tenant_id,
    ...(row.interaction_hook === null ? {} : { interactionHook: JSON.parse(row.interaction_hook) as InteractionHook }),
    updatedAt: row.updated_at,
  };
}

export function toOpenIdSettingsRow(s: OpenIdSettings): Insertable<OpenIdSettingsTable> {
  return { tenant_id: s.tenantId, interaction_hook: s.interactionHook ? JSON.stringify(s.interactionHook) : null, updated_at: s.updatedAt };
}

export function toClaimSource(row: Selectable<ClaimSourcesTable>): ClaimSource {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    url: row.url,
    requestMethod: row.request_method as 'GET' | 'POST',
    requestParameters: JSON.parse(row.request_parameters) as Record<string, ClaimSourceParameter>,
    authorization: JSON.parse(row.authorization) as ClaimSourceAuthorization,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toClaimSourceRow(s: ClaimSource): Insertable<ClaimSourcesTable> {
  return {
    id: s.id,
    tenant_id: s.tenantId,
    name: s.name,
    url: s.url,
    request_method: s.requestMethod,
    request_parameters: JSON.stringify(s.requestParameters),
    authorization: JSON.stringify(s.authorization),
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}
