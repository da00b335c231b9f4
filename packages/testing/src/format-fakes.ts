import type { KeyManager } from '@vellum/core';
import {
  fakeCwtSigner,
  fakeLinkedDataSigner,
  fakeRevocationListSigner,
  fakeSdJwtSigner,
  fakeStatusListTokenSigner,
  fakeTokenStatusListSigner,
} from './fakes.ts';
import { fakeMdocEngine } from './mdoc-fakes.ts';

/** Every signing engine createVellum takes, faked over one KeyManager: tests of the core spread it in. */
export function fakeFormatSigners(keys: KeyManager) {
  return {
    linkedDataSigner: fakeLinkedDataSigner(keys),
    mdocEngine: fakeMdocEngine(keys),
    cwtSigner: fakeCwtSigner(keys),
    sdJwtSigner: fakeSdJwtSigner(keys),
    statusListTokens: fakeStatusListTokenSigner(keys),
    tokenStatusLists: fakeTokenStatusListSigner(keys),
    revocationLists: fakeRevocationListSigner(keys),
  };
}
