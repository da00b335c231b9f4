// Queries written with Kysely's builder but built and compiled once. Building a query (frozen
// operation nodes) and compiling it to SQL text costs some 15–25 µs of CPU per call, while the text
// of a given query shape never changes, only its parameter values. `compiledOnce` builds the query
// with stand-in values, learns which position of the compiled parameters holds which named
// parameter, and from then on only fills a parameters array and runs the stored text through the
// same executor (the same connection, or the same transaction).

import { randomUUID } from 'node:crypto';
import { type Compilable, CompiledQuery, createQueryId, type DialectAdapter, type Kysely, type QueryResult, type RootOperationNode } from 'kysely';
import type { VellumDatabase } from './database.ts';

/** The named parameters of a query (an object type): every one defined (null, not undefined, for SQL NULL). */
type QueryParams = Record<string, unknown>;

/** A query built and compiled once per Kysely instance, run many times with fresh parameters. */
export interface CompiledOnce<P extends object, O, DB = VellumDatabase> {
  /** Runs the query on `db` (a Kysely instance or a transaction): the driver's result, as `db.executeQuery` gives it. */
  execute(db: Kysely<DB>, params: P): Promise<QueryResult<O>>;
  /** The rows (of a select, or of a write with `returning`), as the builder's `execute()` gives them. */
  rows(db: Kysely<DB>, params: P): Promise<O[]>;
  /** The first row or undefined, as the builder's `executeTakeFirst()` gives it. */
  first(db: Kysely<DB>, params: P): Promise<O | undefined>;
  /**
   * Rows inserted, updated or deleted, 0n when the driver tells none: what the builder's
   * `numInsertedOrUpdatedRows`, `numUpdatedRows` and `numDeletedRows` report.
   */
  affectedRows(db: Kysely<DB>, params: P): Promise<bigint>;
  /** The compiled query `execute` runs on `db`: the stored SQL text and this call's parameters. */
  compile(db: Kysely<DB>, params: P): CompiledQuery<O>;
  /** How many times the builder ran (twice per Kysely instance, see `compiledOnce`; on every call with plugins). */
  readonly builds: number;
}

/** The SQL text of one query shape on one Kysely instance, and where each parameter goes. */
interface Plan {
  readonly sql: string;
  /** A raw node of `sql` that every execution shares (the built query's own nodes hold stand-in values). */
  readonly query: RootOperationNode;
  /** Per position of the compiled parameters: the named parameter it takes, or undefined for a constant. */
  readonly slots: readonly (string | undefined)[];
  /** Per position: the constant the query itself holds (where `slots` names no parameter). */
  readonly constants: readonly unknown[];
  /** The named parameters, those of the first call: every call passes these and no others. */
  readonly names: readonly string[];
}

// Stand-in values carry a marker no real value holds: a NUL and a random UUID, drawn once per process.
const MARKER = `\u0000vellum-compiled-once:${randomUUID()}:`;

/** Why a query cannot be compiled once: the mapping from parameters to positions would not be trustworthy. */
export class UntraceableQueryError extends Error {
  override name = 'UntraceableQueryError';
}

const untraceable = (label: string, why: string) => new UntraceableQueryError(`compiledOnce(${label}): ${why}`);

/** A constant the built query may keep as is (a value of the query, not of a parameter). */
function isPlainConstant(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'bigint' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && !Number.isNaN(value))
  );
}

/** Builds and compiles the query with a distinct stand-in string for each named parameter, and maps the result. */
function trace<P extends object, O, DB>(label: string, build: (db: Kysely<DB>, params: P) => Compilable<O>, db: Kysely<DB>, names: readonly string[]): Plan {
  const byStandIn = new Map<string, string>();
  const standIns: QueryParams = {};
  names.forEach((name, i) => {
    const standIn = `${MARKER}${i}`;
    standIns[name] = standIn;
    byStandIn.set(standIn, name);
  });
  const compiled = build(db, standIns as P).compile();
  if (compiled.sql.includes(MARKER)) throw untraceable(label, 'a parameter was written into the SQL text instead of being bound');
  const used = new Set<string>();
  const slots: (string | undefined)[] = [];
  const constants: unknown[] = [];
  for (const value of compiled.parameters) {
    const name = typeof value === 'string' ? byStandIn.get(value) : undefined;
    if (name !== undefined) {
      used.add(name);
      slots.push(name);
      constants.push(undefined);
    } else if (typeof value === 'string' && value.includes(MARKER)) {
      throw untraceable(label, 'a parameter reached the query transformed (the builder must pass each parameter as it is)');
    } else if (!isPlainConstant(value)) {
      throw untraceable(label, `the query holds a constant it cannot keep (${value === undefined ? 'undefined: a parameter not passed?' : typeof value})`);
    } else {
      slots.push(undefined);
      constants.push(value);
    }
  }
  const missing = names.filter((name) => !used.has(name));
  if (missing.length > 0)
    throw untraceable(label, `parameter ${missing.join(', ')} does not reach the query as a bound value (unused, transformed or inlined)`);
  return { sql: compiled.sql, query: CompiledQuery.raw(compiled.sql).query, slots, constants, names };
}

