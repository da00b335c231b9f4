// The credential issuer's own `display` (OpenID4VCI 1.0 §12.2.4): how a wallet names and shows the
// issuer, per locale. A per-tenant setting kept on the tenant, so the issuer metadata reads it from
// the request's tenant without another store read (docs/decisions.md "Issuer display and unbound
// credentials (issue 29)").

import { type Static, Type } from '@sinclair/typebox';
import { checkHttpsUrl, checkLocales, LOCALE, MAX_LABEL } from '../configurations/rules.ts';
import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import { adminOperations } from '../shared/admin-resource.ts';
import { isPlainObject, Problems } from '../shared/body-problems.ts';
import { DomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';

/** One locale's display of the issuer: a name and a logo (OpenID4VCI 1.0 §12.2.4 `display`). */
export interface IssuerDisplay {
  name: string;
  locale?: string;
  logo?: { uri: string; alt_text?: string };
}

/** At most this many entries: one per locale a wallet might ask for is plenty. */
export const MAX_ISSUER_DISPLAYS = 50;

const strict = { additionalProperties: false } as const;
const Text = (max: number) => Type.String({ maxLength: max, pattern: '\\S', errorMessage: `Text of 1 to ${max} characters` });

/** `PUT /v1/config/issuer-display`: the whole list, replaced (an empty list removes the display). */
export const IssuerDisplayBody = Type.Object(
  {
    display: Type.Array(
      Type.Object(
        {
          name: Text(MAX_LABEL),
          locale: Type.Optional(Type.String({ maxLength: 64, pattern: LOCALE.source, errorMessage: 'A language tag such as en or fr-CA' })),
          logo: Type.Optional(
            Type.Object(
              { uri: Type.String({ maxLength: 2048, errorMessage: 'An https URL' }), alt_text: Type.Optional(Text(MAX_LABEL)) },
              { ...strict, errorMessage: 'A { uri, alt_text } object' },
            ),
          ),
        },
        { ...strict, errorMessage: 'A { name, locale, logo } object' },
      ),
      { maxItems: MAX_ISSUER_DISPLAYS, errorMessage: `A list of up to ${MAX_ISSUER_DISPLAYS} { name, locale, logo } entries` },
    ),
  },
  { ...strict, errorMessage: 'An object such as { "display": [{ "name": "Acme", "locale": "en" }] }' },
);

/** What `GET` and `PUT /v1/config/issuer-display` answer. */
export interface IssuerDisplaySettings {
  display: IssuerDisplay[];
}

/** Checks a `PUT` body, every problem at once: the shape, then https logos and one entry per locale. */
export function checkIssuerDisplayInput(input: unknown): IssuerDisplay[] {
  const p = new Problems();
  if (!p.checkShape(IssuerDisplayBody, input)) p.throwIfAny(IssuerDisplayBody);
  const { display } = input as Static<typeof IssuerDisplayBody>;
  display.forEach((entry, i) => {
    if (isPlainObject(entry.logo)) checkHttpsUrl(`display.${i}.logo.uri`, entry.logo.uri, p);
  });
  checkLocales('display', display, p);
  p.throwIfAny(IssuerDisplayBody);
  // Only the members the schema names, in a fixed order: what is stored is what is published.
  return display.map((e) => ({
    name: e.name,
    ...(e.locale !== undefined ? { locale: e.locale } : {}),
    ...(e.logo ? { logo: { uri: e.logo.uri, ...(e.logo.alt_text !== undefined ? { alt_text: e.logo.alt_text } : {}) } } : {}),
  }));
}

/** `GET`/`PUT /v1/config/issuer-display`. Reading needs `configurations:read`, replacing `configurations:write`. */
export interface IssuerDisplayService {
  get(ctx: RequestContext): Promise<IssuerDisplaySettings>;
  /** Replaces the display; the issuer metadata shows it on its next request, through any server sharing the store. */
  update(ctx: RequestContext, input: unknown): Promise<IssuerDisplaySettings>;
}

/** Builds the issuer display use cases. */
export function createIssuerDisplayService(deps: { store: Store; events: EventRecorder }): IssuerDisplayService {
  const { store, events } = deps;
  const reading = adminOperations(events, 'configurations:read');
  const writing = adminOperations(events, 'configurations:write');
  const meta = (s: IssuerDisplaySettings) => ({ entries: s.display.length });
  return {
    get(ctx) {
      return reading.run(ctx, 'CONFIG_ISSUER_DISPLAY_RETRIEVE', { meta }, async () => ({ display: [...(ctx.tenant.issuerDisplay ?? [])] }));
    },
    update(ctx, input) {
      return writing.run(ctx, 'CONFIG_ISSUER_DISPLAY_UPDATE', { input, meta }, async () => {
        const display = checkIssuerDisplayInput(input);
        if (!(await store.tenants.setIssuerDisplay(ctx.tenant.id, display))) throw new DomainError('NotFound', 'The tenant is gone');
        return { display };
      });
    },
  };
}
