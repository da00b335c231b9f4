// The short lines `vellum` writes to stderr while it works ("vellum: migrating the database …"), so
// an operator sees what a slow start is waiting on. They never carry a secret and never touch
// stdout, where scripts and tests read the printed JSON.
import { isAbsolute, join, relative } from 'node:path';
import type { ServerConfig } from './config.ts';
import type { OpeningStep } from './runtime.ts';

/** Says what the command is doing, one line at a time. */
export interface Progress {
  /** Writes `vellum: ${message}`; a message ends with `…` while the work is under way. */
  step(message: string): void;
}

/** Progress lines to `write` (stderr in main.ts), or none at all when the log level is `silent`. */
export function createProgress(config: Pick<ServerConfig, 'logLevel'>, write: (text: string) => void): Progress {
  if (config.logLevel === 'silent') return { step: () => {} };
  return { step: (message) => write(`vellum: ${message}\n`) };
}

/** A path as the operator would type it from `cwd`: `./data/vellum.db`, or absolute when outside it. */
function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : `./${rel}`;
}

/**
 * Which database a command opens, without anything secret: `SQLite ./data/vellum.db`, or
 * `PostgreSQL db.internal:5432/vellum` (host, port and database only: never the user, the
 * password or the query string of DATABASE_URL).
 */
export function describeDatabase(config: Pick<ServerConfig, 'databaseUrl' | 'dataDir'>, cwd: string = process.cwd()): string {
  if (!config.databaseUrl) return `SQLite ${shownPath(join(config.dataDir, 'vellum.db'), cwd)}`;
  let url: URL;
  try {
    url = new URL(config.databaseUrl);
  } catch {
    return 'PostgreSQL';
  }
  if (!url.hostname) return 'PostgreSQL';
  return `PostgreSQL ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname === '/' ? '' : url.pathname}`;
}

/** The progress line of a slow step of opening the runtime (runtime.ts `OpeningStep`). */
export function describeOpeningStep(config: Pick<ServerConfig, 'databaseUrl' | 'dataDir'>, opening: OpeningStep, cwd: string = process.cwd()): string {
  return opening.step === 'migrate'
    ? `migrating the database (${describeDatabase(config, cwd)})…`
    : `generating a development master key in ${shownPath(opening.file, cwd)}…`;
}

/** The URL a listening address is reached at: `http://127.0.0.1:3000`, `https://[::1]:8443`. */
export function listeningUrl(address: { address: string | null; port: number }, tls: boolean, fallbackHost: string): string {
  const host = address.address && address.address !== '' ? address.address : fallbackHost;
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
