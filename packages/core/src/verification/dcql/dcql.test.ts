import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { VERIFIABLE_FORMATS, type VerificationResult } from '../model.ts';
import { DCQL_LIMITS, type DcqlCredentialQuery, type DcqlQuery, DcqlQuerySchema, dcqlProblems, evaluateDcql, project, selectClaims } from './index.ts';

// Queries in the shape of OpenID4VP 1.0 §6 and its examples (PID as SD-JWT VC, mDL as mdoc).
const PID_VCT = 'urn:eudi:pid:1';
const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';

const sdJwt = (over: Partial<DcqlCredentialQuery> = {}): DcqlCredentialQuery => ({ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] }, ...over });
const mdoc = (over: Partial<DcqlCredentialQuery> = {}): DcqlCredentialQuery => ({ id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, ...over });

const PID_CLAIMS = {
  iss: 'https://issuer.example',
  vct: PID_VCT,
  given_name: 'Erika',
  family_name: 'Mustermann',
  age_in_years: 42,
  age_over_18: true,
  nationalities: ['DE', 'FR'],
  address: { street_address: 'Heidestraße 17', locality: 'Köln', postal_code: '51147' },
  degrees: [
    { type: 'Bachelor', field: 'Physics' },
    { type: 'Master', field: 'Chemistry' },
  ],
};

function pid(over: Partial<VerificationResult> = {}): VerificationResult {
  return {
    verified: true,
    format: 'dc+sd-jwt',
    issuer: { kind: 'x509', id: 'https://issuer.example', trusted: true, trustedIssuerId: 'ti-1', authorityKeyIds: ['s9tIpPmhxdiuNkHMEWNpYim8S8Y'] },
    credentialType: PID_VCT,
    claims: structuredClone(PID_CLAIMS),
    holderBound: true,
    checks: [{ check: 'signature', ok: true }],
    ...over,
  };
}
function mdl(over: Partial<VerificationResult> = {}): VerificationResult {
  return {
    verified: true,
    format: 'mso_mdoc',
    issuer: { kind: 'x509', id: 'ab'.repeat(32), trusted: true, authorityKeyIds: ['iaca-key'] },
    credentialType: MDL,
    claims: { [NS]: { family_name: 'Turner', given_name: 'Susan', age_over_21: true, portrait: 'AAEC' } },
    holderBound: true,
    checks: [],
    ...over,
  };
}
const q = (...credentials: DcqlCredentialQuery[]): DcqlQuery => ({ credentials });

