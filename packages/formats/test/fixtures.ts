// What the format tests set up alike: the real KeyManager over the memory store (the crypto tests'
// fixture), the core's test credentials and holders' keys (its handler tests issue the same), and
// what an mDoc status entry reads as. Kept out of src, which the layer check (tools/checks) reads as
// what the package ships.
export {
  CWT_SUBJECT,
  cwtConfiguration,
  holderKey,
  LDP_VC_SUBJECT,
  ldpVcConfiguration,
  SD_JWT_SUBJECT,
  sdJwtConfiguration,
} from '../../core/test/credentials.ts';
export { memoryKeyManager } from '../../crypto/test/key-manager.ts';

/** An MSO's status entry `{ status_list: { idx, uri } }` as a decoder reading maps as Maps gives it (docs/status-lists.md). */
export const mdocStatusEntry = (idx: number, uri: string) =>
  new Map([
    [
      'status_list',
      new Map<string, unknown>([
        ['idx', idx],
        ['uri', uri],
      ]),
    ],
  ]);
