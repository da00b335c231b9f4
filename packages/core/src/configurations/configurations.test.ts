import { describe, expect, it } from 'vitest';
import { resolveFlatClaims, resolveMdocClaims } from './claims.ts';
import { addDuration, durationSeconds } from './duration.ts';
import { formatsForMetadata } from '../../test/formats.ts';
import { Problems } from '../shared/body-problems.ts';
import { checkClaimDisplay, checkClaimMappings, checkExpiresIn, fitsMdocType } from './rules.ts';

const formats = formatsForMetadata();

const problemsOf = (run: (p: Problems) => void) => {
  const p = new Problems();
  run(p);
  return p.details;
};

describe('expiresIn (docs/decisions.md "Credential configurations")', () => {
  it('measures durations without a calendar', () => {
    expect(durationSeconds({ years: 1, months: 1, weeks: 1, days: 1, hours: 1, minutes: 1, seconds: 1 })).toBe(
      365 * 86400 + 30 * 86400 + 7 * 86400 + 86400 + 3661,
    );
    expect(addDuration(new Date('2026-01-01T00:00:00Z'), { days: 2 }).toISOString()).toBe('2026-01-03T00:00:00.000Z');
  });

  it.each([
    [{ days: 3620 }, 'org.example.card', []],
    [{ days: 3621 }, 'org.example.card', ['At most 3620 days']],
    [{ days: 427 }, 'org.iso.18013.5.1.mDL', []],
    [{ days: 428 }, 'org.iso.18013.5.1.mDL', ['At most 427 days for mDL docTypes']],
    [{ years: 1, months: 2 }, 'org.iso.18013.5.1.mDL', []],
    [{ years: 1, months: 3 }, 'org.iso.18013.5.1.mDL', ['At most 427 days for mDL docTypes']],
    [{}, 'x', ['Must be longer than zero']],
    [undefined, 'org.iso.18013.5.1.mDL', []],
    [null, 'x', ['A duration such as { "days": 365 }']],
    [{ days: -1 }, 'x', ['A whole number, 0 or more', 'Must be longer than zero']],
    [{ fortnights: 2 }, 'x', ['Unknown unit; use years, months, weeks, days, hours, minutes, seconds', 'Must be longer than zero']],
  ])('%j for %s gives %j', (expiresIn, docType, messages) => {
    expect(problemsOf((p) => checkExpiresIn(expiresIn as never, formats.get('mso_mdoc').maxValidityDays(docType), p)).map((d) => d.msg)).toEqual(messages);
  });
});

