// A fresh folder for a suite's SQLite files: made before the suite's tests, removed after them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** Called in a `describe` (or a file's top level): the folder's path for a file `name` in it. */
export function tempFolder(prefix: string): (name: string) => string {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return (name) => join(dir, name);
}
