// The receiving end of the webhook delivery benchmark, run as a child process (webhook-delivery.ts
// forks it) so that the sender and the receiver each have a core. It answers 200 to everything and
// checks the signature and digest of every 50th delivery against the JWKS it is sent.
import { createServer } from 'node:https';
import { verifyWebhookDelivery } from '@vellum/node';

type Message = { tls: { certPem: string; keyPem: string } } | { jwks: { keys: Array<Record<string, unknown>> } } | { report: true };

let jwks: { keys: Array<Record<string, unknown>> } = { keys: [] };
let received = 0;
let verified = 0;
const failures: string[] = [];

process.on('message', (message: Message) => {
  if ('tls' in message) {
    const server = createServer({ cert: message.tls.certPem, key: message.tls.keyPem, keepAliveTimeout: 30_000 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (received % 50 === 0 && jwks.keys.length > 0) {
          const url = `https://localhost:${(server.address() as { port: number }).port}${req.url ?? ''}`;
          const checked = verifyWebhookDelivery({ method: req.method ?? '', url, headers: req.headers, body: Buffer.concat(chunks), jwks });
          if (checked.ok) verified += 1;
          else failures.push(checked.reason);
        }
        received += 1;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
  } else if ('jwks' in message) {
    jwks = message.jwks;
  } else {
    process.send?.({ received, verified, failures: failures.slice(0, 5) });
  }
});
