// The platform's admin-token key in the token (docs/key-custody.md "The platform's keys"): the
// core's PlatformKeyHolder port, which @vellum/crypto's admin-token signer asks for. Its keys are token objects like a
// tenant's, named `vellum:platform:<id>`, so no tenant's label can name them.
import { randomUUID } from 'node:crypto';
import type { PlatformKeyHolder } from '@vellum/core';
import type { Pkcs11Token } from './token.ts';

const labelOf = (ref: string) => `vellum:platform:${ref}`;

/** A PlatformKeyHolder on the token: P-256 keys made in it, sensitive and never extractable, signing there. */
export function createPkcs11PlatformKeyHolder(token: Pkcs11Token): PlatformKeyHolder {
  return {
    name: `pkcs11:${token.label}`,
    async generate() {
      const ref = `platform-${randomUUID()}`;
      const publicJwk = await token.generate('P-256', ref, labelOf(ref));
      if (publicJwk.kty !== 'EC' || publicJwk.y === undefined) throw new Error('The token gave no P-256 public key');
      return { ref, publicJwk: { kty: 'EC', crv: 'P-256', x: publicJwk.x, y: publicJwk.y } };
    },
    sign(ref, data) {
      return token.sign(ref, labelOf(ref), 'P-256', data);
    },
  };
}

/** The token label of a platform key the holder made, for checks of its protection. */
export const pkcs11PlatformLabelOf = labelOf;
