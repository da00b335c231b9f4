import type {
  KeyManager,
  LinkedDataSigner,
  MdocEngine,
  CwtSigner,
  SdJwtSigner,
  StatusListTokenSigner,
  TokenStatusListSigner,
  RevocationListSigner,
} from '@vellum/core';
import { createCwtSigner } from './cwt/signer.ts';
import { createRevocationListSigner } from './linked-data/revocation-list.ts';
import { createLinkedDataSigner } from './linked-data/signer.ts';
import { createMdocEngine } from './mso-mdoc/engine.ts';
import { createSdJwtSigner } from './sd-jwt/signer.ts';
import { createStatusListTokenSigner } from './status-list/status-list-token.ts';
import { createTokenStatusListSigner } from './status-list/token-status-list.ts';

/** Every signing engine `createVellum` takes, over one KeyManager: what a host passes in one spread. */
export interface FormatSigners {
  linkedDataSigner: LinkedDataSigner;
  mdocEngine: MdocEngine;
  cwtSigner: CwtSigner;
  sdJwtSigner: SdJwtSigner;
  statusListTokens: StatusListTokenSigner;
  tokenStatusLists: TokenStatusListSigner;
  revocationLists: RevocationListSigner;
}

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
