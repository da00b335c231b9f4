// A flood of pushed authorization requests (RFC 9126) against the real server on SQLite, as anyone
// holding a public wallet client's `client_id` could send them (docs/limits.md "Pushed
// authorization requests"): several connections send `POST /v1/oauth/par` back to back for
// `--seconds`, each request as large as the server used to keep (a 1,000-character `state` and 20
// extra parameters of 1,000 characters, forwarded to the identity provider). Printed: requests
// sent, answers by status, and how much the database grew, as files (vellum.db and its WAL) and as
// the database's own size (pages in use, WAL included), with the rows and bytes (table and indexes,
// from SQLite's dbstat) of each table a pushed request writes to. Then, the server stopped, the
// retention job runs on its file as it would two days on, and the rows left above the baseline are
// printed: the flood's pushed requests are gone, its analytic events stay for the tenant's period.
//
// `--extra` and `--extra-length` shape the extra parameters (e.g. `--extra 3` for a request within
// the byte bound, which the rate limit then meets); `--addresses N` spreads the requests over N
// source addresses (X-Forwarded-For, the server started with VELLUM_TRUST_PROXY=true), each with a
// limit of its own. The server is started as the other benchmarks start it (./http-load.ts).
//
//   node tools/bench/src/par-flood.ts [--seconds 30] [--connections 8] [--extra 20] [--extra-length 1000] [--addresses 1]
import { createHash, randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { createRetentionJob } from '@vellum/core';
import { openSqlStore } from '@vellum/storage-sql';
import { type BenchServer, startBenchServer } from './http-load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    connections: { type: 'string', default: '8' },
    extra: { type: 'string', default: '20' },
    'extra-length': { type: 'string', default: '1000' },
    addresses: { type: 'string', default: '1' },
    'log-level': { type: 'string', default: 'info' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const extra = Number(values.extra);
const extraLength = Number(values['extra-length']);
const addresses = Number(values.addresses);

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const REDIRECT = 'https://wallet.example/cb';
/** The tables a pushed request writes to: the request itself, its analytic events, and rate-limit counters. */
const TABLES = ['authorizations', 'analytic_events', 'rate_limits'] as const;

/** A public wallet client and the configuration it asks for, made through the admin API. */
async function setUp(server: BenchServer): Promise<{ clientId: string }> {
  const admin = await server.auth();
  const configuration = await server.call('POST', '/v2/credentials/mobile/configurations', {
    headers: admin,
    body: { type: DOC_TYPE, expiresIn: { days: 365 }, claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.family_name' } } } },
  });
  if (configuration.status !== 201) throw new Error(`configuration: ${configuration.status} ${configuration.text}`);
  const client = await server.call('POST', '/v1/openid/clients', {
    headers: admin,
    body: { clientName: 'Flooded wallet', redirectUris: [REDIRECT], tokenEndpointAuthMethod: 'none' },
  });
  if (client.status !== 201) throw new Error(`wallet client: ${client.status} ${client.text}`);
  return { clientId: (JSON.parse(client.text) as { clientId: string }).clientId };
}

/** One pushed request's form: a valid request, with `state` and the extra parameters at their lengths. */
function parForm(clientId: string): string {
  const fill = (n: number) => randomBytes(n).toString('base64url').slice(0, n);
  const form = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: `mso_mdoc:${DOC_TYPE}`,
    state: fill(Math.min(extraLength, 1000)),
    code_challenge_method: 'S256',
    code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
  });
  for (let i = 0; i < extra; i++) form.set(`x_param_${i}`, fill(extraLength));
  return form.toString();
}

interface DatabaseSize {
  /** vellum.db and vellum.db-wal on disk. */
  fileBytes: number;
  /** Pages in use times the page size, as a reader sees the database (what the WAL holds included). */
  databaseBytes: number;
  rows: Record<(typeof TABLES)[number], number>;
  /** Pages of each table and its indexes, in bytes. */
  tableBytes: Record<(typeof TABLES)[number], number>;
}

function sizeOf(dataDir: string): DatabaseSize {
  const file = join(dataDir, 'vellum.db');
  const bytes = (path: string) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const pragma = (name: string) => Number(Object.values(db.prepare(`pragma ${name}`).get() ?? {})[0]);
    const rows = Object.fromEntries(TABLES.map((t) => [t, Number((db.prepare(`select count(*) as n from ${t}`).get() as { n: number }).n)]));
    const pages = db.prepare('select sum(d.pgsize) as b from dbstat d join sqlite_schema s on s.name = d.name where s.tbl_name = ?');
    const tableBytes = Object.fromEntries(TABLES.map((t) => [t, Number((pages.get(t) as { b: number | null }).b ?? 0)]));
    return {
      fileBytes: bytes(file) + bytes(`${file}-wal`),
      databaseBytes: (pragma('page_count') - pragma('freelist_count')) * pragma('page_size'),
      rows: rows as DatabaseSize['rows'],
      tableBytes: tableBytes as DatabaseSize['tableBytes'],
    };
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  if (addresses > 1) process.env.VELLUM_TRUST_PROXY = 'true';
  const server = await startBenchServer({ connections, logLevel: values['log-level'] as string });
  try {
    const { clientId } = await setUp(server);
    // Events of the setup are written within the flush interval; the baseline comes after them.
    await new Promise((r) => setTimeout(r, 1000));
    const before = sizeOf(server.dataDir);
    const forms = Array.from({ length: 64 }, () => parForm(clientId));
    const statuses = new Map<string, number>();
    let sent = 0;
    const until = performance.now() + seconds * 1000;
    const worker = async (w: number) => {
      for (let i = 0; performance.now() < until; i++) {
        const address = `198.51.100.${((w + i * connections) % addresses) + 1}`;
        const headers = { 'content-type': 'application/x-www-form-urlencoded', ...(addresses > 1 ? { 'x-forwarded-for': address } : {}) };
        sent += 1;
        const key = await server.call('POST', '/v1/oauth/par', { headers, raw: forms[(w + i) % forms.length] as string }).then(
          (r) => String(r.status),
          (e: unknown) => `error ${(e as Error).message}`,
        );
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: connections }, (_, w) => worker(w)));
    const elapsed = (performance.now() - started) / 1000;
    // The flood's last events reach the database within the flush interval.
    await new Promise((r) => setTimeout(r, 1000));
    const after = sizeOf(server.dataDir);
    const grew = (pick: (s: DatabaseSize) => number) => pick(after) - pick(before);
    const added = (pick: (s: DatabaseSize) => Record<(typeof TABLES)[number], number>) =>
      Object.fromEntries(TABLES.map((t) => [t, pick(after)[t] - pick(before)[t]])) as Record<(typeof TABLES)[number], number>;
    const result = {
      benchmark: 'par-flood',
      seconds: Number(elapsed.toFixed(1)),
      connections,
      addresses,
      requestBytes: (forms[0] as string).length,
      sent,
      statuses: Object.fromEntries([...statuses].sort()),
      fileBytes: { before: before.fileBytes, after: after.fileBytes, growth: grew((s) => s.fileBytes) },
      databaseBytes: { before: before.databaseBytes, after: after.databaseBytes, growth: grew((s) => s.databaseBytes) },
      rowsAdded: added((s) => s.rows),
      tableBytesAdded: added((s) => s.tableBytes),
    };
    console.log(JSON.stringify(result));
    const mb = (n: number) => (n / 1e6).toFixed(1);
    console.log(
      `${sent} pushed requests of ${result.requestBytes} bytes in ${result.seconds} s from ${addresses} address(es): ` +
        `${Object.entries(result.statuses)
          .map(([s, n]) => `${n} × ${s}`)
          .join(', ')}; database +${mb(result.databaseBytes.growth)} MB (files +${mb(result.fileBytes.growth)} MB), ` +
        `${result.rowsAdded.authorizations} authorizations kept (+${mb(result.tableBytesAdded.authorizations)} MB), ` +
        `${result.rowsAdded.analytic_events} analytic events (+${mb(result.tableBytesAdded.analytic_events)} MB)`,
    );
    // docs/retention.md: the retention job as it would run two days on, past every pushed request's
    // expiry and the authorizations' grace of a day, on the file the server left; what is left of
    // the flood then is its analytic events, kept for the tenant's event period.
    await server.stop({ keepData: true });
    const store = await openSqlStore({ kind: 'sqlite', filename: join(server.dataDir, 'vellum.db') });
    const later = new Date(Date.now() + 2 * 86_400_000);
    let purged: Record<string, number>;
    try {
      purged = (await createRetentionJob({ store, clock: { now: () => later }, holder: 'par-flood' }).run()).purged;
    } finally {
      await store.close();
    }
    const retained = sizeOf(server.dataDir);
    const kept = Object.fromEntries(TABLES.map((t) => [t, retained.rows[t] - before.rows[t]]));
    console.log(JSON.stringify({ afterRetentionRun: { purged, rowsAboveBaseline: kept } }));
    console.log(
      `after a retention run two days on: ${purged.authorizations} authorizations and ${purged.rate_limits} rate-limit windows purged; ` +
        `${kept.authorizations} authorizations above the baseline`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
