// The manifest a public package is published with (docs/decisions.md "Packaging (issue 28)").
//
// In the repository every public package's `exports` name its TypeScript sources, so that Node
// (type stripping), vitest and tsc run the workspace without a build and without flags. A tarball
// must name built files instead. Each public package runs this file from `prepack`, which npm,
// pnpm and yarn all run before they read the files to pack: it builds the package, keeps the
// manifest aside and writes the published one; `postpack` puts the kept one back.
//
//   node ../../tools/pack/src/manifest.ts prepack|postpack|print
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Manifest = Record<string, unknown> & { name: string; version: string };

/** What a workspace specifier stands for: the workspace's own versions and the default catalog. */
export interface Resolution {
  versions: Map<string, { version: string; private: boolean }>;
  catalog: Map<string, string>;
}

/** Where a package keeps its manifest while the published one is in place. */
export const KEPT = 'package.json.source';

const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'] as const;

/** `./src/x.ts` → the built `./dist/x.js` and its declarations `./dist/x.d.ts`. */
export function builtTarget(source: string): { types: string; import: string } {
  const m = /^\.\/src\/(.+)\.ts$/.exec(source);
  if (!m) throw new Error(`an export must name a source file ./src/*.ts, not ${source}`);
  return { types: `./dist/${m[1]}.d.ts`, import: `./dist/${m[1]}.js` };
}

/** One dependency specifier as a registry can read it. */
function resolveSpecifier(name: string, spec: string, r: Resolution, owner: string): string {
  if (spec.startsWith('workspace:')) {
    const target = r.versions.get(name);
    if (!target) throw new Error(`${owner}: ${name} is not a workspace package`);
    if (target.private) throw new Error(`${owner}: depends on the private package ${name}, which is never published`);
    const range = spec.slice('workspace:'.length);
    if (range === '*' || range === '') return target.version;
    if (range === '^' || range === '~') return `${range}${target.version}`;
    return range;
  }
  if (spec === 'catalog:' || spec === 'catalog:default') {
    const version = r.catalog.get(name);
    if (!version) throw new Error(`${owner}: ${name} is not in the catalog of pnpm-workspace.yaml`);
    return version;
  }
  if (spec.startsWith('catalog:')) throw new Error(`${owner}: named catalogs (${spec}) are not used in this workspace`);
  return spec;
}

/** The manifest to publish, made from the repository's one; the input is left as it is. */
export function publishedManifest(source: Manifest, r: Resolution): Manifest {
  const exportsField = source.exports as Record<string, string> | undefined;
  if (!exportsField || typeof exportsField !== 'object') throw new Error(`${source.name}: exports must map subpaths to ./src/*.ts`);
  const exportsOut: Record<string, { types: string; import: string }> = {};
  for (const [subpath, target] of Object.entries(exportsField)) {
    if (typeof target !== 'string') throw new Error(`${source.name}: export ${subpath} must be one path to a source file`);
    exportsOut[subpath] = builtTarget(target);
  }
  const root = exportsOut['.'];
  const out: Manifest = { ...source, exports: exportsOut };
  if (root) {
    out.main = root.import;
    out.types = root.types;
  }
  for (const field of DEPENDENCY_FIELDS) {
    const deps = source[field] as Record<string, string> | undefined;
    if (!deps) continue;
    out[field] = Object.fromEntries(Object.entries(deps).map(([name, spec]) => [name, resolveSpecifier(name, spec, r, source.name)]));
  }
  // What only the repository needs: its tools, and the hooks that made this manifest.
  delete out.devDependencies;
  delete out.publishConfig;
  delete out.scripts;
  return out;
}

/** The project directories pnpm-workspace.yaml lists (`dir` or `dir/*` entries). */
export function projectDirs(repo: string, yaml: string): string[] {
  const block = /^packages:\n((?:[ \t]+.*\n|\n)*)/m.exec(yaml)?.[1] ?? '';
  const patterns = [...block.matchAll(/^[ \t]+-[ \t]+['"]?([^'"#\s]+)/gm)].map((m) => m[1] as string);
  return patterns
    .flatMap((pattern) => {
      if (!pattern.endsWith('/*')) return [pattern];
      const parent = pattern.slice(0, -2);
      return readdirSync(join(repo, parent), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => `${parent}/${e.name}`);
    })
    .filter((dir) => existsSync(join(repo, dir, 'package.json')));
}

/** The default catalog: `name: version` lines under `catalog:`, names quoted or not. */
export function readCatalog(yaml: string): Map<string, string> {
  const block = /^catalog:\n((?:[ \t]+.*\n|[ \t]*#.*\n|\n)*)/m.exec(yaml)?.[1] ?? '';
  const entries = [...block.matchAll(/^[ \t]+(?:"([^"]+)"|'([^']+)'|([^\s:#'"]+)):[ \t]*['"]?([^'"#\s]+)/gm)];
  return new Map(entries.map((m) => [(m[1] ?? m[2] ?? m[3]) as string, m[4] as string]));
}

/** The versions and catalog of the workspace at `repo`, read from its files. */
export function readResolution(repo: string): Resolution {
  const yaml = readFileSync(join(repo, 'pnpm-workspace.yaml'), 'utf8');
  const versions = new Map<string, { version: string; private: boolean }>();
  for (const dir of projectDirs(repo, yaml)) {
    const m = JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8')) as Manifest;
    versions.set(m.name, { version: m.version, private: m.private === true });
  }
  return { versions, catalog: readCatalog(yaml) };
}

function build(dir: string, repo: string, script: string): void {
  const env = { ...process.env };
  const bins = [join(dir, 'node_modules', '.bin'), join(repo, 'node_modules', '.bin')];
  env.PATH = [...bins, env.PATH ?? ''].join(delimiter);
  const r = spawnSync(script, { cwd: dir, env, shell: true, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`the build of ${dir} failed (${r.error?.message ?? `exit ${r.status}`})`);
}

function main(command: string | undefined): void {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const dir = process.cwd();
  const file = join(dir, 'package.json');
  const kept = join(dir, KEPT);
  // A pack that died between the two hooks left the published manifest in place: put the
  // repository's one back before anything else.
  if (existsSync(kept)) renameSync(kept, file);
  if (command === 'postpack') return;
  const source = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  const published = publishedManifest(source, readResolution(repo));
  const text = `${JSON.stringify(published, null, 2)}\n`;
  if (command === 'print') {
    process.stdout.write(text);
    return;
  }
  if (command !== 'prepack') throw new Error('usage: manifest.ts prepack|postpack|print');
  const buildScript = (source.scripts as Record<string, string> | undefined)?.build;
  if (!buildScript) throw new Error(`${source.name} has no build script`);
  // tools/checks/packages.sh packs right after `pnpm run build`: dist/ is current, and a second
  // build of eight packages would double the check's time.
  if (process.env.VELLUM_PACK_PREBUILT === '1') {
    if (!existsSync(join(dir, 'dist'))) throw new Error(`${source.name}: VELLUM_PACK_PREBUILT=1 but there is no dist/; run pnpm run build`);
  } else {
    build(dir, repo, buildScript);
  }
  renameSync(file, kept);
  writeFileSync(file, text);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv[2]);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
