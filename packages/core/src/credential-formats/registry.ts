import type { CredentialConfiguration, CredentialFormat } from '../configurations/model.ts';
import type { AnyFormatHandler, CredentialFormatHandler, FormatRegistry } from './port.ts';

/** The registry of the given handlers: one per format, each format once. */
export function createFormatRegistry(handlers: readonly AnyFormatHandler[]): FormatRegistry {
  const byFormat = new Map<CredentialFormat, CredentialFormatHandler>();
  for (const handler of handlers) {
    if (byFormat.has(handler.format)) throw new Error(`Two handlers for the ${handler.format} format`);
    byFormat.set(handler.format, handler as unknown as CredentialFormatHandler);
  }
  const get = (format: CredentialFormat): CredentialFormatHandler => {
    const handler = byFormat.get(format);
    if (!handler) throw new Error(`No handler for the ${format} format`);
    return handler;
  };
  return {
    get,
    of: (configuration: CredentialConfiguration) => get(configuration.format),
    formats: [...byFormat.keys()],
  };
}
