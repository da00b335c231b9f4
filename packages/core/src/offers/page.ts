import type { CredentialConfiguration } from '../configurations/model.ts';
import type { CustomDomain } from '../custom-domains/model.ts';
import type { Tenant } from '../tenancy/model.ts';
import type { OfferKind } from './model.ts';
import type { TxCodeDescription } from './uri.ts';

/**
 * What the offer page shows an end user (docs/offer-page.md). It never holds the transaction code:
 * Vellum keeps only its digest, and the code must reach the user by another channel anyway.
 */
export interface OfferPageView {
  /** The offer URI the wallet scans or opens: the by-reference URI the offer was made with. */
  uri: string;
  kind: OfferKind;
  /** Who offers: the custom domain's name when the tenant set one, else the tenant's name. */
  issuerName: string;
  /** One label per credential configuration the offer lists that still exists, in the offer's order. */
  credentials: string[];
  /** Pre-authorized offers with a transaction code: what the wallet will ask for. */
  txCode?: TxCodeDescription;
  expiresAt: string;
}

/** The name the page shows for the issuer: the tenant's own branding (custom domain name) first. */
export function issuerDisplayName(tenant: Pick<Tenant, 'name'>, domain: Pick<CustomDomain, 'name'> | undefined): string {
  const branded = domain?.name?.trim();
  return branded ? branded : tenant.name;
}

/**
 * A human label for a configuration: its English (or locale-less) display name, else its first
 * display name, else its `name`, else its type. The page is written in English.
 */
export function credentialLabel(configuration: Pick<CredentialConfiguration, 'display' | 'name' | 'type'>): string {
  const display = configuration.display ?? [];
  const english = display.find((d) => d.locale === undefined || /^en(?:-|$)/i.test(d.locale));
  return (english ?? display[0])?.name ?? configuration.name ?? configuration.type;
}
