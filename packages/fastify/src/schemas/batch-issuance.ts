import { Type } from '@sinclair/typebox';

/** docs/decisions.md "Batch issuance and the attestation proof type (issue 30)": the body, the core's own schema (one validation path). */
export { BatchIssuanceBody } from '@vellum/core/schemas';

/** What `GET` and `PUT /v1/config/batch-issuance` answer. */
export const BatchIssuanceResponse = Type.Object({ batchSize: Type.Integer({ minimum: 1 }) });
