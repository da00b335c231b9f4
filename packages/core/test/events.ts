// Reading back the analytic events a test caused (docs/decisions.md "Analytic events").
import type { EventFilter } from '../src/events/model.ts';
import type { EventRecorder } from '../src/events/recorder.ts';
import type { Store } from '../src/ports.ts';

/** The events of `tenantId` that `filter` picks, once `recorder` has written what it holds; newest first, as the store lists them. */
export async function recordedEvents(h: { recorder: EventRecorder; store: Pick<Store, 'events'> }, tenantId: string, filter: EventFilter = {}) {
  await h.recorder.flush();
  return (await h.store.events.list(tenantId, filter, { limit: 1000 })).items;
}
