// `pnpm --filter @vellum/openapi generate`: writes the client types from the document the reference
// server serves now. openapi.e2e.test.ts fails until they match it.
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, clientTypes } from './client-types.ts';
import { startLoopbackServer } from './server.ts';

const server = await startLoopbackServer();
try {
  const document = await (await fetch(`${server.baseUrl}/openapi.json`)).json();
  writeFileSync(CLIENT_TYPES_FILE, await clientTypes(document));
  console.log(`wrote ${CLIENT_TYPES_FILE.pathname}`);
} finally {
  await server.close();
}
