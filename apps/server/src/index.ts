// The server's composition pieces, for hosts that want the reference wiring without the CLI.
export { buildApp, MAX_HEADER_BYTES } from './app.ts';
export { ConfigError, loadConfig } from './config.ts';
export type { ServerConfig } from './config.ts';
export { createLogger, REDACTED_FIELDS, REDACTED_HEADERS, redactLogObject } from './logger.ts';
export { openRuntime, openStore, tenantCredentials } from './runtime.ts';
export type { OpenRuntimeOptions, Runtime } from './runtime.ts';
