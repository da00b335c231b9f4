#!/usr/bin/env node
// The `vellum` command (`npx vellum --help` in the workspace). Plain JavaScript, so that an older
// Node reads it and hears what it needs instead of failing on the TypeScript of src/main.ts, which
// Node 22.18+ runs directly (type stripping; the version rule is tools/node-check.mjs's).
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `vellum: Vellum needs Node 22.18 or newer; this is Node ${process.versions.node}. \`npm run vellum -- <command>\` in the repository fetches Node 24 and uses it.\n`,
  );
  process.exit(1);
}
await import('../src/main.ts');
