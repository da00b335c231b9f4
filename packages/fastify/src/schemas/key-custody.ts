import { Type } from '@sinclair/typebox';

/** docs/key-custody.md: the body, the core's own schema (one validation path). */
export { KeyCustodyBody } from '@vellum/core/schemas';

const Custody = Type.Union([Type.Literal('software'), Type.Literal('pkcs11')]);

/** What `GET` and `PUT /v1/config/key-custody` answer. */
export const KeyCustodyResponse = Type.Object({
  custody: Custody,
  chosenBy: Type.Union([Type.Literal('tenant'), Type.Literal('platform')]),
  available: Type.Array(Custody),
});
