import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtTarget, KEPT, type Manifest, publishedManifest, readCatalog, readResolution } from '../../pack/src/manifest.ts';

// Every public package is publishable as it stands (issue 28; docs/decisions.md "Packaging (issue 28)"):
// the fields a registry page and a consumer need, LICENSE and README beside the manifest, exports
// that name sources in the repository, and the prepack hook that turns them into built files.
// tools/checks/packages.sh packs them for real and runs publint and attw on the tarballs.
const repo = new URL('../../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(repo, path), 'utf8');

const publicDirs = readdirSync(join(repo, 'packages'))
  .map((d) => `packages/${d}`)
  .filter((d) => existsSync(join(repo, d, 'package.json')))
  .filter((d) => JSON.parse(read(`${d}/package.json`)).private !== true);

const manifestOf = (dir: string) => JSON.parse(read(`${dir}/package.json`)) as Manifest;

describe('the public packages', () => {
  it('are the eight of the issue and @vellum/pkcs11 (issue 32), and no private one is among them', () => {
    expect(publicDirs.sort()).toEqual(
      ['core', 'crypto', 'fastify', 'formats', 'node', 'pkcs11', 'storage-memory', 'storage-sql', 'store-cache'].map((p) => `packages/${p}`),
    );
  });

  it('ship the Apache License 2.0, the same text as the repository root', () => {
    const license = read('LICENSE');
    expect(license).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(license).toContain('END OF TERMS AND CONDITIONS');
    for (const dir of publicDirs) {
      expect(read(`${dir}/LICENSE`), dir).toBe(license);
      expect(manifestOf(dir).license, dir).toBe('Apache-2.0');
    }
  });

  it('have a README that names the package and shows a use through its own exports', () => {
    for (const dir of publicDirs) {
      const { name } = manifestOf(dir);
      const readme = read(`${dir}/README.md`);
      expect(readme.startsWith(`# ${name}\n`), dir).toBe(true);
      expect(readme, dir).toMatch(new RegExp(`\`\`\`ts\\n[^]*from '${name}'`));
    }
  });

  it('name their repository, directory, homepage, keywords, engines and files', () => {
    for (const dir of publicDirs) {
      const m = manifestOf(dir);
      expect(m.repository, dir).toEqual({ type: 'git', url: 'git+https://github.com/vellum-vc/vellum.git', directory: dir });
      expect(m.homepage, dir).toMatch(new RegExp(`^https://github\\.com/vellum-vc/vellum/tree/main/${dir}#readme$`));
      expect(m.keywords, dir).toEqual(expect.arrayContaining(['vellum', 'openid4vci']));
      expect(m.engines, dir).toEqual({ node: '>=22.18' });
      expect(m.files, dir).toEqual(['dist', 'CHANGELOG.md']);
      expect(m.type, dir).toBe('module');
      // Only crypto's modules import something for its side effect (reflect-metadata, for @peculiar/x509).
      expect(m.sideEffects, dir).toBe(dir === 'packages/crypto' ? undefined : false);
    }
  });

  it('export their sources in the repository, each built by the build script, and pack through the shared hooks', () => {
    for (const dir of publicDirs) {
      const m = manifestOf(dir);
      const exportsField = m.exports as Record<string, string>;
      const scripts = m.scripts as Record<string, string>;
      expect(Object.keys(exportsField), dir).toContain('.');
      for (const [subpath, target] of Object.entries(exportsField)) {
        expect(target, `${dir} ${subpath}`).toMatch(/^\.\/src\/.+\.ts$/);
        expect(existsSync(join(repo, dir, target)), `${dir} ${target}`).toBe(true);
        // tsup names each entry file on its command line; dist/<entry>.js is what the tarball exports.
        expect((scripts.build ?? '').split(/\s+/), `${dir} builds ${target}`).toContain(target.slice(2));
      }
      expect(scripts.prepack, dir).toBe('node ../../tools/pack/src/manifest.ts prepack');
      expect(scripts.postpack, dir).toBe('node ../../tools/pack/src/manifest.ts postpack');
      expect(m.publishConfig, `${dir}: the published manifest is made in one place, by prepack`).toBeUndefined();
      expect(existsSync(join(repo, dir, KEPT)), `${dir}: a pack left its manifest aside`).toBe(false);
    }
  });

  it('are published with built exports, main and types, and real versions for every dependency', () => {
    const resolution = readResolution(repo);
    for (const dir of publicDirs) {
      const source = manifestOf(dir);
      const out = publishedManifest(source, resolution);
      const expected = Object.fromEntries(Object.entries(source.exports as Record<string, string>).map(([k, v]) => [k, builtTarget(v)]));
      expect(out.exports, dir).toEqual(expected);
      expect(out.main, dir).toBe('./dist/index.js');
      expect(out.types, dir).toBe('./dist/index.d.ts');
      expect(JSON.stringify(out), dir).not.toMatch(/"(workspace|catalog):/);
      expect(out.scripts, dir).toBeUndefined();
      expect(out.devDependencies, dir).toBeUndefined();
      for (const [name, version] of Object.entries((out.dependencies ?? {}) as Record<string, string>)) {
        const internal = resolution.versions.get(name);
        expect(version, `${dir} → ${name}`).toBe(internal ? internal.version : resolution.catalog.get(name));
      }
    }
  });
});

describe('the published manifest', () => {
  const resolution = {
    versions: new Map([
      ['@x/a', { version: '1.2.3', private: false }],
      ['@x/kit', { version: '0.0.1', private: true }],
    ]),
    catalog: readCatalog('packages:\n  - p/*\n\ncatalog:\n  # shared\n  "@s/lib": 4.5.6\n  plain: 7.0.0\n\nother: 1\n'),
  };
  const base = { name: '@x/b', version: '1.0.0', exports: { '.': './src/index.ts', './extra': './src/sub/extra.ts' } };

  it('reads quoted and bare names from the catalog, and nothing after it', () => {
    expect([...resolution.catalog]).toEqual([
      ['@s/lib', '4.5.6'],
      ['plain', '7.0.0'],
    ]);
  });

  it('turns workspace: ranges into the versions pnpm would write, and catalog: into the catalog version', () => {
    const out = publishedManifest(
      {
        ...base,
        dependencies: { '@x/a': 'workspace:*', plain: 'catalog:', '@s/lib': 'catalog:default', other: '^2.0.0' },
        peerDependencies: { '@x/a': 'workspace:^' },
      },
      resolution,
    );
    expect(out.dependencies).toEqual({ '@x/a': '1.2.3', plain: '7.0.0', '@s/lib': '4.5.6', other: '^2.0.0' });
    expect(out.peerDependencies).toEqual({ '@x/a': '^1.2.3' });
    expect(out.exports).toEqual({
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './extra': { types: './dist/sub/extra.d.ts', import: './dist/sub/extra.js' },
    });
  });

  it('refuses what a registry could not resolve', () => {
    expect(() => publishedManifest({ ...base, dependencies: { '@x/kit': 'workspace:*' } }, resolution)).toThrow(/private package @x\/kit/);
    expect(() => publishedManifest({ ...base, dependencies: { '@x/none': 'workspace:*' } }, resolution)).toThrow(/not a workspace package/);
    expect(() => publishedManifest({ ...base, dependencies: { missing: 'catalog:' } }, resolution)).toThrow(/not in the catalog/);
    expect(() => publishedManifest({ ...base, exports: { '.': './dist/index.js' } }, resolution)).toThrow(/must name a source file/);
  });
});
