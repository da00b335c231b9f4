// One issuing server's share of status-lists-processes.interop.test.ts, run as its own Node
// process: it opens the SQL store on the database the test names (as `vellum serve` does), builds
// the status list use case over it, and takes mDoc status entries with `allocate`, many at once,
// as a busy issuer does. Only `allocate` runs, which needs the store, a clock and ids; whatever
// else the use case could call (the token signers, the signing chains, the event recorder, the
// webhook outbox) is a stub that throws, so a test passing here cannot have leaned on them.
//
//   node status-list-allocator.ts <database URL> <tenant id> <docType> <count> <in flight>
//
// It prints `ready` once the store is open, waits for a line on stdin (the parent's "go", so that
// two of these start together), then prints one JSON line: the `[listId, idx]` pairs in the order
// their allocations finished.
import { createInterface } from 'node:readline';
import { createStatusListService, type StatusListDeps, type Tenant } from '@vellum/core';
// Through its source, as tools/interop does for the other packages it does not list.
import { openSqlStore } from '../../../packages/storage-sql/src/index.ts';

const argv = process.argv.slice(2);
if (argv.length !== 5 || argv.some((a) => a === ''))
  throw new Error('usage: status-list-allocator.ts <database URL> <tenant id> <docType> <count> <in flight>');
const [url, tenantId, docType, countArg, inFlightArg] = argv as [string, string, string, string, string];
const count = Number(countArg);
const inFlight = Number(inFlightArg);

/** A dependency `allocate` must not touch: any use of it fails the run. */
function unused<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      throw new Error(`status-list-allocator: allocate used ${name}.${String(property)}`);
    },
  });
}

const store = await openSqlStore({ kind: 'postgres', connectionString: url });
const deps: StatusListDeps = {
  store,
  clock: { now: () => new Date() },
  ids: {
    uuid: () => crypto.randomUUID(),
    token: () => {
      throw new Error('status-list-allocator: allocate asked for a token');
    },
    bytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
  },
  events: unused('events'),
  chains: unused('chains'),
  tokens: unused('tokens'),
  tokenStatusLists: unused('tokenStatusLists'),
  revocationLists: unused('revocationLists'),
  domainEvents: unused('domainEvents'),
};
const statusLists = createStatusListService(deps);
// `allocate` reads the tenant's id only; the rest of the record is the test's business.
const tenant = { id: tenantId } as Tenant;

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close();

const pairs: Array<[string, number]> = [];
let next = 0;
/** One of `inFlight` workers: each takes the next allocation as soon as its previous one finished. */
async function worker(): Promise<void> {
  while (next < count) {
    next += 1;
    const { listId, idx } = await statusLists.allocate(tenant, docType, 'https://issuer.example');
    pairs.push([listId, idx]);
  }
}
try {
  await Promise.all(Array.from({ length: inFlight }, worker));
  process.stdout.write(`${JSON.stringify(pairs)}\n`);
} finally {
  await store.close();
}
