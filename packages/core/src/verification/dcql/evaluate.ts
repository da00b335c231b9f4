// DCQL (OpenID4VP 1.0 §6): whether a query is one Vellum can answer, and whether verified
// presentations answer it (docs/verification.md "DCQL", docs/decisions.md "DCQL (issue 31)").

import { VERIFIABLE_FORMATS, type VerificationResult } from '../model.ts';
import { mergeSelections, project, type Selection, selectClaims } from './pointer.ts';
import type { DcqlClaimsQuery, DcqlCredentialQuery, DcqlQuery } from './schema.ts';

export interface DcqlProblem {
  /** JSON-pointer-like location in the query, e.g. `/credentials/0/claim_sets/1/0`. */
  path: string;
  message: string;
}

/** The only trusted authority type Vellum matches (§6.1.1; HAIP asks verifiers for it). */
const TRUSTED_AUTHORITY_TYPES = ['aki'];
/** Which meta member each format needs, and the ones that belong to other formats. */
const META_OF: Record<string, 'vct_values' | 'doctype_value' | 'type_values'> = {
  'dc+sd-jwt': 'vct_values',
  mso_mdoc: 'doctype_value',
  ldp_vc: 'type_values',
};
const META_MEMBERS = ['vct_values', 'doctype_value', 'type_values'] as const;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A short, safe rendering of an identifier or value for a message. */
const quote = (value: unknown) => JSON.stringify(value)?.slice(0, 80) ?? String(value);

/**
 * Problems the schema cannot see, for a query that already passed DcqlQuerySchema: [] when Vellum can
 * evaluate the query. Formats are checked against VERIFIABLE_FORMATS as it stands when called.
 */
export function dcqlProblems(query: DcqlQuery): DcqlProblem[] {
  const problems: DcqlProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  const ids = new Set<string>();
  query.credentials.forEach((credential, c) => {
    const at = `/credentials/${c}`;
    if (ids.has(credential.id)) add(`${at}/id`, `The credential query id ${quote(credential.id)} is used twice`);
    ids.add(credential.id);

    const { format } = credential;
    if (!(VERIFIABLE_FORMATS as readonly string[]).includes(format)) add(`${at}/format`, `Vellum does not verify the format ${quote(format)}`);
    const needed = Object.hasOwn(META_OF, format) ? META_OF[format] : undefined;
    if (needed && credential.meta[needed] === undefined) add(`${at}/meta`, `meta.${needed} is required for ${format}`);
    for (const member of META_MEMBERS)
      if (member !== needed && credential.meta[member] !== undefined) add(`${at}/meta/${member}`, `meta.${member} does not apply to ${quote(format)}`);

    credential.trusted_authorities?.forEach((authority, t) => {
      if (!TRUSTED_AUTHORITY_TYPES.includes(authority.type))
        add(`${at}/trusted_authorities/${t}/type`, `Trusted authorities of type ${quote(authority.type)} are not supported; only aki`);
      else
        authority.values.forEach((value, v) => {
          if (!BASE64URL.test(value)) add(`${at}/trusted_authorities/${t}/values/${v}`, 'An aki value is the base64url of a key identifier');
        });
    });

    const claimIds = new Set<string>();
    credential.claims?.forEach((claim, q) => {
      const claimAt = `${at}/claims/${q}`;
      if (claim.id !== undefined) {
        if (claimIds.has(claim.id)) add(`${claimAt}/id`, `The claims query id ${quote(claim.id)} is used twice in this credential query`);
        claimIds.add(claim.id);
      } else if (credential.claim_sets) add(`${claimAt}/id`, 'Every claims query needs an id when claim_sets is present');
      if (format === 'mso_mdoc') {
        if (claim.path.length !== 2 || claim.path.some((component) => typeof component !== 'string'))
          add(`${claimAt}/path`, 'An mso_mdoc claims path is [namespace, element identifier]');
      } else if (claim.intent_to_retain !== undefined) add(`${claimAt}/intent_to_retain`, 'intent_to_retain applies to mso_mdoc only');
    });
    if (credential.claim_sets && !credential.claims) add(`${at}/claim_sets`, 'claim_sets needs claims');
    credential.claim_sets?.forEach((set, s) =>
      set.forEach((id, i) => {
        if (!claimIds.has(id)) add(`${at}/claim_sets/${s}/${i}`, `No claims query of this credential query has the id ${quote(id)}`);
      }),
    );
  });
  query.credential_sets?.forEach((set, s) =>
    set.options.forEach((option, o) =>
      option.forEach((id, i) => {
        if (!ids.has(id)) add(`/credential_sets/${s}/options/${o}/${i}`, `No credential query has the id ${quote(id)}`);
      }),
    ),
  );
  return problems;
}

/** What one credential query got: its verified, matching presentations' requested claims, or why not. */
export interface DcqlCredentialEvaluation {
  satisfied: boolean;
  /** One per presentation, only the claims asked for (all disclosed ones when it asked for none); empty unless satisfied. */
  claims: Record<string, unknown>[];
  failures: string[];
}

export interface DcqlEvaluation {
  /** Every required credential (or credential set) answered by verified, matching presentations, and nothing else presented. */
  satisfied: boolean;
  credentials: Record<string, DcqlCredentialEvaluation>;
  failures: string[];
}

/** Whether one claims query matches: the path selects something and, with `values`, one selected value equals one of them. */
function matchClaim(claims: Record<string, unknown>, claim: DcqlClaimsQuery): Selection | undefined {
  const selected = selectClaims(claims, claim.path);
  if (!selected) return undefined;
  if (claim.values && !selected.values.some((value) => claim.values?.some((wanted) => wanted === value))) return undefined;
  return selected.selection;
}

