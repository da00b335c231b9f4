// Webhook delivery throughput (issue 6): signed deliveries per second from the delivery worker to
// a local HTTPS receiver. Target: at least 2,000 per second on this machine.
//
//   node tools/bench/src/webhook-delivery.ts [--deliveries 20000] [--batch 500] [--concurrency 64]
//
// What runs: the outbox writes N deliveries (one tenant, one webhook, OpenIdCredentialIssued with a
// 1 KB credential) into a fresh SQLite database, the server's default store; then the worker of
// @vellum/core (createWebhookDeliveryWorker) claims them in batches, renders each body, computes its
// Content-Digest, signs it (RFC 9421, Ed25519 through the real KeyManager, keys sealed at rest),
// sends it through @vellum/node's HttpClient (keep-alive https, TLS checked against the receiver's
// self-signed certificate) and records every attempt, until none is due. The receiver is a child
// process on its own core; it verifies every 50th delivery's signature and digest.
import { execFileSync, fork } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createWebhookDeliveryWorker, createWebhookOutbox, createWebhookSigningKeys, type DomainEvent, type Tenant } from '@vellum/core';
import { createKeyManager, createSealer } from '@vellum/crypto';
import { createHttpClient, createNodeIds, systemClock } from '@vellum/node';
import { openSqlStore } from '@vellum/storage-sql';

const { values: args } = parseArgs({
  options: { deliveries: { type: 'string', default: '20000' }, batch: { type: 'string', default: '500' }, concurrency: { type: 'string', default: '64' } },
});
const TOTAL = Number(args.deliveries);
const BATCH = Number(args.batch);
const CONCURRENCY = Number(args.concurrency);

const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-hooks-'));
// A self-signed certificate for localhost, made with openssl; the sender trusts it explicitly.
// prettier-ignore
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    join(dir, 'tls.key'),
    '-out',
    join(dir, 'tls.crt'),
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost',
  ],
  { stdio: 'ignore' },
);
const tls = { certPem: readFileSync(join(dir, 'tls.crt'), 'utf8'), keyPem: readFileSync(join(dir, 'tls.key'), 'utf8') };
const child = fork(fileURLToPath(new URL('./webhook-receiver.ts', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ask = <T>(message: object) =>
  new Promise<T>((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(message);
  });

try {
  const { port } = await ask<{ port: number }>({ tls: { certPem: tls.certPem, keyPem: tls.keyPem } });
  const store = await openSqlStore({ kind: 'sqlite', filename: join(dir, 'vellum.db') });
  const clock = systemClock;
  const ids = createNodeIds();
  const keys = createKeyManager({ keys: store.keys, sealer: createSealer(randomBytes(32)), ids, clock });
  const signingKeys = createWebhookSigningKeys({ store, keys, clock });
  const outbox = createWebhookOutbox({ clock, ids });
  const http = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem, maxSockets: CONCURRENCY });
  const worker = createWebhookDeliveryWorker({
    store,
    keys,
    signingKeys,
    http,
    clock,
    ids,
    batchSize: BATCH,
    concurrency: CONCURRENCY,
    sha256: (data) => createHash('sha256').update(data).digest(),
  });

  const tenant: Tenant = { id: randomUUID(), subdomain: 'acme', region: 'eu01', name: 'Acme', loggingLevel: 1, createdAt: new Date().toISOString() };
  await store.tenants.insert(tenant);
  const now = new Date().toISOString();
  await store.webhooks.insert({
    id: randomUUID(),
    tenantId: tenant.id,
    url: `https://localhost:${port}/hook`,
    events: ['OpenIdCredentialIssued'],
    disabled: false,
    createdAt: now,
    updatedAt: now,
  });
  await signingKeys.ensureActive(tenant.id);
  child.send({ jwks: await signingKeys.jwks(tenant.id) });

  // The outbox, as issuance writes it: one event per transaction would measure issuance; here
  // 500 events share a transaction so the setup is quick.
  const credential = randomBytes(768).toString('base64url');
  for (let written = 0; written < TOTAL; written += 500) {
    await store.transaction(async (tx) => {
      for (let i = written; i < Math.min(TOTAL, written + 500); i++) {
        const event: DomainEvent = {
          id: randomUUID(),
          tenantId: tenant.id,
          type: 'OpenIdCredentialIssued',
          occurredAt: new Date().toISOString(),
          payload: {
            credential,
            credentialId: randomUUID(),
            credentialConfigurationId: 'bench-mdl',
            credentialProfile: 'mso_mdoc',
            format: 'mso_mdoc',
            userId: randomUUID(),
            userClaims: { givenName: 'Susan', familyName: 'Turner', birthDate: '1990-05-15' },
          },
        };
        await outbox.publish(tx, event);
      }
    });
  }

  // Warm up: TLS sessions, prepared statements, the JIT.
  const warm = performance.now();
  let sent = await worker.deliverDue();
  const warmMs = performance.now() - warm;

  const started = performance.now();
  const cpuStart = process.cpuUsage();
  for (;;) {
    const n = await worker.deliverDue();
    if (n === 0) break;
    sent += n;
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const measured = sent - BATCH;
  const report = await ask<{ received: number; verified: number; failures: string[] }>({ report: true });

  const deliveries = await store.webhookDeliveries.list(tenant.id, (await store.webhooks.list(tenant.id, { limit: 1 })).items[0]!.id, { limit: 1 });
  console.log(`machine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.versions.node}, SQLite`);
  console.log(`deliveries: ${TOTAL} (batch ${BATCH}, ${CONCURRENCY} in flight), warm-up batch ${BATCH} in ${warmMs.toFixed(0)} ms`);
  console.log(`measured: ${measured} deliveries in ${elapsed.toFixed(2)} s = ${Math.round(measured / elapsed)} signed deliveries/s`);
  console.log(
    `sender CPU: ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s = ${Math.round(measured / ((cpu.user + cpu.system) / 1e6))} deliveries per sender CPU-second`,
  );
  console.log(`receiver: ${report.received} received, ${report.verified} signatures checked, ${report.failures.length} failures ${report.failures.join('; ')}`);
  console.log(`first delivery: ${deliveries.items[0]?.status}, ${deliveries.items[0]?.attempts.length} attempt(s)`);
  if (report.received !== TOTAL || report.failures.length > 0) process.exitCode = 1;
  http.close();
  await store.close();
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}
