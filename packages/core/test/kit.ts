// What the core's tests take from other packages of ours: the test kit (fakes, wallet helpers,
// fixtures) and the in-memory store. Only this folder (the workspace project @vellum/core-test)
// depends on them, never @vellum/core itself, so the workspace has no dependency cycle
// (docs/decisions.md, "Workspace without cycles (issue 17)"). Tests under src/ import from here.
export * from '@vellum/testing';
export { createMemoryStore } from '@vellum/storage-memory';
