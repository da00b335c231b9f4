// Loaded into a Vellum server with `node --import` by `flow-cost.ts --sql-timings DIR`: times every
// statement the server's better-sqlite3 runs (its `run`, `get`, `all` and `iterate`), by SQL text,
// and writes the totals to DIR/sql-timings.PID.tsv when the process exits. A measuring tool only:
// the wrapper adds about a microsecond a statement. The better-sqlite3 patched is the one the
// server's own @vellum/storage-sql resolves, so another checkout is measured with its own copy.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const dir = process.env.VELLUM_BENCH_SQL_TIMINGS;
const main = process.argv[1];
if (dir && main) {
  const storageSql = resolve(main, '../../../../packages/storage-sql/package.json');
  const Database = createRequire(storageSql)('better-sqlite3') as { prototype: { prepare(sql: string): object } };
  const totals = new Map<string, { count: number; ns: bigint }>();
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function timedPrepare(this: unknown, sql: string) {
    const statement = prepare.call(this, sql) as Record<string, (...args: unknown[]) => unknown>;
    let total = totals.get(sql);
    if (!total) totals.set(sql, (total = { count: 0, ns: 0n }));
    const t = total;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const original = statement[method];
      if (typeof original !== 'function') continue;
      Object.defineProperty(statement, method, {
        value(...args: unknown[]) {
          const start = process.hrtime.bigint();
          try {
            return original.apply(statement, args);
          } finally {
            t.count++;
            t.ns += process.hrtime.bigint() - start;
          }
        },
      });
    }
    return statement;
  };
  process.on('exit', () => {
    const rows = [...totals].filter(([, t]) => t.count > 0).map(([sql, t]) => `${t.count}\t${t.ns}\t${sql.replace(/\s+/g, ' ')}`);
    writeFileSync(join(dir, `sql-timings.${process.pid}.tsv`), `${rows.join('\n')}\n`);
  });
}