describe('claim mappings (docs/decisions.md "Credential configurations")', () => {
  it('accepts well-formed mDoc mappings', () => {
    const mappings = {
      'org.iso.18013.5.1': {
        family_name: { mapFrom: 'claims.familyName', required: true },
        birth_date: { mapFrom: 'claims.birthDate', type: 'date' },
        age_over_18: { defaultValue: true, type: 'boolean' },
        issuing_country: { defaultValue: 'NZ' },
      },
    };
    expect(problemsOf((p) => checkClaimMappings('namespaced', mappings, p))).toEqual([]);
  });

  it('names each bad mapping precisely', () => {
    const mappings = {
      ns: {
        a: {},
        b: { mapFrom: 'somewhere.else' },
        c: { defaultValue: 'yesterday', type: 'date' },
        d: { defaultValue: 1, type: 'integer' },
        e: { defaultValue: '2026-02-30', type: 'date' },
      },
    };
    expect(problemsOf((p) => checkClaimMappings('namespaced', mappings, p))).toEqual([
      { param: 'claimMappings.ns.a', msg: 'Needs mapFrom or defaultValue', location: 'body' },
      { param: 'claimMappings.ns.b.mapFrom', msg: expect.stringContaining('claims.givenName'), value: 'somewhere.else', location: 'body' },
      { param: 'claimMappings.ns.c.defaultValue', msg: 'Does not match the type date', value: 'yesterday', location: 'body' },
      { param: 'claimMappings.ns.d.type', msg: expect.stringContaining('One of string'), value: 'integer', location: 'body' },
      { param: 'claimMappings.ns.e.defaultValue', msg: 'Does not match the type date', value: '2026-02-30', location: 'body' },
    ]);
  });

  it('refuses empty mappings, and types outside mDocs', () => {
    expect(problemsOf((p) => checkClaimMappings('flat', {}, p))[0]?.msg).toMatch(/credential without claims/);
    expect(problemsOf((p) => checkClaimMappings('namespaced', { ns: {} }, p))[0]?.param).toBe('claimMappings.ns');
    expect(problemsOf((p) => checkClaimMappings('flat', { a: { mapFrom: 'claims.a', type: 'date' } }, p))[0]?.param).toBe('claimMappings.a.type');
  });

  it('requires labelled claims to exist', () => {
    const mappings = { ns: { a: { mapFrom: 'claims.a' } } };
    expect(problemsOf((p) => checkClaimDisplay('namespaced', { ns: { a: [{ name: 'A', locale: 'en' }], b: [{ name: 'B' }] } }, mappings, p))).toEqual([
      { param: 'claimDisplay.ns.b', msg: 'No claim mapping has this name', value: 'b', location: 'body' },
    ]);
  });

  it.each([
    ['date', '2026-02-28', true],
    ['date', '2026-02-29', false],
    ['dateTime', '2026-02-28T10:00:00Z', true],
    ['dateTime', '2026-02-28 10:00', false],
    ['number', Number.NaN, false],
    ['boolean', 'true', false],
  ] as const)('%s fits %j: %s', (type, value, fits) => {
    expect(fitsMdocType(type, value)).toBe(fits);
  });
});

describe('claims from the user object', () => {
  const subject = {
    claims: { familyName: 'Doe', birthDate: '1990-05-04T00:00:00.000Z', seen: '2026-01-02T03:04:05.678Z', points: 3 },
    authenticationProvider: { url: 'https://idp.example', subjectId: 'abc' },
  };

  it('types mDoc values as mapped, with defaults and federated ids', () => {
    const claims = resolveMdocClaims(
      {
        ns: {
          family_name: { mapFrom: 'claims.familyName' },
          birth_date: { mapFrom: 'claims.birthDate', type: 'date' },
          seen_at: { mapFrom: 'claims.seen', type: 'dateTime' },
          over_18: { defaultValue: true, type: 'boolean' },
          subject: { mapFrom: 'authenticationProvider.subjectId' },
          optional: { mapFrom: 'claims.nothing' },
        },
      },
      subject,
    );
    expect(claims).toEqual({
      ns: {
        family_name: { type: 'string', value: 'Doe' },
        birth_date: { type: 'date', value: '1990-05-04' },
        seen_at: { type: 'dateTime', value: '2026-01-02T03:04:05Z' },
        over_18: { type: 'boolean', value: true },
        subject: { type: 'string', value: 'abc' },
      },
    });
  });

  it('refuses a missing required claim and a mistyped one, naming both', () => {
    expect(() => resolveMdocClaims({ ns: { a: { mapFrom: 'claims.none', required: true }, b: { mapFrom: 'claims.points', type: 'date' } } }, subject)).toThrow(
      expect.objectContaining({
        code: 'BadRequest',
        details: [expect.objectContaining({ param: 'ns.a' }), expect.objectContaining({ param: 'ns.b', value: 3 })],
      }),
    );
  });

  it('refuses to issue a credential without claims (docs/decisions.md "Credential configurations")', () => {
    expect(() => resolveFlatClaims({ a: { mapFrom: 'claims.none' } }, subject)).toThrow(
      expect.objectContaining({ code: 'BadRequest', message: expect.stringContaining('no claims') }),
    );
    expect(() => resolveMdocClaims({ ns: { a: { mapFrom: 'claims.none' } } }, subject)).toThrow(
      expect.objectContaining({ message: expect.stringContaining('no claims') }),
    );
    expect(resolveFlatClaims({ name: { mapFrom: 'claims.familyName' } }, subject)).toEqual({ name: 'Doe' });
  });
});
