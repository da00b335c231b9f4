// SD-JWT VC Type Metadata (issue 29, docs/decisions.md "SD-JWT VC type metadata (issue 29)"): the
// document a dc+sd-jwt configuration publishes for its vct, serialised once, so that the bytes the
// route serves are the bytes whose SHA-256 the credentials carry as `vct#integrity`.

import type { SdJwtConfiguration, TypeMetadata } from '../configurations/model.ts';
import type { Digests } from '../shared/ports.ts';

/** The path under the credential issuer where Vellum serves type metadata; a configuration's vct must be `{credential_issuer}/types/{name}`. */
export const TYPE_METADATA_PATH = '/types/';

/** The last path segment of a vct Vellum serves: unreserved URL characters only, so it is the same encoded or not. */
export const TYPE_NAME = /^[A-Za-z0-9._~-]{1,200}$/;

/** The served document and its W3C Subresource Integrity string. */
export interface PublishedTypeMetadata {
  /** The JSON, exactly as served. */
  body: string;
  /** `sha256-` and the standard base64 of SHA-256 over `body`'s UTF-8 bytes. */
  integrity: string;
}

/** SRI writes standard base64 with padding; the digests port gives base64url without. */
function base64Of(base64url: string): string {
  const base64 = base64url.replaceAll('-', '+').replaceAll('_', '/');
  return base64 + '='.repeat((4 - (base64.length % 4)) % 4);
}

const definedOnly = (object: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));

/**
 * The document with its members in a fixed order, whatever order the store gives them back in (a
 * PostgreSQL jsonb column reorders keys): the same configuration always gives the same bytes.
 */
function documentOf(vct: string, metadata: TypeMetadata): Record<string, unknown> {
  return definedOnly({
    vct,
    name: metadata.name,
    description: metadata.description,
    extends: metadata.extends,
    'extends#integrity': metadata['extends#integrity'],
    display: metadata.display?.map((entry) => {
      const simple = entry.rendering?.simple;
      const logo = simple?.logo;
      return definedOnly({
        locale: entry.locale,
        name: entry.name,
        description: entry.description,
        rendering: entry.rendering
          ? definedOnly({
              simple: simple
                ? definedOnly({
                    logo: logo ? definedOnly({ uri: logo.uri, 'uri#integrity': logo['uri#integrity'], alt_text: logo.alt_text }) : undefined,
                    background_color: simple.background_color,
                    text_color: simple.text_color,
                  })
                : undefined,
            })
          : undefined,
      });
    }),
    claims: metadata.claims?.map((claim) =>
      definedOnly({
        path: claim.path,
        display: claim.display?.map((entry) => definedOnly({ locale: entry.locale, label: entry.label, description: entry.description })),
        sd: claim.sd,
      }),
    ),
  });
}

// Configurations are immutable values: one serialisation per configuration object.
const published = new WeakMap<SdJwtConfiguration, PublishedTypeMetadata>();

/** The type metadata a configuration publishes, or undefined when it publishes none. */
export function typeMetadataOf(configuration: SdJwtConfiguration, digests: Pick<Digests, 'sha256'>): PublishedTypeMetadata | undefined {
  const metadata = configuration.typeMetadata;
  if (!metadata) return undefined;
  let document = published.get(configuration);
  if (!document) {
    const body = JSON.stringify(documentOf(configuration.type, metadata));
    document = { body, integrity: `sha256-${base64Of(digests.sha256(body))}` };
    published.set(configuration, document);
  }
  return document;
}

/** The vct of a configuration Vellum serves type metadata for under `issuer`, for the type named `name`. */
export const servedVct = (issuer: string, name: string): string => `${issuer}${TYPE_METADATA_PATH}${name}`;
