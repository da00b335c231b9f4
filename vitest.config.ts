import { defineConfig } from 'vitest/config';

// Test tiers by file name (STYLE.md 12): unit tests touch no I/O, *.sql.test.ts talk to
// databases, *.e2e.test.ts start a real server process, *.interop.test.ts use others' libraries,
// *.hsm.test.ts use a real PKCS#11 token (SoftHSM 2).
// Hooks of the slow tiers migrate databases and start servers, which is CPU-bound: their timeout is a
// liveness bound (60 s), not a speed check, so a loaded machine does not fail them (issue 26).
const slow = ['**/*.sql.test.ts', '**/*.e2e.test.ts', '**/*.interop.test.ts', '**/*.hsm.test.ts'];
const common = { exclude: ['**/node_modules/**', '**/dist/**'] };
// Tests live in the sources of every package, app, tool and example.
const tests = (suffix: string) => [`{packages,apps,tools,examples}/*/src/**/*${suffix}`];

export default defineConfig({
  test: {
    projects: [
      { test: { ...common, name: 'unit', include: tests('.test.ts'), exclude: [...common.exclude, ...slow] } },
      { test: { ...common, name: 'sql', include: tests('.sql.test.ts'), testTimeout: 30_000, hookTimeout: 60_000 } },
      { test: { ...common, name: 'e2e', include: tests('.e2e.test.ts'), testTimeout: 60_000, hookTimeout: 60_000 } },
      { test: { ...common, name: 'interop', include: tests('.interop.test.ts'), testTimeout: 60_000, hookTimeout: 60_000 } },
      { test: { ...common, name: 'hsm', include: tests('.hsm.test.ts'), testTimeout: 30_000, hookTimeout: 60_000 } },
    ],
  },
});
