import { createCwtFormat } from '../src/credential-formats/cwt.ts';
import { createLdpVcFormat } from '../src/credential-formats/ldp-vc.ts';
import { createMdocFormat } from '../src/credential-formats/mso-mdoc.ts';
import type { FormatRegistry } from '../src/credential-formats/port.ts';
import { createFormatRegistry } from '../src/credential-formats/registry.ts';
import { createSdJwtFormat } from '../src/credential-formats/sd-jwt.ts';
import type { Store } from '../src/ports.ts';

const unused = (what: string) => () => Promise.reject(new Error(`${what} is not used by this test`));

/**
 * Every format's handler, for tests of what does not issue (metadata, configuration checks): their
 * signers and stores refuse to be used.
 */
export function formatsForMetadata(): FormatRegistry {
  const store = new Proxy(
    {},
    {
      get: () => {
        throw new Error('The store is not used by this test');
      },
    },
  ) as Store;
  const ids = { uuid: () => crypto.randomUUID(), token: () => '', bytes: (n: number) => new Uint8Array(n) };
  return createFormatRegistry([
    createMdocFormat({ issuance: { issue: unused('mDoc issuance') } }),
    createLdpVcFormat({ store, ids, signer: { contexts: ['https://www.w3.org/2018/credentials/v1'], sign: unused('The Linked Data signer') } }),
    createCwtFormat({ store, signer: { sign: unused('The CWT signer') }, format: 'cwt' }),
    createCwtFormat({ store, signer: { sign: unused('The CWT signer') }, format: 'cwt_vc' }),
    createSdJwtFormat({ store, signer: { issue: unused('The SD-JWT signer') } }),
  ]);
}
