import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// better-sqlite3 12.x aborted the whole process on Node 24.19+ once the garbage collector finalized
// its prepared statements (nodejs/node#65446). Kysely prepares one statement per query, so a server
// died after a few thousand requests. This runs that pattern, with forced collections, in a child
// process: an abort there shows as a signal or a non-zero exit, not as a crashed test runner.
describe('the SQLite driver under garbage collection', () => {
  it('survives many finalized prepared statements', () => {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const script = `
      const Database = require(${JSON.stringify(driver)});
      const db = new Database(':memory:');
      for (let i = 0; i < 30000; i++) {
        db.prepare('select ' + (i % 997) + ' as x').get();
        if (i % 5000 === 0) globalThis.gc();
      }
      globalThis.gc();
      console.log('ok');`;
    const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('ok');
  });
});
