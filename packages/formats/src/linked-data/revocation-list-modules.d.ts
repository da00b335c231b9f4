// Type declarations for the two Revocation List 2020 packages the tests use (they ship none).

declare module 'vc-revocation-list-context' {
  /** The Revocation List 2020 context document, by its URL. */
  export const contexts: Map<string, Record<string, unknown>>;
  export const constants: { VC_REVOCATION_LIST_CONTEXT_V1_URL: string };
}

declare module '@digitalbazaar/bitstring' {
  export class Bitstring {
    constructor(options: { length: number } | { buffer: Uint8Array; leftToRightIndexing?: boolean });
    readonly length: number;
    get(position: number): boolean;
    set(position: number, on: boolean): void;
    encodeBits(): Promise<string>;
    static decodeBits(options: { encoded: string }): Promise<Uint8Array>;
  }
}
