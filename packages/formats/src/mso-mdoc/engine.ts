import type { KeyManager, MdocEngine } from '@vellum/core';
import { issueMdoc } from './issue.ts';

export interface MdocEngineOptions {
  keys: KeyManager;
}

/**
 * The core's MdocEngine port: {@link issueMdoc} with the document signer's key held by the
 * KeyManager. The core's typed claim values go into the IssuerSignedItems as they are, and its
 * status list entry, if any, into the MSO under the field it names (`status` or `_status`).
 */
export function createMdocEngine(options: MdocEngineOptions): MdocEngine {
  const { keys } = options;
  return {
    async issue(input) {
      const { tenantId, signer } = input;
      const result = await issueMdoc({
        docType: input.docType,
        namespaces: input.namespaces,
        deviceKey: input.deviceKey,
        validity: input.validity,
        ...(input.status ? { status: input.status } : {}),
        signer: { sign: (data) => keys.sign(tenantId, signer.keyId, data), x5chain: signer.x5chain },
      });
      return { credential: result.credential, validFrom: result.validFrom, validUntil: result.validUntil };
    },
  };
}
