import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The rule of arrows (ARCHITECTURE.md, STYLE 18), checked by machine over every package's sources:
// - core imports nothing but itself (and TypeBox, pure schema data) and uses no Node-only global, so it runs in any host;
// - adapters import core and never each other (formats may build on crypto);
// - only apps/server knows every package.
const repo = new URL('../../../', import.meta.url).pathname;

const ALLOWED: Record<string, { vellum: string[]; external: RegExp | null }> = {
  // TypeBox: request-body schemas as plain JSON Schema data and the one check that runs them (docs/decisions.md "One validation path").
  core: { vellum: [], external: /^@sinclair\/typebox(\/value)?$/ },
  // @peculiar/x509 needs the Reflect metadata API loaded first (its README: "Reflect Polyfill Required").
  crypto: { vellum: ['core'], external: /^(jose|@peculiar\/x509|reflect-metadata|node:.*)$/ },
  formats: { vellum: ['core', 'crypto'], external: /.*/ },
  'storage-memory': { vellum: ['core'], external: null },
  // A decorator over any Store: the core's ports and nothing else.
  'store-cache': { vellum: ['core'], external: null },
  'storage-sql': { vellum: ['core'], external: /^(kysely|better-sqlite3|pg|node:.*)$/ },
  // pkcs11js: the Cryptoki binding the PKCS#11 KeyManager stands on (docs/key-custody.md).
  pkcs11: { vellum: ['core'], external: /^(pkcs11js|node:.*)$/ },
  // openid-client: the IdentityProvider adapter (ARCHITECTURE.md, Ports), its requests routed through our HttpClient.
  node: { vellum: ['core'], external: /^(openid-client|node:.*)$/ },
  fastify: {
    vellum: ['core'],
    external: /^(fastify|fastify-plugin|@fastify\/.*|@sinclair\/typebox.*|fast-xml-parser|@scalar\/fastify-api-reference|prom-client|qrcode|node:.*)$/,
  },
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

function imports(text: string): string[] {
  const found = [
    ...text.matchAll(/(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/^import\s+['"]([^'"]+)['"]/gm),
  ];
  return found.map((m) => m[1] as string).filter((s) => !s.startsWith('.'));
}

const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

describe('the rule of arrows', () => {
  for (const [pkg, rule] of Object.entries(ALLOWED)) {
    const dir = join(repo, 'packages', pkg, 'src');
    let files: string[] = [];
    try {
      files = sources(dir);
    } catch {
      continue; // a package that does not exist yet (formats) has nothing to check
    }
    it(`${pkg}: imports only what its layer may`, () => {
      expect(files.length).toBeGreaterThan(0);
      const offences = files.flatMap((file) =>
        imports(readFileSync(file, 'utf8'))
          .filter((spec) => {
            const vellum = /^@vellum\/([^/]+)/.exec(spec)?.[1];
            if (vellum !== undefined) return !rule.vellum.includes(vellum);
            return rule.external === null || !rule.external.test(spec);
          })
          .map((spec) => `${relative(repo, file)} imports ${spec}`),
      );
      expect(offences).toEqual([]);
    });
  }

  it('examples, tests included, reach Vellum only through its public packages, never by path (issue 28)', () => {
    const publicPackages = Object.keys(ALLOWED);
    const tsFiles = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const examples = readdirSync(join(repo, 'examples'), { withFileTypes: true }).filter((e) => e.isDirectory());
    const offences = examples.flatMap((example) => {
      const src = join(repo, 'examples', example.name, 'src');
      const files = tsFiles(src);
      expect(files.length, example.name).toBeGreaterThan(0);
      return files.flatMap((file) =>
        [...withoutComments(readFileSync(file, 'utf8')).matchAll(/(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/g)]
          .map((m) => m[1] as string)
          .filter((spec) => {
            if (spec.startsWith('.')) return !resolve(dirname(file), spec).startsWith(`${src}/`);
            const vellum = /^@vellum\/([^/]+)/.exec(spec)?.[1];
            return vellum !== undefined && !publicPackages.includes(vellum);
          })
          .map((spec) => `${relative(repo, file)} imports ${spec}`),
      );
    });
    expect(offences).toEqual([]);
  });

  it('has a rule for every package, so a new one cannot slip past the check', () => {
    const packages = readdirSync(join(repo, 'packages'), { withFileTypes: true })
      // @vellum/testing is the test kit, imported by tests only: it is no layer.
      .filter((e) => e.isDirectory() && e.name !== 'testing')
      .map((e) => e.name);
    expect(packages.filter((name) => !(name in ALLOWED))).toEqual([]);
  });

  it('core uses no Node-only global', () => {
    const files = sources(join(repo, 'packages', 'core', 'src'));
    const offences = files.filter((f) => /\b(Buffer|process|require|__dirname)\s*[.(]/.test(withoutComments(readFileSync(f, 'utf8'))));
    expect(offences.map((f) => relative(repo, f))).toEqual([]);
  });

  it('notices an offending import (the check can fail)', () => {
    expect(imports("import { x } from 'kysely';\nimport type { Y } from './y.ts';\nimport 'side-effect';")).toEqual(['kysely', 'side-effect']);
  });
});
