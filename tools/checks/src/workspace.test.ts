import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectDirs as listProjectDirs } from '../../pack/src/manifest.ts';

// The workspace has no dependency cycle (issue 17, docs/decisions.md "Workspace without cycles"):
// pnpm warns on every install when one package reaches itself through others, and it counts
// devDependencies and peerDependencies too, so a test kit that depends on core cannot be a
// devDependency of core. This reads the manifests the way pnpm builds its project graph.
const repo = new URL('../../../', import.meta.url).pathname;

/** The project directories pnpm-workspace.yaml lists (`dir` or `dir/*` entries). */
const projectDirs = (): string[] => listProjectDirs(repo, readFileSync(join(repo, 'pnpm-workspace.yaml'), 'utf8'));

type Graph = Map<string, string[]>;

/** Every workspace package, with the workspace packages it names in any dependency field. */
function workspaceGraph(): Graph {
  const manifests = projectDirs().map((dir) => JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8')) as Record<string, unknown>);
  const names = new Set(manifests.map((m) => m.name as string));
  const fields = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
  return new Map(
    manifests.map((m) => [m.name as string, [...new Set(fields.flatMap((f) => Object.keys((m[f] ?? {}) as object)))].filter((d) => names.has(d))]),
  );
}

/** The cycles reachable in `graph`, each as the path that closes it (`a → b → a`). */
function findCycles(graph: Graph): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]) => {
    const at = path.indexOf(node);
    if (at >= 0) {
      cycles.push([...path.slice(at), node]);
      return;
    }
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return cycles;
}

describe('the workspace', () => {
  it('has no dependency cycle, counting devDependencies and peerDependencies as pnpm does', () => {
    const graph = workspaceGraph();
    expect(graph.get('@vellum/core')).toBeDefined();
    expect(graph.get('@vellum/testing')).toContain('@vellum/core');
    expect(findCycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('@vellum/core names no package of ours in its manifest, not even for its tests', () => {
    expect(workspaceGraph().get('@vellum/core')).toEqual([]);
  });

  it('notices a cycle (the check can fail)', () => {
    const graph: Graph = new Map([
      ['core', ['kit']],
      ['kit', ['core']],
      ['adapter', ['core']],
    ]);
    expect(findCycles(graph)).toEqual([['core', 'kit', 'core']]);
    expect(
      findCycles(
        new Map([
          ['core', []],
          ['kit', ['core']],
        ]),
      ),
    ).toEqual([]);
  });

  it('examples are private and depend only on our public packages, as an embedder would (issue 28)', () => {
    const manifests = new Map(projectDirs().map((dir) => [dir, JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8')) as Record<string, unknown>]));
    const privateNames = new Set([...manifests.values()].filter((m) => m.private === true).map((m) => m.name as string));
    const examples = [...manifests].filter(([dir]) => dir.startsWith('examples/'));
    expect(examples.map(([dir]) => dir)).toEqual(expect.arrayContaining(['examples/embed-core', 'examples/embed-fastify']));
    for (const [dir, manifest] of examples) {
      expect(manifest.private, dir).toBe(true);
      const named = ['dependencies', 'devDependencies'].flatMap((f) => Object.keys((manifest[f] ?? {}) as object));
      expect(
        named.filter((d) => privateNames.has(d)),
        dir,
      ).toEqual([]);
    }
    // The check can fail: @vellum/testing and @vellum/server are private, so an example naming one would.
    expect(privateNames).toContain('@vellum/testing');
    expect(privateNames).toContain('@vellum/server');
  });
});
