// What analytic events ask of the world: the Store's events. Its comments are its contract, which
// the Store contract suite in @vellum/testing asserts.

import type { PageRequest, Slice } from '../shared/pagination.ts';
import type { AnalyticEvent, EventFilter } from './model.ts';

export interface EventRepository {
  insertMany(events: readonly AnalyticEvent[]): Promise<void>;
  /** The tenant's events matching the filter, newest first; `after` pages towards older ones. */
  list(tenantId: string, filter: EventFilter, page: PageRequest): Promise<Slice<AnalyticEvent>>;
  /** Deletes up to `limit` of the tenant's events dated before `before` (the retention job, docs/retention.md); returns how many. */
  purgeBefore(tenantId: string, before: string, limit: number): Promise<number>;
}
