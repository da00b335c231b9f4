#!/usr/bin/env node
// Entry point behind the root `start`, `test` and `vellum` scripts. It lets a fresh machine with
// nothing but Node 22.18+ and npm run `npm start` or `npm test`: the first run installs the
// workspace with the pinned pnpm (fetched through npx), later runs go straight to the command.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [command = 'help', ...args] = process.argv.slice(2);

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 6)) {
  console.error(`Vellum needs Node 22 or newer; this is Node ${process.versions.node}.`);
  process.exit(1);
}
// Node 22.18+ and 23.6+ run TypeScript sources directly; earlier 22.x needs the flag.
const nodeFlags = major === 22 && minor < 18 ? ['--experimental-strip-types', '--no-warnings'] : [];

function run(cmd, argv, env = process.env) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', env });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function ensureInstalled() {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const lock = join(root, 'pnpm-lock.yaml');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const env = { ...process.env };
  // Native addons (better-sqlite3) must compile against the headers of the Node that runs them,
  // not whatever an npmrc points at; official Node builds ship them beside the binary.
  const nodeDir = resolve(dirname(process.execPath), '..');
  if (existsSync(join(nodeDir, 'include', 'node', 'common.gypi'))) env.npm_config_nodedir = nodeDir;
  const status = run('npx', ['--yes', pkg.packageManager, 'install', '--frozen-lockfile'], env);
  if (status !== 0) process.exit(status);
}

ensureInstalled();
const bin = (name) => join(root, 'node_modules', '.bin', name);
const server = join(root, 'apps', 'server', 'src', 'main.ts');
switch (command) {
  case 'install':
    process.exit(0);
  case 'start':
    process.exit(run(process.execPath, [...nodeFlags, server, 'serve', ...args]));
  case 'vellum':
    process.exit(run(process.execPath, [...nodeFlags, server, ...args]));
  case 'test':
    process.exit(run(bin('vitest'), ['run', ...args]));
  default:
    console.error('usage: node tools/run.mjs install | start | test | vellum <command>');
    process.exit(2);
}
