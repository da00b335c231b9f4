// DCQL (OpenID4VP 1.0 §6–7) for presentation sessions: the query's schema, its soundness, its evaluation.
export { type DcqlCredentialEvaluation, type DcqlEvaluation, type DcqlProblem, dcqlProblems, evaluateDcql } from './evaluate.ts';
export { mergeSelections, project, type Selection, selectClaims } from './pointer.ts';
export {
  DCQL_LIMITS,
  type DcqlClaimsPath,
  DcqlClaimsPathSchema,
  type DcqlClaimsQuery,
  DcqlClaimsQuerySchema,
  type DcqlCredentialQuery,
  DcqlCredentialQuerySchema,
  DcqlCredentialSetQuerySchema,
  DcqlMetaSchema,
  type DcqlQuery,
  DcqlQuerySchema,
  DcqlTrustedAuthorityQuerySchema,
} from './schema.ts';