/** Whether the stored plan gives exactly what the builder gives for these values: same text, same parameters. */
function agrees(plan: Plan, parameters: readonly unknown[], built: CompiledQuery): boolean {
  return built.sql === plan.sql && built.parameters.length === parameters.length && built.parameters.every((value, i) => Object.is(value, parameters[i]));
}

let verifyingEveryCall = false;

/**
 * Checks every call of every compiledOnce query against its builder (same SQL text, same
 * parameters), throwing UntraceableQueryError on a difference: for tests, which then run the
 * builder too. Returns the previous setting.
 */
export function verifyCompiledOnceEveryCall(on: boolean): boolean {
  const was = verifyingEveryCall;
  verifyingEveryCall = on;
  return was;
}

/**
 * Wraps a query written with Kysely's builder so that it is built and compiled once per Kysely
 * instance (its transactions included), then run as stored SQL text with fresh parameters:
 *
 *     const byCode = compiledOnce('offers by code', (db, p: { tenantId: string; codeDigest: string }) =>
 *       db.selectFrom('offers').selectAll().where('tenant_id', '=', p.tenantId).where('code_digest', '=', p.codeDigest));
 *     const row = await byCode.first(db, { tenantId, codeDigest });
 *
 * The first call on an instance builds the query with a distinct stand-in string for each named
 * parameter (the names are those of the first call's `params`), and maps each position of the
 * compiled parameters to a parameter or to a constant of the query. Then it builds the query again
 * with the call's own values and checks that the stored text and mapped parameters are exactly what
 * the builder gives. It refuses (UntraceableQueryError) when the mapping cannot be trusted: a
 * stand-in missing, transformed or written into the SQL text, a constant that is not a plain value,
 * or the check failing.
 *
 * The builder must give the query one shape whatever the values: no branching on a parameter
 * (write one compiledOnce per variant), no `in` lists, no `is` with a parameter, no arithmetic on
 * one. Every call must pass the same names, each defined (null for SQL NULL), or it throws: an
 * insert's `.values(row)` would otherwise drop an undefined column, changing the shape.
 *
 * The plan is kept per dialect adapter, which Kysely creates once per instance and shares with the
 * instance's transactions: so SQLite's and PostgreSQL's texts (`?` and `$1`) never mix, nor those of
 * two instances whose dialects compile differently. An instance with plugins (which rewrite queries
 * as they are built, e.g. `withSchema`) runs the builder on every call, as without compiledOnce.
 */
export function compiledOnce<P extends object, O, DB = VellumDatabase>(
  label: string,
  build: (db: Kysely<DB>, params: P) => Compilable<O>,
): CompiledOnce<P, O, DB> {
  const plans = new WeakMap<DialectAdapter, Plan>();
  let builds = 0;

  function buildWith(db: Kysely<DB>, params: P): Compilable<O> {
    builds++;
    return build(db, params);
  }

  function parametersOf(plan: Plan, params: P): unknown[] {
    let count = 0;
    for (const _ in params) count++;
    if (count !== plan.names.length)
      throw untraceable(label, `called with parameters ${Object.keys(params).join(', ')}, compiled for ${plan.names.join(', ')}`);
    const { slots, constants } = plan;
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const name = slots[i];
      if (name === undefined) {
        parameters[i] = constants[i];
      } else {
        const value = (params as QueryParams)[name];
        if (value === undefined) throw untraceable(label, `parameter ${name} is ${name in params ? 'undefined (pass null for SQL NULL)' : 'missing'}`);
        parameters[i] = value;
      }
    }
    return parameters;
  }

  /** The stored query with this call's parameters, or undefined where the builder must run (plugins). */
  function compiledFor(db: Kysely<DB>, params: P): CompiledQuery<O> | undefined {
    const executor = db.getExecutor();
    if (executor.plugins.length > 0) return undefined;
    const stored = plans.get(executor.adapter);
    let plan = stored;
    if (plan === undefined) {
      const names = Object.keys(params);
      for (const name of names)
        if ((params as QueryParams)[name] === undefined) throw untraceable(label, `parameter ${name} is undefined (pass null for SQL NULL)`);
      builds++;
      plan = trace(label, build, db, names);
    }
    const parameters = parametersOf(plan, params);
    if (stored === undefined || verifyingEveryCall) {
      if (!agrees(plan, parameters, buildWith(db, params).compile()))
        throw untraceable(label, 'the builder gives other SQL or parameters for these values than the stand-ins mapped: the shape depends on the values');
    }
    if (stored === undefined) plans.set(executor.adapter, plan);
    return Object.freeze({ sql: plan.sql, query: plan.query, parameters: Object.freeze(parameters), queryId: createQueryId() });
  }

  async function execute(db: Kysely<DB>, params: P): Promise<QueryResult<O>> {
    return db.executeQuery<O>(compiledFor(db, params) ?? buildWith(db, params));
  }

  return {
    execute,
    async rows(db, params) {
      return (await execute(db, params)).rows;
    },
    async first(db, params) {
      return (await execute(db, params)).rows[0];
    },
    async affectedRows(db, params) {
      return (await execute(db, params)).numAffectedRows ?? 0n;
    },
    compile(db, params) {
      return compiledFor(db, params) ?? buildWith(db, params).compile();
    },
    get builds() {
      return builds;
    },
  };
}
