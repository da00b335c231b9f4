import { writeFileSync } from 'node:fs';
import Fastify, { type RouteOptions } from 'fastify';
import { it } from 'vitest';
import { buildTestApp } from '../test/app.ts';
import { vellumPlugin } from './index.ts';

it('dumps', async () => {
  const t = await buildTestApp('standalone');
  const acme = await t.createTenant('acme');
  const out: Record<string, unknown> = {};
  for (const prefix of ['', '/issuance']) {
    const app = Fastify();
    const routes: RouteOptions[] = [];
    app.addHook('onRoute', (r) => { routes.push(r); });
    await app.register(vellumPlugin, { services: t.services, prefix });
    await app.ready();
    const res = await app.inject({ url: `${prefix}/openapi.json`, headers: { host: acme.host } });
    out[`doc${prefix}`] = res.json();
    out[`routes${prefix}`] = routes.map((r) => ({ method: r.method, url: r.url, config: r.config, logLevel: r.logLevel, preValidation: typeof r.preValidation, schema: JSON.parse(JSON.stringify(r.schema ?? null)) }));
    await app.close();
  }
  await t.close();
  writeFileSync(`/tmp/fr-openapi-${process.env.FR_LABEL}.json`, JSON.stringify(out, null, 1));
});
