export { vellumPlugin } from './plugin.ts';
export type { VellumPluginOptions } from './plugin.ts';
export type { VellumServices } from './services.ts';
export { handleClientError, handleError, handleFrameworkError, sendError, STATUS_BY_CODE } from './errors.ts';
export type { ErrorBody, ErrorStyle } from './errors.ts';
export { requestContext } from './context.ts';
export { parseFlatXml } from './xml.ts';
export { applySecurityHeaders, CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, SECURITY_HEADERS, WALLET_CORS_ROUTES } from './http-policy.ts';
export { MAX_BODY_NESTING } from './body-limits.ts';
