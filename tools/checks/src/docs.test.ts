import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The docs say what the code does (issue 26): the two kinds of statement that drifted without
// anyone noticing are checked here by machine. The server's settings and the README's
// configuration table must name the same variables, and every variable the docs name must be one
// the code reads; and every `docs/<page>.md "<heading>"` reference (docs/references.md) must lead
// to a heading that exists.
const repo = new URL('../../../', import.meta.url).pathname;
const self = relative(repo, new URL(import.meta.url).pathname);

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'data', 'coverage', '.git']);

/** The files under `dir` (relative to the repository) whose names end with one of `extensions`. */
function files(dir: string, extensions: readonly string[]): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : files(path, extensions);
    return extensions.some((ext) => e.name.endsWith(ext)) ? [path] : [];
  });
}

const read = (path: string) => readFileSync(join(repo, path), 'utf8');
const docs = () => ['README.md', ...files('docs', ['.md'])];
const sources = () => ['packages', 'apps', 'tools'].flatMap((dir) => files(dir, ['.ts', '.mjs'])).filter((f) => f !== self);

/** The variables a settings module reads: each name it passes as a string, and `env.NAME`. */
export function variablesRead(source: string): string[] {
  const names = [...source.matchAll(/['"`](VELLUM_[A-Z0-9_]*[A-Z0-9]|DATABASE_URL)['"`]/g), ...source.matchAll(/\benv\.(VELLUM_[A-Z0-9_]*[A-Z0-9])\b/g)];
  return [...new Set(names.map((m) => m[1] as string))].sort();
}

/**
 * The variables a Markdown table documents: rows whose first cell is nothing but variable names in
 * backticks (`` | `VELLUM_PORT` | `` or `` | `VELLUM_TLS_CERT_FILE`, `VELLUM_TLS_KEY_FILE` | ``). A
 * variable merely mentioned in prose, in a table or not, does not count.
 */
export function variablesInTables(markdown: string): string[] {
  const name = '`(?:VELLUM_[A-Z0-9_]*[A-Z0-9]|DATABASE_URL)`';
  const row = new RegExp(`^\\|\\s*(${name}(?:\\s*,\\s*${name})*)\\s*\\|`);
  const cells = markdown.split('\n').flatMap((line) => row.exec(line)?.[1] ?? []);
  return [...new Set(cells.flatMap((cell) => cell.split(',').map((n) => n.trim().slice(1, -1))))].sort();
}

/** Every `VELLUM_…` name a text mentions; a name ending in `_` is a prefix (`VELLUM_RATE_LIMIT_*`), not a variable. */
export function variablesNamed(text: string): string[] {
  return [...new Set([...text.matchAll(/\bVELLUM_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_])/g)].map((m) => m[0]))].sort();
}

/** The `docs/<page>.md "<heading>"` references of a text (a comma after the page is allowed). */
export function headingReferences(text: string): Array<{ page: string; heading: string }> {
  return [...text.matchAll(/\b(docs\/[a-z0-9/-]+\.md),? "([^"\n]+)"/g)].map((m) => ({ page: m[1] as string, heading: m[2] as string }));
}

/** The headings of a Markdown page, without their `#` marks; fenced code is not read. */
export function headingsOf(markdown: string): string[] {
  let fenced = false;
  const headings: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#{1,6} /.test(line)) headings.push(line.replace(/^#+ /, '').trim());
  }
  return headings;
}

/** The references whose page is missing or has no heading starting with the quoted text. */
export function brokenReferences(references: Array<{ page: string; heading: string; in: string }>, page: (path: string) => string | undefined) {
  return references.filter((r) => {
    const text = page(r.page);
    return text === undefined || !headingsOf(text).some((h) => h.startsWith(r.heading));
  });
}

function pageOrUndefined(path: string): string | undefined {
  try {
    return read(path);
  } catch {
    return undefined;
  }
}

describe('the docs and the code name the same things', () => {
  it("every variable the server's settings read is in the README's configuration table, and every one there is read", () => {
    const read_ = variablesRead(read('apps/server/src/config.ts'));
    const documented = variablesInTables(read('README.md'));
    expect(read_).toContain('VELLUM_PORT');
    expect(read_).toContain('DATABASE_URL');
    expect(read_.filter((name) => !documented.includes(name))).toEqual([]);
    expect(documented.filter((name) => !read_.includes(name))).toEqual([]);
  });

  it('every VELLUM_ variable the README or docs/ name is read by some source of the repository (the server, a test or a tool)', () => {
    const inCode = new Set(variablesRead(sources().map(read).join('\n')));
    const named = docs().flatMap((path) => variablesNamed(read(path)).map((name) => ({ name, in: path })));
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((n) => !inCode.has(n.name))).toEqual([]);
  });

  it('every docs/<page>.md "<heading>" reference in the sources and docs leads to a heading of that page', () => {
    const references = [...docs(), ...sources()].flatMap((path) => headingReferences(read(path)).map((r) => ({ ...r, in: path })));
    expect(references.length).toBeGreaterThan(100);
    expect(brokenReferences(references, pageOrUndefined)).toEqual([]);
  });

  it('notices drift (the checks can fail)', () => {
    const config = 'const port = integer(env, \'VELLUM_PORT\', 3000);\nconst tenant = env.VELLUM_DEFAULT_TENANT;\nread(env, "DATABASE_URL");';
    expect(variablesRead(config)).toEqual(['DATABASE_URL', 'VELLUM_DEFAULT_TENANT', 'VELLUM_PORT']);
    const table =
      '| Variable | Default |\n| --- | --- |\n| `VELLUM_PORT` | `3000` |\n| `VELLUM_TLS_CERT_FILE`, `VELLUM_TLS_KEY_FILE` | unset, see `VELLUM_HOST` |\n| Metrics on a port (`VELLUM_METRICS_PORT`) | built |';
    expect(variablesInTables(table)).toEqual(['VELLUM_PORT', 'VELLUM_TLS_CERT_FILE', 'VELLUM_TLS_KEY_FILE']);
    expect(variablesNamed('set `VELLUM_RATE_LIMIT_*` or VELLUM_WORKERS=2')).toEqual(['VELLUM_WORKERS']);

    const page = '# Title\n\n## Webhooks (issue 6)\n\n```\n## Not a heading\n```\n';
    const refs = headingReferences(`see ${'docs'}/d.md "Webhooks", ${'docs'}/d.md, "Not a heading" and ${'docs'}/gone.md "Title"`);
    expect(refs.map((r) => r.heading)).toEqual(['Webhooks', 'Not a heading', 'Title']);
    const broken = brokenReferences(
      refs.map((r) => ({ ...r, in: 'x' })),
      (path) => (path === 'docs/d.md' ? page : undefined),
    );
    expect(broken.map((r) => `${r.page} ${r.heading}`)).toEqual(['docs/d.md Not a heading', 'docs/gone.md Title']);
  });
});
