import type { ClaimedDelivery, DeliveryOutcome, DomainEvent, DomainEventSink, Store } from '@vellum/core';
import { createMetrics, type VellumMetrics } from '@vellum/fastify';
import { createMemoryStore } from '@vellum/storage-memory';
import { describe, expect, it } from 'vitest';
import { countIssuedCredentials, countWebhookDeliveries, timeStore } from './metrics.ts';

/** The value of the sample `name{labels}` in Prometheus text (labels as prom-client writes them, in order). */
async function valueOf(metrics: VellumMetrics, name: string, labels = ''): Promise<number | undefined> {
  const line = (await metrics.render()).split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const issuedEvent = (format: string) =>
  ({
    type: 'OpenIdCredentialIssued',
    tenantId: 't1',
    payload: { credential: 'c', credentialId: 'id', credentialConfigurationId: 'cc', credentialProfile: 'p', format, userId: 'u', userClaims: {} },
  }) as unknown as DomainEvent;

describe('countIssuedCredentials: a DomainEventSink decorator (docs/metrics.md)', () => {
  it('passes every event on and counts issued credentials by format', async () => {
    const published: DomainEvent[] = [];
    const metrics = createMetrics({ processMetrics: false });
    const sink = countIssuedCredentials({ publish: async (_tx, event) => void published.push(event) }, metrics);
    const tx = {} as Parameters<DomainEventSink['publish']>[0];
    await sink.publish(tx, issuedEvent('mso_mdoc'));
    await sink.publish(tx, issuedEvent('dc+sd-jwt'));
    await sink.publish(tx, issuedEvent('mso_mdoc'));
    await sink.publish(tx, { type: 'CredentialStatusUpdated', tenantId: 't1', payload: { format: 'mso_mdoc' } } as unknown as DomainEvent);
    expect(published.map((e) => e.type)).toEqual(['OpenIdCredentialIssued', 'OpenIdCredentialIssued', 'OpenIdCredentialIssued', 'CredentialStatusUpdated']);
    expect(await valueOf(metrics, 'vellum_credentials_issued_total', 'format="mso_mdoc"')).toBe(2);
    expect(await valueOf(metrics, 'vellum_credentials_issued_total', 'format="dc+sd-jwt"')).toBe(1);
  });

  it('counts nothing when the sink refuses the event (the issuance fails with it)', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const sink = countIssuedCredentials({ publish: async () => Promise.reject(new Error('outbox down')) }, metrics);
    await expect(sink.publish({} as Parameters<DomainEventSink['publish']>[0], issuedEvent('mso_mdoc'))).rejects.toThrow('outbox down');
    expect(await valueOf(metrics, 'vellum_credentials_issued_total', 'format="mso_mdoc"')).toBeUndefined();
  });
});

describe('timeStore: a Store decorator timing each operation (docs/metrics.md)', () => {
  it('answers as the store does and observes each repository call and each transaction once', async () => {
    const inner = createMemoryStore();
    const metrics = createMetrics({ processMetrics: false });
    const store = timeStore(inner, metrics);
    expect(await store.tenants.findBySubdomain('nobody')).toBeUndefined();
    expect(await store.tenants.findBySubdomain('still-nobody')).toBeUndefined();
    expect(await store.transaction(async (tx) => (await tx.tenants.findBySubdomain('nobody')) ?? 'none')).toBe('none');
    await store.ping();
    expect(await valueOf(metrics, 'vellum_store_operation_duration_seconds_count', 'operation="tenants.findBySubdomain"')).toBe(2);
    // Calls inside a transaction count in the transaction's time, not on their own.
    expect(await valueOf(metrics, 'vellum_store_operation_duration_seconds_count', 'operation="transaction"')).toBe(1);
    await store.close();
  });

  it('observes failed calls too, and lets their errors through unchanged', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const failing = { ...createMemoryStore(), transaction: async () => Promise.reject(new Error('database gone')) } as Store;
    const store = timeStore(failing, metrics);
    await expect(store.transaction(async () => 1)).rejects.toThrow('database gone');
    expect(await valueOf(metrics, 'vellum_store_operation_duration_seconds_count', 'operation="transaction"')).toBe(1);
  });
});

describe('countWebhookDeliveries: the delivery worker’s store, counting outcomes (docs/metrics.md)', () => {
  const claimed = (id: string) => ({ delivery: { id }, url: 'https://receiver.example/hook', claimToken: 'c', disabled: false }) as unknown as ClaimedDelivery;
  const outcome = (id: string, status: DeliveryOutcome['status']) =>
    ({ tenantId: 't1', id, claimToken: 'c', attempts: [], status, retriesLeft: 0 }) as DeliveryOutcome;

  it('counts recorded outcomes (succeeded, retry, failed) and holds claimed deliveries in flight until they are recorded', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const inner = createMemoryStore();
    let recordedIds: string[] = [];
    const fake = {
      ...inner,
      webhookDeliveries: { ...inner.webhookDeliveries, claimDue: async () => ['a', 'b', 'c', 'd'].map(claimed), recordAttempts: async () => recordedIds },
    } as Store;
    const store = countWebhookDeliveries(fake, metrics);
    const got = await store.webhookDeliveries.claimDue({ now: '', leaseUntil: '', limit: 10, claimToken: 'c' });
    expect(got).toHaveLength(4);
    expect(await valueOf(metrics, 'vellum_webhook_deliveries_in_flight')).toBe(4);
    // 'd' lost its lease to another worker: not recorded here, so not counted here.
    recordedIds = ['a', 'b', 'c'];
    const outcomes = [outcome('a', 'succeeded'), outcome('b', 'pending'), outcome('c', 'failed'), outcome('d', 'succeeded')];
    expect(await store.webhookDeliveries.recordAttempts(outcomes)).toEqual(['a', 'b', 'c']);
    expect(await valueOf(metrics, 'vellum_webhook_deliveries_total', 'outcome="succeeded"')).toBe(1);
    expect(await valueOf(metrics, 'vellum_webhook_deliveries_total', 'outcome="retry"')).toBe(1);
    expect(await valueOf(metrics, 'vellum_webhook_deliveries_total', 'outcome="failed"')).toBe(1);
    expect(await valueOf(metrics, 'vellum_webhook_deliveries_in_flight')).toBe(0);
  });

  it('ends the in-flight count when recording fails (the leases bring the deliveries back later)', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const inner = createMemoryStore();
    const fake = {
      ...inner,
      webhookDeliveries: {
        ...inner.webhookDeliveries,
        claimDue: async () => [claimed('a')],
        recordAttempts: async () => Promise.reject(new Error('database gone')),
      },
    } as Store;
    const store = countWebhookDeliveries(fake, metrics);
    await store.webhookDeliveries.claimDue({ now: '', leaseUntil: '', limit: 10, claimToken: 'c' });
    await expect(store.webhookDeliveries.recordAttempts([outcome('a', 'succeeded')])).rejects.toThrow('database gone');
    expect(await valueOf(metrics, 'vellum_webhook_deliveries_in_flight')).toBe(0);
    expect(await valueOf(metrics, 'vellum_webhook_deliveries_total', 'outcome="succeeded"')).toBeUndefined();
  });
});
