// What the mDL configurations of the core's tests show a wallet, and what the issuer metadata says
// of them. The samples live in @vellum/testing, where the HTTP tests take them too, so that the
// service and its routes are held to the same labels.
export { MDL_DISPLAY, mdlIssuerMetadata } from './kit.ts';
