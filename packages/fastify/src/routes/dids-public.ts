import { MAX_DID_WEB_PATH_SEGMENTS } from '@vellum/core';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../context.ts';
import type { VellumServices } from '../services.ts';
import { DidConfiguration, DidDocument, documentedResponses } from '../schemas/documented.ts';

const tags = ['DIDs'];

// Every wallet and verifier reads these, anonymously and often: logging each request at info
// would cost more than answering it. Failures are still logged (a 5xx at error level).
const options = { logLevel: 'warn' } as const;
const configurationDocument = { responses: { 200: documentedResponses.json('The DID configuration.', DidConfiguration) } };
const didDocument = { responses: { 200: documentedResponses.json('The DID document.', DidDocument) } };

/**
 * Public DID endpoints (no token; the tenant comes from the Host header): did:web documents
 * (`/.well-known/did.json`, `/{path}/did.json`) and the DID configuration (DIF Well Known DID Configuration).
 */
export const publicDidRoutes: FastifyPluginAsync<{ services: VellumServices }> = async (app, { services }) => {
  // The DID configuration is served many times for each time it changes: keep the JSON of answers
  // by identity (the core hands back the same object while nothing changed).
  const serialised = new WeakMap<object, string>();
  const json = (reply: FastifyReply, value: object): FastifyReply => {
    let body = serialised.get(value);
    if (body === undefined) {
      body = JSON.stringify(value);
      serialised.set(value, body);
    }
    // Public, credential-free documents: browser-based wallets and verifiers may read them too.
    return reply.header('access-control-allow-origin', '*').type('application/json; charset=utf-8').send(body);
  };

  const configuration = async (request: FastifyRequest, reply: FastifyReply) => json(reply, await services.didConfiguration.get(requestContext(request)));
  app.get(
    '/.well-known/did-configuration',
    { ...options, schema: { tags, summary: 'DID configuration (DIF Well Known DID Configuration)', documentOnly: configurationDocument } },
    configuration,
  );
  // The DIF Well Known DID Configuration names the resource with `.json`; both paths answer.
  app.get(
    '/.well-known/did-configuration.json',
    { ...options, schema: { tags, summary: 'DID configuration, `.json` path', documentOnly: configurationDocument } },
    configuration,
  );

  app.get(
    '/.well-known/did.json',
    { ...options, schema: { tags, summary: 'did:web document of the host', documentOnly: didDocument } },
    async (request, reply) => json(reply, await services.dids.webDocument(requestContext(request), [])),
  );
  // One route per depth, since a router wildcard cannot sit before `/did.json`.
  for (let depth = 1; depth <= MAX_DID_WEB_PATH_SEGMENTS; depth++) {
    const names = Array.from({ length: depth }, (_, i) => `p${i}`);
    const summary = `did:web document at a path of ${depth} segment${depth === 1 ? '' : 's'}`;
    app.get(
      `/${names.map((n) => `:${n}`).join('/')}/did.json`,
      { ...options, schema: { tags, summary, documentOnly: didDocument } },
      async (request, reply) => {
        const params = request.params as Record<string, string>;
        return json(
          reply,
          await services.dids.webDocument(
            requestContext(request),
            names.map((n) => params[n] ?? ''),
          ),
        );
      },
    );
  }
};
