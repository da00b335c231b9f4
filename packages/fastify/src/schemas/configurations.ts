import { type TObject, type TProperties, Type } from '@sinclair/typebox';
import { CwtConfigurationBody, LdpVcConfigurationBody, MdocConfigurationBody, SdJwtConfigurationBody } from '@vellum/core/schemas';
import { PageQuerySchema } from './common.ts';

/** docs/decisions.md "Credential configurations": each format's create and replace body, the core's own schemas (one validation path). */
export { CwtConfigurationBody, LdpVcConfigurationBody, MdocConfigurationBody, SdJwtConfigurationBody } from '@vellum/core/schemas';

/** The answer: the configuration as stored, with what Vellum assigned and the defaults it filled in. */
function response(body: TObject, defaults: TProperties): TObject {
  return Type.Object({ id: Type.String(), ...body.properties, ...defaults, createdAt: Type.String(), updatedAt: Type.String() });
}

export const MdocConfigurationResponse = response(MdocConfigurationBody, { includeStatus: Type.Boolean() });
export const LdpVcConfigurationResponse = response(LdpVcConfigurationBody, { proofType: Type.String(), revocable: Type.Boolean() });
export const CwtConfigurationResponse = response(CwtConfigurationBody, { revocable: Type.Boolean() });
export const SdJwtConfigurationResponse = response(SdJwtConfigurationBody, { revocable: Type.Boolean() });

/** The configuration id in the path; the core says when it is not a UUID. */
export const ConfigurationParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

export const ConfigurationListQuery = Type.Object(
  { ...PageQuerySchema, type: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) },
  { additionalProperties: false },
);
