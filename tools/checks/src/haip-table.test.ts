import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/haip.md holds Vellum against HAIP 1.0 row by row, each `built` row naming the tests that show
// it (issue 29 point 7). A table like that rots quietly: a test is renamed or moved and the row
// still reads as proof. So the table is read here, and every test it cites must still exist under
// that title, every status must be one the page defines, and a `built` row must cite something.
const repo = new URL('../../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(repo, path), 'utf8');

export const LEVELS = ['MUST', 'MUST NOT', 'SHOULD', 'MAY'] as const;
export const STATUSES = ['built', 'built, untested', 'next', 'in progress', 'not built', 'not applicable'] as const;

export interface Row {
  number: number;
  section: string;
  requirement: string;
  level: string;
  status: string;
  shownBy: string;
  line: number;
}

export interface Citation {
  file: string;
  title: string;
}

/** The rows of the conformance table: lines `| <n> | … |` with six cells. */
export function rowsOf(markdown: string): Row[] {
  return markdown.split('\n').flatMap((text, index) => {
    if (!/^\|\s*\d+\s*\|/.test(text)) return [];
    const cells = text
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split(/\s\|\s/)
      .map((c) => c.trim());
    const [number, section, requirement, level, status, shownBy] = cells;
    return [
      {
        number: Number(number),
        section: section ?? '',
        requirement: requirement ?? '',
        level: level ?? '',
        status: status ?? '',
        shownBy: cells.length === 6 ? (shownBy ?? '') : '',
        line: index + 1,
      },
    ];
  });
}

/** The tests a cell cites, each written `` `path.test.ts` › `title` ``. */
export function citationsOf(cell: string): Citation[] {
  return [...cell.matchAll(/`([^`\s]+\.test\.ts)` › `([^`]+)`/g)].map((m) => ({ file: m[1] as string, title: m[2] as string }));
}

/** Repository paths a cell names in backticks (sources and docs), cited tests included. */
export function pathsOf(cell: string): string[] {
  return [...cell.matchAll(/`((?:apps|packages|tools|docs|examples)\/[^`\s]+\.(?:ts|md|mjs))`/g)].map((m) => m[1] as string);
}

/**
 * Whether `source` holds a test (or describe block) of exactly this title: the title must stand
 * between quotes of one kind, so a fragment of a longer title does not count.
 */
export function hasTitle(source: string, title: string): boolean {
  return ["'", '"', '`'].some((q) => source.includes(`${q}${title}${q}`));
}

/** Every problem of the table, one line each; `file` reads a repository file or gives undefined. */
export function problemsOf(rows: Row[], file: (path: string) => string | undefined): string[] {
  const problems: string[] = [];
  rows.forEach((row, index) => {
    const at = `row ${row.number} (line ${row.line})`;
    if (row.number !== index + 1) problems.push(`${at}: expected number ${index + 1}`);
    if (!/^§\d/.test(row.section)) problems.push(`${at}: section "${row.section}" does not start with §<number>`);
    if (row.requirement.length < 10) problems.push(`${at}: no requirement`);
    if (!(LEVELS as readonly string[]).includes(row.level)) problems.push(`${at}: level "${row.level}" is not one of ${LEVELS.join(', ')}`);
    if (!(STATUSES as readonly string[]).includes(row.status)) problems.push(`${at}: status "${row.status}" is not one of ${STATUSES.join(', ')}`);
    const cited = citationsOf(row.shownBy);
    if (row.status === 'built' && cited.length === 0) problems.push(`${at}: built, but cites no test`);
    if (row.status !== 'built' && row.shownBy.length < 10) problems.push(`${at}: ${row.status}, but says nothing about why or who owns it`);
    if (row.status === 'next' && !/issue \d+ points? \d/i.test(row.shownBy)) problems.push(`${at}: next, but names no point of an issue`);
    if (row.status === 'in progress' && !/issue \d+ points? \d/i.test(row.shownBy)) problems.push(`${at}: in progress, but names no point of an issue`);
    for (const path of pathsOf(row.shownBy)) {
      if (file(path) === undefined) problems.push(`${at}: ${path} does not exist`);
    }
    for (const c of cited) {
      const source = file(c.file);
      if (source !== undefined && !hasTitle(source, c.title)) problems.push(`${at}: ${c.file} has no test titled "${c.title}"`);
    }
  });
  return problems;
}

/** The counts the README's row for docs/haip.md states, by status, or undefined when it has none. */
export function readmeCounts(readme: string): Record<string, number> | undefined {
  const m =
    /\| (\d+) rows: (\d+) built, (\d+) built without a test yet, (\d+) in progress[^,]*, (\d+) next[^,]*, (\d+) not built, (\d+) not applicable \|/.exec(
      readme.split('\n').find((line) => line.includes('`docs/haip.md`')) ?? '',
    );
  if (!m) return undefined;
  const names = ['rows', 'built', 'built, untested', 'in progress', 'next', 'not built', 'not applicable'];
  return Object.fromEntries(names.map((name, i) => [name, Number(m[i + 1])]));
}

/** The same counts, taken from the table. */
export function countsOf(rows: Row[]): Record<string, number> {
  const counts: Record<string, number> = { rows: rows.length };
  for (const status of STATUSES) counts[status] = rows.filter((r) => r.status === status).length;
  return counts;
}

function fileOrUndefined(path: string): string | undefined {
  return existsSync(join(repo, path)) ? read(path) : undefined;
}

describe('docs/haip.md, the HAIP conformance table', () => {
  const rows = rowsOf(read('docs/haip.md'));

  it('has a row for each requirement, most of them built and shown by tests', () => {
    expect(rows.length).toBeGreaterThanOrEqual(60);
    const built = rows.filter((r) => r.status === 'built');
    expect(built.length).toBeGreaterThan(rows.length / 2);
    expect(built.flatMap((r) => citationsOf(r.shownBy)).length).toBeGreaterThanOrEqual(built.length);
  });

  it('cites only tests that exist under the titles it gives, with statuses and levels the page defines', () => {
    expect(problemsOf(rows, fileOrUndefined)).toEqual([]);
  });

  it('agrees with the counts the README gives for it', () => {
    expect(readmeCounts(read('README.md'))).toEqual(countsOf(rows));
  });

  it('notices rot (the checks can fail)', () => {
    const source = "it('takes a code once', async () => {});\nit.skipIf(skip)(\n  'a code works once: the second redemption is invalid_grant',\n";
    const files: Record<string, string> = { 'packages/a/src/a.test.ts': source };
    const table = [
      '| # | HAIP section | Requirement | Level | Status | Shown by |',
      '| --- | --- | --- | --- | --- | --- |',
      '| 1 | §4 | Refuse a used authorization code. | MUST | built | `packages/a/src/a.test.ts` › `takes a code once`<br>`packages/a/src/a.test.ts` › `a code works once: the second redemption is invalid_grant` |',
      '| 2 | §4 | Refuse a used authorization code. | MUST | built | `packages/a/src/a.test.ts` › `takes a code` |',
      '| 3 | §4 | Refuse a used authorization code. | MUST | built | `packages/gone/src/b.test.ts` › `takes a code once` |',
      '| 4 | §4 | Refuse a used authorization code. | MUST | built | it works, trust me |',
      '| 6 | 4.1 | Publish metadata please. | SHALL | done | `packages/a/src/a.test.ts` › `takes a code once` |',
      '| 7 | §4.4 | Refresh tokens for credentials. | SHOULD | next | later |',
      '| 8 | §6.1 | x5c in the SD-JWT VC header. | MUST | in progress | soon, somewhere |',
    ].join('\n');
    const parsed = rowsOf(table);
    expect(parsed.map((r) => r.number)).toEqual([1, 2, 3, 4, 6, 7, 8]);
    expect(citationsOf(parsed[0]?.shownBy ?? '')).toHaveLength(2);
    expect(problemsOf(parsed, (path) => files[path])).toEqual([
      'row 2 (line 4): packages/a/src/a.test.ts has no test titled "takes a code"',
      'row 3 (line 5): packages/gone/src/b.test.ts does not exist',
      'row 4 (line 6): built, but cites no test',
      'row 6 (line 7): expected number 5',
      'row 6 (line 7): section "4.1" does not start with §<number>',
      'row 6 (line 7): level "SHALL" is not one of MUST, MUST NOT, SHOULD, MAY',
      'row 6 (line 7): status "done" is not one of built, built, untested, next, in progress, not built, not applicable',
      'row 7 (line 8): expected number 6',
      'row 7 (line 8): next, but says nothing about why or who owns it',
      'row 7 (line 8): next, but names no point of an issue',
      'row 8 (line 9): expected number 7',
      'row 8 (line 9): in progress, but names no point of an issue',
    ]);
    const readme =
      '| HAIP (`docs/haip.md`) | 7 rows: 5 built, 0 built without a test yet, 1 in progress (issue 29), 1 next (issue 30), 0 not built, 0 not applicable |';
    expect(readmeCounts(readme)).toMatchObject({ rows: 7, built: 5, 'in progress': 1, next: 1 });
    expect(readmeCounts(readme)).not.toEqual(countsOf(parsed));
    expect(readmeCounts('| HAIP (`docs/haip.md`) | most of it |')).toBeUndefined();
  });
});
