// Types of node-check.mjs, for the TypeScript tests that import it (tools/checks/src/node-version.test.ts).
export declare const MINIMUM_NODE: string;
export declare function nodeIsRecentEnough(version: string): boolean;
export declare function cachedNodeDir(home?: string): string;
export declare function cachedNodeBinary(home?: string): string;
export declare function manualInstructions(home?: string): string;
export declare function ensureRecentNode(options?: { home?: string; platform?: string; arch?: string; log?: (line: string) => void }): string | undefined;
