// Test support, not exported by the package: loads @ldclabs/cose-ts, the COSE library (cborg for
// CBOR, @noble/curves for ECDSA) the CWT tests verify with, because Vellum does not sign with it.
//
// Its ES module build imports its own files without the `.js` extension (`import './header'`),
// which Node's ESM resolver refuses and vitest hands to Node unchanged. A resolve hook (Node 23.5+
// `module.registerHooks`) adds the extension for relative imports made inside that package only.
import { registerHooks } from 'node:module';

let registered = false;

function registerExtensionHook(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, next) {
      const fromCoseTs = context.parentURL?.includes('/@ldclabs/cose-ts/dist/') === true;
      if (fromCoseTs && specifier.startsWith('.') && !specifier.endsWith('.js')) return next(`${specifier}.js`, context);
      return next(specifier, context);
    },
  });
}

/** The parts of @ldclabs/cose-ts the tests use. */
export async function loadCoseTs() {
  registerExtensionHook();
  const [{ Sign1Message }, { ECDSAKey }, { Claims, Validator }, { Header }, utils] = await Promise.all([
    import('@ldclabs/cose-ts/sign1'),
    import('@ldclabs/cose-ts/ecdsa'),
    import('@ldclabs/cose-ts/cwt'),
    import('@ldclabs/cose-ts/header'),
    import('@ldclabs/cose-ts/utils'),
  ]);
  return { Sign1Message, ECDSAKey, Claims, Validator, Header, decodeCBOR: utils.decodeCBOR, encodeCBOR: utils.encodeCBOR, base64ToBytes: utils.base64ToBytes };
}
