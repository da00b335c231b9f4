import { checkCreateDidInput, checkWebhookInput, type DomainError } from '@vellum/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../test/app.ts';

// docs/decisions.md "One validation path": a body that misses its schema gets the same details over
// HTTP (Fastify runs the core's schema with the core's check) as from the core called directly.
describe('one validation path: the same bad body, the same answer through either door', () => {
  let t: TestApp;
  let headers: Record<string, string>;

  beforeAll(async () => {
    t = await buildTestApp('standalone');
    const created = await t.createTenant('v1');
    headers = { authorization: `Bearer ${await t.token('v1', 'admin')}`, host: created.host };
  });
  afterAll(async () => t.close());

  /** The details the core's own check gives for `body`. */
  function coreDetails(check: (body: never) => unknown, body: object): unknown {
    try {
      check(body as never);
    } catch (error) {
      return (error as DomainError).details;
    }
    throw new Error('the core accepted the body');
  }

  it.each([
    ['an unknown event, a number for the URL and an unknown field', { events: ['OpenIdCredentialIssued', 'Nope'], url: 5, extra: 'x' }],
    ['an empty list, a missing URL and a secret-named unknown field', { events: [], client_secret: 'hunter2' }],
    ['a string for disabled', { events: ['OpenIdCredentialIssued'], url: 'https://hooks.example.com/a', disabled: 'no' }],
    ['one event where a list belongs, and no body fields but that', { events: 'OpenIdCredentialIssued' }],
  ])('webhooks: %s', async (_, body) => {
    const answer = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers, payload: body });
    expect(answer.statusCode).toBe(400);
    const details = answer.json().details;
    expect(details.length).toBeGreaterThan(0);
    expect(details).toEqual(coreDetails(checkWebhookInput, body));
    expect(JSON.stringify(details)).not.toContain('hunter2');
  });

  it.each([
    ['no method', {}],
    ['an unknown method and key type, and an unknown option', { method: 'ion', options: { keyType: 'RSA', colour: 'red' } }],
    ['a number for the URL', { method: 'web', options: { url: 7 } }],
    ['options that are no object', { method: 'key', options: 'Ed25519' }],
  ])('DIDs: %s', async (_, body) => {
    const answer = await t.app.inject({ method: 'POST', url: '/v1/dids', headers, payload: body });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().details).toEqual(coreDetails(checkCreateDidInput, body));
  });
});
