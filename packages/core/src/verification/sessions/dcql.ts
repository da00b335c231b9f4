// Contract B as sessions consume it: the DCQL module (../dcql) behind the SessionDcql port.

import { dcqlProblems, evaluateDcql } from '../dcql/evaluate.ts';
import type { DcqlQuery } from '../dcql/schema.ts';
import type { SessionDcql } from './ports.ts';

/** The formats a session's vp_token may carry (OpenID4VP 1.0 Appendix B.2 and B.3). */
export const SESSION_FORMATS = ['dc+sd-jwt', 'mso_mdoc'] as const;

/** `/credentials/0/id` → `credentials.0.id`: the dotted params of the error body (docs/errors.md). */
const dotted = (pointer: string) => pointer.replace(/^\//, '').replaceAll('/', '.');

/** DCQL as sessions use it. The query has passed CreateSessionBody (DcqlQuerySchema) when these run. */
export const sessionDcql: SessionDcql = {
  problems: (query) => [
    ...dcqlProblems(query as DcqlQuery).map((p) => ({ path: dotted(p.path), message: p.message })),
    // The verify API takes ldp_vc presentations; a session's vp_token does not yet (docs/verification.md).
    ...(query as DcqlQuery).credentials.flatMap((c, i) =>
      (SESSION_FORMATS as readonly string[]).includes(c.format) || !c.format
        ? []
        : [{ path: `credentials.${i}.format`, message: `Presentation sessions ask for ${SESSION_FORMATS.join(' or ')} only` }],
    ),
  ],
  evaluate: (query, presented) => evaluateDcql(query as DcqlQuery, presented),
};