describe('DcqlQuerySchema (OpenID4VP 1.0 §6)', () => {
  const check = (query: unknown) => Value.Check(DcqlQuerySchema, query);

  it('accepts queries in the shape of the specification examples', () => {
    expect(
      check({
        credentials: [
          sdJwt({
            claims: [
              { id: 'a', path: ['address', 'street_address'] },
              { id: 'n', path: ['nationalities', null] },
              { path: ['degrees', 0, 'type'], values: ['Master'] },
            ],
          }),
          mdoc({
            claims: [{ path: [NS, 'family_name'], intent_to_retain: false }],
            trusted_authorities: [{ type: 'aki', values: ['s9tIpPmhxdiuNkHMEWNpYim8S8Y'] }],
          }),
          { id: 'vc', format: 'ldp_vc', meta: { type_values: [['VerifiableCredential', 'UniversityDegreeCredential']] } },
        ],
        credential_sets: [{ options: [['pid'], ['mdl']] }, { options: [['vc']], required: false }],
      }),
    ).toBe(true);
    expect(
      check(q(sdJwt({ multiple: true, require_cryptographic_holder_binding: false, claims: [{ path: ['age_over_18'], values: [true, 1, 'yes'] }] }))),
    ).toBe(true);
  });

  it.each([
    ['no credentials', { credentials: [] }],
    ['an unknown top-level member', { ...q(sdJwt()), extra: 1 }],
    ['an id with a space', q(sdJwt({ id: 'my pid' }))],
    ['an empty id', q(sdJwt({ id: '' }))],
    ['a misspelled member (claim_set)', q({ ...sdJwt(), claim_set: [['a']] } as DcqlCredentialQuery)],
    ['no meta', q({ id: 'pid', format: 'dc+sd-jwt' } as DcqlCredentialQuery)],
    ['an empty claims list', q(sdJwt({ claims: [] }))],
    ['an empty path', q(sdJwt({ claims: [{ path: [] }] }))],
    ['a negative index', q(sdJwt({ claims: [{ path: ['degrees', -1] }] }))],
    ['a fractional index', q(sdJwt({ claims: [{ path: ['degrees', 1.5] }] }))],
    ['a path component that is an object', q(sdJwt({ claims: [{ path: [{}] as never }] }))],
    ['an empty values list', q(sdJwt({ claims: [{ path: ['a'], values: [] }] }))],
    ['a fractional value', q(sdJwt({ claims: [{ path: ['a'], values: [1.5] }] }))],
    ['an object value', q(sdJwt({ claims: [{ path: ['a'], values: [{}] as never }] }))],
    ['an empty claim set', q(sdJwt({ claims: [{ id: 'a', path: ['a'] }], claim_sets: [[]] }))],
    ['an empty vct_values', q(sdJwt({ meta: { vct_values: [] } }))],
    ['a trusted authority without values', q(sdJwt({ trusted_authorities: [{ type: 'aki', values: [] }] }))],
    ['a credential set without options', { ...q(sdJwt()), credential_sets: [{ options: [] }] }],
    ['an empty option', { ...q(sdJwt()), credential_sets: [{ options: [[]] }] }],
    ['a non-boolean multiple', q(sdJwt({ multiple: 'yes' as never }))],
  ])('refuses %s', (_name, query) => {
    expect(check(query)).toBe(false);
  });

  it('bounds the size of a query', () => {
    const many = Array.from({ length: DCQL_LIMITS.credentials + 1 }, (_, i) => sdJwt({ id: `c${i}` }));
    expect(check({ credentials: many })).toBe(false);
    expect(check({ credentials: many.slice(0, DCQL_LIMITS.credentials) })).toBe(true);
    expect(check(q(sdJwt({ claims: [{ path: Array.from({ length: DCQL_LIMITS.pathLength + 1 }, () => 'a') }] })))).toBe(false);
    expect(check(q(sdJwt({ claims: Array.from({ length: DCQL_LIMITS.claims + 1 }, () => ({ path: ['a'] })) })))).toBe(false);
    expect(check(q(sdJwt({ claims: [{ path: ['a'], values: Array.from({ length: DCQL_LIMITS.values + 1 }, (_, i) => i) }] })))).toBe(false);
    expect(check(q(sdJwt({ claims: [{ path: ['x'.repeat(DCQL_LIMITS.stringLength + 1)] }] })))).toBe(false);
    expect(check(q(sdJwt({ claims: [{ path: ['degrees', DCQL_LIMITS.index + 1] }] })))).toBe(false);
  });
});

