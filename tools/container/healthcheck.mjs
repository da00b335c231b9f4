#!/usr/bin/env node
// The container image's HEALTHCHECK (docs/container.md): asks this server's liveness route,
// GET /health, over its own port and exits 0 on a 200, 1 on anything else. With the argument
// `/ready` it asks the readiness route instead (compose.yaml's health check: the database too). The slim image has no
// curl or wget, and Node is there anyway. It reads the same variables as the server does.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const env = (name) => {
  const value = process.env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

const port = Number(env('VELLUM_PORT') ?? 3000);
const bound = env('VELLUM_HOST') ?? '127.0.0.1';
// A wildcard address takes connections on loopback; a specific one must be asked at that address.
const host = bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound;
const tls = env('VELLUM_TLS_CERT_FILE') !== undefined;
const routes = ['/health', '/ready'];
const path = process.argv[2] ?? '/health';
if (!routes.includes(path)) {
  process.stderr.write(`health check: asks ${routes.join(' or ')}, not ${path}\n`);
  process.exit(2);
}

const request = tls ? httpsRequest : httpRequest;
// Over TLS the certificate names the public host, not loopback: this probe checks liveness, not trust.
const req = request({ host, port, path, method: 'GET', timeout: 4000, ...(tls ? { rejectUnauthorized: false } : {}) }, (res) => {
  res.resume();
  res.on('end', () => {
    if (res.statusCode === 200) process.exit(0);
    process.stderr.write(`health check failed: HTTP ${res.statusCode}\n`);
    process.exit(1);
  });
});
req.on('timeout', () => req.destroy(new Error('timed out')));
req.on('error', (err) => {
  process.stderr.write(`health check failed: ${err.message}\n`);
  process.exit(1);
});
req.end();
