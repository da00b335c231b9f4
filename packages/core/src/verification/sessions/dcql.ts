// Contract B as sessions consume it: the DCQL module (../dcql) behind the SessionDcql port.

import { dcqlProblems, evaluateDcql } from '../dcql/evaluate.ts';
import type { DcqlQuery } from '../dcql/schema.ts';
import type { SessionDcql } from './ports.ts';

/** `/credentials/0/id` → `credentials.0.id`: the dotted params of the error body (docs/errors.md). */
const dotted = (pointer: string) => pointer.replace(/^\//, '').replaceAll('/', '.');

/** DCQL as sessions use it. The query has passed CreateSessionBody (DcqlQuerySchema) when these run. */
export const sessionDcql: SessionDcql = {
  problems: (query) => dcqlProblems(query as DcqlQuery).map((p) => ({ path: dotted(p.path), message: p.message })),
  evaluate: (query, presented) => evaluateDcql(query as DcqlQuery, presented),
};