describe('dcqlProblems', () => {
  const messages = (query: DcqlQuery) => dcqlProblems(query).map((p) => `${p.path}: ${p.message}`);

  it('finds none in a sound query', () => {
    expect(
      dcqlProblems({
        credentials: [
          sdJwt({
            claims: [
              { id: 'a', path: ['address'] },
              { id: 'b', path: ['nationalities', null] },
            ],
            claim_sets: [['a'], ['b']],
          }),
          mdoc({ claims: [{ path: [NS, 'portrait'], intent_to_retain: true }], trusted_authorities: [{ type: 'aki', values: ['abc_-1'] }] }),
        ],
        credential_sets: [{ options: [['pid', 'mdl'], ['mdl']] }],
      }),
    ).toEqual([]);
  });

  it('refuses duplicate and unknown ids', () => {
    expect(messages({ credentials: [sdJwt(), sdJwt()], credential_sets: [{ options: [['pid'], ['nope']] }] })).toEqual([
      '/credentials/1/id: The credential query id "pid" is used twice',
      '/credential_sets/0/options/1/0: No credential query has the id "nope"',
    ]);
    expect(
      messages(
        q(
          sdJwt({
            claims: [{ id: 'a', path: ['a'] }, { id: 'a', path: ['b'] }, { path: ['c'] }],
            claim_sets: [['a', 'z']],
          }),
        ),
      ),
    ).toEqual([
      '/credentials/0/claims/1/id: The claims query id "a" is used twice in this credential query',
      '/credentials/0/claims/2/id: Every claims query needs an id when claim_sets is present',
      '/credentials/0/claim_sets/0/1: No claims query of this credential query has the id "z"',
    ]);
    expect(messages(q(sdJwt({ claim_sets: [['a']] })))).toEqual([
      '/credentials/0/claim_sets: claim_sets needs claims',
      '/credentials/0/claim_sets/0/0: No claims query of this credential query has the id "a"',
    ]);
  });

  it('refuses formats Vellum does not verify, as VERIFIABLE_FORMATS stands', () => {
    expect(messages(q({ id: 'j', format: 'jwt_vc_json', meta: { type_values: [['X']] } }))).toEqual([
      '/credentials/0/format: Vellum does not verify the format "jwt_vc_json"',
      '/credentials/0/meta/type_values: meta.type_values does not apply to "jwt_vc_json"',
    ]);
    const ldp = messages(q({ id: 'v', format: 'ldp_vc', meta: { type_values: [['VerifiableCredential']] } }));
    expect(ldp).toEqual(
      (VERIFIABLE_FORMATS as readonly string[]).includes('ldp_vc') ? [] : ['/credentials/0/format: Vellum does not verify the format "ldp_vc"'],
    );
  });

  it('asks for the meta each format needs and refuses members of other formats', () => {
    expect(messages(q(sdJwt({ meta: {} }), mdoc({ id: 'm', meta: { vct_values: [PID_VCT] } })))).toEqual([
      '/credentials/0/meta: meta.vct_values is required for dc+sd-jwt',
      '/credentials/1/meta: meta.doctype_value is required for mso_mdoc',
      '/credentials/1/meta/vct_values: meta.vct_values does not apply to "mso_mdoc"',
    ]);
  });

  it('refuses mdoc paths other than [namespace, element], intent_to_retain elsewhere, and trusted authorities but aki', () => {
    expect(
      messages(
        q(
          mdoc({ claims: [{ path: [NS] }, { path: [NS, 0] }, { path: [NS, 'a', 'b'] }] }),
          sdJwt({
            claims: [{ path: ['a'], intent_to_retain: true }],
            trusted_authorities: [
              { type: 'etsi_tl', values: ['https://tl.example'] },
              { type: 'aki', values: ['a+b/'] },
            ],
          }),
        ),
      ),
    ).toEqual([
      '/credentials/0/claims/0/path: An mso_mdoc claims path is [namespace, element identifier]',
      '/credentials/0/claims/1/path: An mso_mdoc claims path is [namespace, element identifier]',
      '/credentials/0/claims/2/path: An mso_mdoc claims path is [namespace, element identifier]',
      '/credentials/1/trusted_authorities/0/type: Trusted authorities of type "etsi_tl" are not supported; only aki',
      '/credentials/1/trusted_authorities/1/values/0: An aki value is the base64url of a key identifier',
      '/credentials/1/claims/0/intent_to_retain: intent_to_retain applies to mso_mdoc only',
    ]);
  });
});

