import type { KeyManager, VellumDeps } from '@vellum/core';
import { createCwtSigner } from './cwt/signer.ts';
import { createRevocationListSigner } from './linked-data/revocation-list.ts';
import { createLinkedDataSigner } from './linked-data/signer.ts';
import { createMdocEngine } from './mso-mdoc/engine.ts';
import { createSdJwtSigner } from './sd-jwt/signer.ts';
import { createStatusListTokenSigner } from './status-list/status-list-token.ts';
import { createTokenStatusListSigner } from './status-list/token-status-list.ts';

/** Every signing engine `createVellum` takes (VellumDeps), over one KeyManager: what a host passes in one spread. */
export type FormatSigners = Pick<
  VellumDeps,
  'linkedDataSigner' | 'mdocEngine' | 'cwtSigner' | 'sdJwtSigner' | 'statusListTokens' | 'tokenStatusLists' | 'revocationLists'
>;

/** The credential and status list signers of every format, each signing inside `keys`. */
export function createFormatSigners(options: { keys: KeyManager }): FormatSigners {
  const { keys } = options;
  return {
    linkedDataSigner: createLinkedDataSigner({ keys }),
    mdocEngine: createMdocEngine({ keys }),
    cwtSigner: createCwtSigner({ keys }),
    sdJwtSigner: createSdJwtSigner({ keys }),
    statusListTokens: createStatusListTokenSigner({ keys }),
    tokenStatusLists: createTokenStatusListSigner({ keys }),
    revocationLists: createRevocationListSigner({ keys }),
  };
}
