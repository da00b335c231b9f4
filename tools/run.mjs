#!/usr/bin/env node
// Entry point behind the root `start`, `test` and `vellum` scripts. It lets a fresh machine with
// nothing but Node and npm run `npm start` or `npm test`: on a Node older than 22.18 it fetches
// Node 24 from the npm registry once (as .ci/run does) and runs itself again with it; the first run
// installs the workspace with the pinned pnpm (fetched through npx), later runs go straight to the
// command. It loads on old Node too: plain JavaScript, node: imports only.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRecentNode, MINIMUM_NODE, manualInstructions, nodeIsRecentEnough } from './node-check.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [command = 'help', ...args] = process.argv.slice(2);

if (!nodeIsRecentEnough(process.versions.node)) {
  // Set on the second run, so that a cached Node that is somehow old too cannot loop.
  const node = process.env.VELLUM_NODE_REEXEC ? undefined : ensureRecentNode();
  if (!node) {
    console.error(`vellum: Vellum needs Node ${MINIMUM_NODE} or newer; this is Node ${process.versions.node}.\n${manualInstructions()}`);
    process.exit(1);
  }
  console.error(`vellum: Node ${process.versions.node} is older than ${MINIMUM_NODE}: running with ${node}`);
  // First on PATH too, so that npx, pnpm and the tests' child processes run on it as well.
  const env = { ...process.env, VELLUM_NODE_REEXEC: '1', PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
  const r = spawnSync(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit', env });
  process.exit(r.status ?? 1);
}

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
    process.exit(run(process.execPath, [server, 'serve', ...args]));
  case 'vellum':
    process.exit(run(process.execPath, [server, ...args]));
  case 'test':
    process.exit(run(bin('vitest'), ['run', ...args]));
  default:
    console.error('usage: node tools/run.mjs install | start | test | vellum <command>');
    process.exit(2);
}
