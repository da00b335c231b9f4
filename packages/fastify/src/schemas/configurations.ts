import { type TObject, type TProperties, Type } from '@sinclair/typebox';
import type { CredentialFormat } from '@vellum/core';
import { CONFIGURATION_BODIES, CwtConfigurationBody, LdpVcConfigurationBody, MdocConfigurationBody, SdJwtConfigurationBody } from '@vellum/core/schemas';
import { PageQuerySchema } from './common.ts';

/** docs/decisions.md "Credential configurations": each format's create and replace body, the core's own schemas (one validation path). */
export { CwtConfigurationBody, LdpVcConfigurationBody, MdocConfigurationBody, SdJwtConfigurationBody } from '@vellum/core/schemas';

/** The answer: the configuration as stored, with what Vellum assigned and the defaults it filled in. */
function response(body: TObject, defaults: TProperties): TObject {
  return Type.Object({ id: Type.String(), ...body.properties, ...defaults, createdAt: Type.String(), updatedAt: Type.String() });
}

/** What each body's answer adds to it: the defaults Vellum fills in (cwt and cwt_vc share their body, so their answer too). */
const FILLED_IN = new Map<TObject, TProperties>([
  [MdocConfigurationBody, { includeStatus: Type.Boolean() }],
  [LdpVcConfigurationBody, { proofType: Type.String(), revocable: Type.Boolean() }],
  [CwtConfigurationBody, { revocable: Type.Boolean() }],
  [SdJwtConfigurationBody, { revocable: Type.Boolean() }],
]);

function schemasOf(body: TObject): { body: TObject; response: TObject } {
  const defaults = FILLED_IN.get(body);
  if (!defaults) throw new Error('A credential configuration body has no answer schema here');
  return { body, response: response(body, defaults) };
}

/** Each format's body (the core's table, CONFIGURATION_BODIES) and its answer. */
export const CONFIGURATION_SCHEMAS = Object.fromEntries(Object.entries(CONFIGURATION_BODIES).map(([format, body]) => [format, schemasOf(body)])) as Readonly<
  Record<CredentialFormat, { body: TObject; response: TObject }>
>;

/** The configuration id in the path; the core says when it is not a UUID. */
export const ConfigurationParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

export const ConfigurationListQuery = Type.Object(
  { ...PageQuerySchema, type: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) },
  { additionalProperties: false },
);