/** The types an ldp_vc presents: its `type` claim, and the credentialType the verifier reported. */
function typesOf(result: VerificationResult): string[] {
  const type = result.claims.type;
  const listed = Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : typeof type === 'string' ? [type] : [];
  return result.credentialType ? [...listed, result.credentialType] : listed;
}

function metaFailure(query: DcqlCredentialQuery, result: VerificationResult): string | undefined {
  const { meta } = query;
  if (query.format === 'dc+sd-jwt' && !meta.vct_values?.includes(result.credentialType ?? ''))
    return `its vct ${quote(result.credentialType)} is not one of meta.vct_values`;
  if (query.format === 'mso_mdoc' && meta.doctype_value !== result.credentialType)
    return `its doctype ${quote(result.credentialType)} is not meta.doctype_value`;
  if (query.format === 'ldp_vc') {
    const types = typesOf(result);
    if (!meta.type_values?.some((set) => set.every((type) => types.includes(type)))) return 'its types match no member of meta.type_values';
  }
  return undefined;
}

/** The requested claims of one presentation, or why it does not answer the credential query. */
function evaluatePresentation(query: DcqlCredentialQuery, result: VerificationResult): { claims: Record<string, unknown> } | { failure: string } {
  if (!result.verified) {
    const failed = result.checks.filter((check) => !check.ok).map((check) => check.check);
    const why = failed.length > 0 ? failed.join(', ') : result.issuer?.trusted === false ? 'untrusted issuer' : 'not verified';
    return { failure: `did not verify (${why.slice(0, 200)})` };
  }
  if (result.format !== query.format) return { failure: `is ${quote(result.format)}, not ${quote(query.format)}` };
  const meta = metaFailure(query, result);
  if (meta) return { failure: meta };
  if ((query.require_cryptographic_holder_binding ?? true) && result.holderBound !== true) return { failure: 'has no cryptographic holder binding' };
  if (query.trusted_authorities) {
    const keyIds = result.issuer?.authorityKeyIds ?? [];
    const trusted = query.trusted_authorities.some((authority) => authority.type === 'aki' && authority.values.some((value) => keyIds.includes(value)));
    if (!trusted) return { failure: 'its issuer chain names none of the trusted authorities' };
  }
  if (!query.claims) return { claims: result.claims };

  const byId = new Map(query.claims.flatMap((claim) => (claim.id === undefined ? [] : [[claim.id, claim] as const])));
  // Without claim_sets every claim is asked for; with them, the first option the presentation satisfies.
  const options: DcqlClaimsQuery[][] = query.claim_sets ? query.claim_sets.map((set) => set.flatMap((id) => byId.get(id) ?? [])) : [query.claims];
  let missing: DcqlClaimsQuery | undefined;
  for (const option of options) {
    let selection: Selection | undefined;
    missing = undefined;
    for (const claim of option) {
      const matched = matchClaim(result.claims, claim);
      if (!matched) {
        missing = claim;
        break;
      }
      selection = selection === undefined ? matched : mergeSelections(selection, matched);
    }
    if (!missing && selection) return { claims: project(result.claims, selection) as Record<string, unknown> };
  }
  if (query.claim_sets) return { failure: 'satisfies no claim set' };
  const name = missing?.id ?? quote(missing?.path);
  return { failure: `lacks the claim ${name}${missing?.values ? ' with one of the values asked for' : ''}` };
}

/**
 * Whether verified presentations answer `query` (§6.4's rules, from the verifier's side). `presented`
 * maps each credential query id the wallet answered to the verification results of its presentations.
 * A query with dcqlProblems is never satisfied.
 */
export function evaluateDcql(query: DcqlQuery, presented: Record<string, VerificationResult[]>): DcqlEvaluation {
  const failures: string[] = [];
  const problems = dcqlProblems(query);
  if (problems.length > 0) failures.push(`the query cannot be evaluated: ${problems[0]?.message}`);
  const known = new Set(query.credentials.map((credential) => credential.id));
  for (const id of Object.keys(presented)) if (!known.has(id)) failures.push(`unrequested credential id ${quote(id)}`);

  const credentials: Record<string, DcqlCredentialEvaluation> = {};
  for (const query_ of query.credentials) {
    const results = Object.hasOwn(presented, query_.id) ? (presented[query_.id] ?? []) : [];
    const own: string[] = [];
    const claims: Record<string, unknown>[] = [];
    if (results.length === 0) own.push('not presented');
    if (results.length > 1 && query_.multiple !== true) own.push(`${results.length} presentations for a query that does not allow multiple`);
    results.forEach((result, i) => {
      const outcome = evaluatePresentation(query_, result);
      if ('failure' in outcome) own.push(`presentation ${i}: ${outcome.failure}`);
      else claims.push(outcome.claims);
    });
    const satisfied = own.length === 0;
    // An own member even for an id such as __proto__ (ids are the query's; letters and _ are allowed).
    Object.defineProperty(credentials, query_.id, {
      value: { satisfied, claims: satisfied ? claims : [], failures: own },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    // Something presented must answer its query, whether or not it was required.
    if (results.length > 0 && !satisfied) failures.push(`credential ${quote(query_.id)} does not answer its query`);
  }

  const answered = (id: string) => Object.hasOwn(credentials, id) && credentials[id]?.satisfied === true;
  if (query.credential_sets) {
    query.credential_sets.forEach((set, s) => {
      if ((set.required ?? true) && !set.options.some((option) => option.every(answered))) failures.push(`credential set ${s} not satisfied`);
    });
  } else {
    // Every credential query is required; one presented that does not answer is already a failure above.
    for (const credential of query.credentials)
      if (credentials[credential.id]?.failures.includes('not presented')) failures.push(`credential ${quote(credential.id)} not presented`);
  }
  return { satisfied: failures.length === 0, credentials, failures };
}
