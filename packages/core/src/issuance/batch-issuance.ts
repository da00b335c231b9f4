// Batch issuance (OpenID4VCI 1.0 §12.2.4 `batch_credential_issuance`): how many credentials one
// credential request may ask for, each bound to its own key. A per-tenant setting kept on the
// tenant, so the credential endpoint and the metadata read it from the request's tenant without
// another store read (docs/decisions.md "Batch issuance and the attestation proof type (issue 30)").

import { type Static, Type } from '@sinclair/typebox';
import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import { adminOperations } from '../shared/admin-resource.ts';
import { Problems } from '../shared/body-problems.ts';
import { DomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { MAX_BATCH_SIZE } from './request.ts';

/** `PUT /v1/config/batch-issuance`: the batch size, 1 (one proof per request, the default) to 100. */
export const BatchIssuanceBody = Type.Object(
  {
    batchSize: Type.Integer({ minimum: 1, maximum: MAX_BATCH_SIZE, errorMessage: `An integer from 1 to ${MAX_BATCH_SIZE}` }),
  },
  { additionalProperties: false, errorMessage: 'An object such as { batchSize: 10 }' },
);

/** What `GET` and `PUT /v1/config/batch-issuance` answer. */
export interface BatchIssuanceSettings {
  batchSize: number;
}

/** `GET`/`PUT /v1/config/batch-issuance`. Reading needs `configurations:read`, replacing `configurations:write`. */
export interface BatchIssuanceService {
  get(ctx: RequestContext): Promise<BatchIssuanceSettings>;
  /** Sets the batch size; the metadata and the credential endpoint follow on their next request, through any server sharing the store. */
  update(ctx: RequestContext, input: unknown): Promise<BatchIssuanceSettings>;
}

/** Builds the batch issuance setting's use cases. */
export function createBatchIssuanceService(deps: { store: Store; events: EventRecorder }): BatchIssuanceService {
  const { store, events } = deps;
  const reading = adminOperations(events, 'configurations:read');
  const writing = adminOperations(events, 'configurations:write');
  const meta = (s: BatchIssuanceSettings) => ({ batchSize: s.batchSize });
  return {
    get(ctx) {
      return reading.run(ctx, 'CONFIG_BATCH_ISSUANCE_RETRIEVE', { meta }, async () => ({ batchSize: ctx.tenant.batchSize ?? 1 }));
    },
    update(ctx, input) {
      return writing.run(ctx, 'CONFIG_BATCH_ISSUANCE_UPDATE', { input, meta }, async () => {
        const p = new Problems();
        if (!p.checkShape(BatchIssuanceBody, input)) p.throwIfAny(BatchIssuanceBody);
        const { batchSize } = input as Static<typeof BatchIssuanceBody>;
        if (!(await store.tenants.setBatchSize(ctx.tenant.id, batchSize))) throw new DomainError('NotFound', 'The tenant is gone');
        return { batchSize };
      });
    },
  };
}