describe('claims path pointers (§7)', () => {
  it('selects by key, index and null, and drops elements without the key', () => {
    expect(selectClaims(PID_CLAIMS, ['address', 'locality'])?.values).toEqual(['Köln']);
    expect(selectClaims(PID_CLAIMS, ['nationalities', 1])?.values).toEqual(['FR']);
    expect(selectClaims(PID_CLAIMS, ['degrees', null, 'type'])?.values).toEqual(['Bachelor', 'Master']);
    expect(selectClaims({ list: [{ a: 1 }, { b: 2 }, { a: 3 }] }, ['list', null, 'a'])?.values).toEqual([1, 3]);
    expect(selectClaims({ n: null }, ['n'])?.values).toEqual([null]);
  });

  it('selects nothing for a missing key, an index past the end, or a value of the wrong kind', () => {
    expect(selectClaims(PID_CLAIMS, ['address', 'country'])).toBeUndefined();
    expect(selectClaims(PID_CLAIMS, ['nationalities', 2])).toBeUndefined();
    expect(selectClaims(PID_CLAIMS, ['given_name', 'x'])).toBeUndefined();
    expect(selectClaims(PID_CLAIMS, ['address', null])).toBeUndefined();
    expect(selectClaims(PID_CLAIMS, ['address', 0])).toBeUndefined();
    // One selected element that is not an object aborts the whole path.
    expect(selectClaims({ list: [{ a: 1 }, 'text'] }, ['list', null, 'a'])).toBeUndefined();
    expect(selectClaims({ list: [] }, ['list', null])).toBeUndefined();
    // Only own members: nothing inherited is a claim.
    expect(selectClaims({}, ['toString'])).toBeUndefined();
  });

  it('projects only what was selected, keeping array order', () => {
    const selection = selectClaims(PID_CLAIMS, ['degrees', 1, 'field'])?.selection;
    expect(selection && project(PID_CLAIMS, selection)).toEqual({ degrees: [{ field: 'Chemistry' }] });
    const proto = JSON.parse('{"__proto__": {"x": 1}, "y": 2}');
    const protoSelection = selectClaims(proto, ['__proto__', 'x'])?.selection;
    const projected = protoSelection && (project(proto, protoSelection) as Record<string, unknown>);
    expect(Object.hasOwn(projected ?? {}, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(projected)).toBe(Object.prototype);
  });
});

describe('evaluateDcql', () => {
  it('answers a query with only the claims it asked for', () => {
    const query = q(sdJwt({ claims: [{ path: ['given_name'] }, { path: ['address', 'locality'] }, { path: ['degrees', null, 'type'] }] }));
    const evaluation = evaluateDcql(query, { pid: [pid()] });
    expect(evaluation).toEqual({
      satisfied: true,
      failures: [],
      credentials: {
        pid: {
          satisfied: true,
          failures: [],
          claims: [{ given_name: 'Erika', address: { locality: 'Köln' }, degrees: [{ type: 'Bachelor' }, { type: 'Master' }] }],
        },
      },
    });
  });

  it('returns every disclosed claim when the query names none', () => {
    expect(evaluateDcql(q(sdJwt()), { pid: [pid()] }).credentials.pid?.claims).toEqual([PID_CLAIMS]);
  });

  it('shapes mdoc claims by namespace and element, with intent_to_retain accepted', () => {
    const query = q(
      mdoc({
        claims: [
          { path: [NS, 'family_name'], intent_to_retain: true },
          { path: [NS, 'age_over_21'], values: [true] },
        ],
      }),
    );
    expect(evaluateDcql(query, { mdl: [mdl()] }).credentials.mdl).toEqual({
      satisfied: true,
      failures: [],
      claims: [{ [NS]: { family_name: 'Turner', age_over_21: true } }],
    });
    const absent = evaluateDcql(q(mdoc({ claims: [{ path: [NS, 'driving_privileges'] }] })), { mdl: [mdl()] });
    expect(absent.credentials.mdl?.failures).toEqual([`presentation 0: lacks the claim ["${NS}","driving_privileges"]`]);
  });

  it('fails a missing claim, naming it, and gives no claims of an unsatisfied query', () => {
    const evaluation = evaluateDcql(q(sdJwt({ claims: [{ path: ['given_name'] }, { id: 'birth', path: ['birthdate'] }] })), { pid: [pid()] });
    expect(evaluation.satisfied).toBe(false);
    expect(evaluation.credentials.pid).toEqual({ satisfied: false, claims: [], failures: ['presentation 0: lacks the claim birth'] });
    expect(evaluation.failures).toEqual(['credential "pid" does not answer its query']);
  });

  it.each([
    ['a matching string', ['nationalities', null], ['FR'], true],
    ['no matching string', ['nationalities', null], ['IT', 'ES'], false],
    ['an integer', ['age_in_years'], [42], true],
    ['an integer as a string', ['age_in_years'], ['42'], false],
    ['a boolean', ['age_over_18'], [true], true],
    ['a boolean as 1', ['age_over_18'], [1], false],
    ['an object claim', ['address'], ['Köln'], false],
    ['one element by index', ['degrees', 1, 'type'], ['Master'], true],
    ['another element by index', ['degrees', 0, 'type'], ['Master'], false],
  ] as const)('matches values: %s', (_name, path, values, satisfied) => {
    const query = q(sdJwt({ claims: [{ path: [...path], values: [...values] }] }));
    expect(evaluateDcql(query, { pid: [pid()] }).satisfied).toBe(satisfied);
  });

  it('claim_sets: the first option the presentation satisfies gives the claims, and none satisfied fails', () => {
    const claims = [
      { id: 'birth', path: ['birthdate'] },
      { id: 'age', path: ['age_over_18'], values: [true] },
      { id: 'name', path: ['family_name'] },
      { id: 'street', path: ['address', 'street_address'] },
    ];
    const first = evaluateDcql(q(sdJwt({ claims, claim_sets: [['name', 'street'], ['age']] })), { pid: [pid()] });
    expect(first.credentials.pid?.claims).toEqual([{ family_name: 'Mustermann', address: { street_address: 'Heidestraße 17' } }]);
    const second = evaluateDcql(q(sdJwt({ claims, claim_sets: [['birth', 'name'], ['age'], ['name']] })), { pid: [pid()] });
    expect(second.credentials.pid?.claims).toEqual([{ age_over_18: true }]);
    const none = evaluateDcql(q(sdJwt({ claims, claim_sets: [['birth'], ['birth', 'age']] })), { pid: [pid()] });
    expect(none.credentials.pid?.failures).toEqual(['presentation 0: satisfies no claim set']);
    expect(none.satisfied).toBe(false);
  });

  it('without credential_sets every credential query is required, and only requested ids may be presented', () => {
    const query = q(sdJwt(), mdoc());
    expect(evaluateDcql(query, { pid: [pid()], mdl: [mdl()] }).satisfied).toBe(true);
    expect(evaluateDcql(query, { pid: [pid()] }).failures).toEqual(['credential "mdl" not presented']);
    expect(evaluateDcql(query, { pid: [pid()], mdl: [mdl()], other: [pid()] }).failures).toEqual(['unrequested credential id "other"']);
    expect(evaluateDcql(query, { pid: [pid()], mdl: [] }).failures).toEqual(['credential "mdl" not presented']);
  });

  it('credential_sets: one option of each required set; optional sets may go unanswered', () => {
    const query: DcqlQuery = {
      credentials: [sdJwt(), mdoc(), sdJwt({ id: 'pid2', meta: { vct_values: ['urn:other'] } })],
      credential_sets: [{ options: [['pid'], ['mdl']] }, { options: [['pid2']], required: false }],
    };
    expect(evaluateDcql(query, { mdl: [mdl()] })).toMatchObject({ satisfied: true, failures: [] });
    expect(evaluateDcql(query, { pid: [pid()] }).satisfied).toBe(true);
    expect(evaluateDcql(query, {}).failures).toEqual(['credential set 0 not satisfied']);
    // Presenting something for an optional set that does not answer it fails the whole response.
    expect(evaluateDcql(query, { pid: [pid()], pid2: [pid()] }).failures).toEqual(['credential "pid2" does not answer its query']);
    // An option needing two credentials is met only with both; required: true is the default.
    const both: DcqlQuery = { credentials: [sdJwt(), mdoc()], credential_sets: [{ options: [['pid', 'mdl']], required: true }] };
    expect(evaluateDcql(both, { pid: [pid()] }).failures).toEqual(['credential set 0 not satisfied']);
    expect(evaluateDcql(both, { pid: [pid()], mdl: [mdl()] }).satisfied).toBe(true);
  });

  it('multiple: several presentations only when allowed, each of which must answer', () => {
    const other = pid({ claims: { ...structuredClone(PID_CLAIMS), given_name: 'Max' } });
    expect(evaluateDcql(q(sdJwt({ claims: [{ path: ['given_name'] }] })), { pid: [pid(), other] }).credentials.pid?.failures).toEqual([
      '2 presentations for a query that does not allow multiple',
    ]);
    const many = evaluateDcql(q(sdJwt({ multiple: true, claims: [{ path: ['given_name'] }] })), { pid: [pid(), other] });
    expect(many.credentials.pid?.claims).toEqual([{ given_name: 'Erika' }, { given_name: 'Max' }]);
    const oneBad = evaluateDcql(q(sdJwt({ multiple: true })), { pid: [pid(), pid({ credentialType: 'urn:other' })] });
    expect(oneBad.credentials.pid?.failures).toEqual(['presentation 1: its vct "urn:other" is not one of meta.vct_values']);
  });

  it('requires cryptographic holder binding unless the query waives it', () => {
    const unbound = pid({ holderBound: false });
    expect(evaluateDcql(q(sdJwt()), { pid: [unbound] }).credentials.pid?.failures).toEqual(['presentation 0: has no cryptographic holder binding']);
    const { holderBound: _, ...unknown } = pid();
    expect(evaluateDcql(q(sdJwt()), { pid: [unknown] }).satisfied).toBe(false);
    expect(evaluateDcql(q(sdJwt({ require_cryptographic_holder_binding: true })), { pid: [unbound] }).satisfied).toBe(false);
    expect(evaluateDcql(q(sdJwt({ require_cryptographic_holder_binding: false })), { pid: [unbound] }).satisfied).toBe(true);
  });

  it('trusted_authorities aki: some value must be an AuthorityKeyIdentifier of the issuer chain', () => {
    const aki = (...values: string[]) => q(mdoc({ trusted_authorities: [{ type: 'aki', values }] }));
    expect(evaluateDcql(aki('other', 'iaca-key'), { mdl: [mdl()] }).satisfied).toBe(true);
    expect(evaluateDcql(aki('other'), { mdl: [mdl()] }).credentials.mdl?.failures).toEqual([
      'presentation 0: its issuer chain names none of the trusted authorities',
    ]);
    expect(evaluateDcql(aki('iaca-key'), { mdl: [mdl({ issuer: { kind: 'x509', id: 'x', trusted: true } })] }).satisfied).toBe(false);
    // Several authorities: any one of them.
    const two = q(
      mdoc({
        trusted_authorities: [
          { type: 'aki', values: ['a'] },
          { type: 'aki', values: ['iaca-key'] },
        ],
      }),
    );
    expect(evaluateDcql(two, { mdl: [mdl()] }).satisfied).toBe(true);
  });

  it('fails presentations that did not verify, of another format, or of another type', () => {
    const bad = pid({
      verified: false,
      checks: [
        { check: 'signature', ok: false, reason: 'Bad signature' },
        { check: 'validity', ok: false, reason: 'Expired' },
      ],
    });
    expect(evaluateDcql(q(sdJwt()), { pid: [bad] }).credentials.pid?.failures).toEqual(['presentation 0: did not verify (signature, validity)']);
    const untrusted = pid({ verified: false, issuer: { kind: 'did', id: 'did:key:z', trusted: false } });
    expect(evaluateDcql(q(sdJwt()), { pid: [untrusted] }).credentials.pid?.failures).toEqual(['presentation 0: did not verify (untrusted issuer)']);
    expect(evaluateDcql(q(sdJwt()), { pid: [mdl()] }).credentials.pid?.failures).toEqual(['presentation 0: is "mso_mdoc", not "dc+sd-jwt"']);
    expect(evaluateDcql(q(mdoc()), { mdl: [mdl({ credentialType: 'org.iso.23220.photoid.1' })] }).credentials.mdl?.failures).toEqual([
      'presentation 0: its doctype "org.iso.23220.photoid.1" is not meta.doctype_value',
    ]);
  });

  it('treats ids that are names of Object members as plain ids', () => {
    const query = q(sdJwt({ id: 'constructor' }), sdJwt({ id: '__proto__' }));
    expect(evaluateDcql(query, {}).failures).toEqual(['credential "constructor" not presented', 'credential "__proto__" not presented']);
    const presented = Object.fromEntries([
      ['constructor', [pid()]],
      ['__proto__', [pid()]],
    ]);
    const evaluation = evaluateDcql(query, presented);
    expect(evaluation.satisfied).toBe(true);
    expect(Object.keys(evaluation.credentials)).toEqual(['constructor', '__proto__']);
    expect(Object.getPrototypeOf(evaluation.credentials)).toBe(Object.prototype);
    expect(evaluateDcql(q(sdJwt()), { toString: [pid()] } as never).failures).toEqual([
      'unrequested credential id "toString"',
      'credential "pid" not presented',
    ]);
    expect(dcqlProblems(q({ id: 'x', format: 'constructor', meta: {} }))).toEqual([
      { path: '/credentials/0/format', message: 'Vellum does not verify the format "constructor"' },
    ]);
  });

  it('never satisfies a query with problems', () => {
    const evaluation = evaluateDcql(q(sdJwt(), sdJwt()), { pid: [pid()] });
    expect(evaluation.satisfied).toBe(false);
    expect(evaluation.failures[0]).toBe('the query cannot be evaluated: The credential query id "pid" is used twice');
  });

  it.runIf((VERIFIABLE_FORMATS as readonly string[]).includes('ldp_vc'))(
    'ldp_vc: meta.type_values, any inner list all of whose types the credential has',
    () => {
      const vc = {
        ...pid(),
        format: 'ldp_vc',
        credentialType: 'UniversityDegreeCredential',
        claims: { type: ['VerifiableCredential', 'UniversityDegreeCredential'] },
      } as unknown as VerificationResult;
      const query = (type_values: string[][]) => q({ id: 'vc', format: 'ldp_vc', meta: { type_values } });
      expect(evaluateDcql(query([['Other'], ['VerifiableCredential', 'UniversityDegreeCredential']]), { vc: [vc] }).satisfied).toBe(true);
      expect(evaluateDcql(query([['VerifiableCredential', 'Other']]), { vc: [vc] }).satisfied).toBe(false);
    },
  );
});
