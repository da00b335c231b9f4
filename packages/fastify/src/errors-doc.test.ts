import { readFileSync } from 'node:fs';
import { ERROR_CODES, OAUTH_ERROR_CODES } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { STATUS_BY_CODE } from './errors.ts';

// STYLE 9: docs/errors.md and the code name the same error codes, with the same statuses.
const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
const rows = [...doc.matchAll(/^\| `([A-Za-z_]+)` \| (\d{3}|[^|]*?) \|/gm)].map((m) => [m[1] as string, m[2] as string] as const);

describe('docs/errors.md', () => {
  it('lists every error code with its status, and nothing else', () => {
    const documented = rows.filter(([, status]) => /^\d{3}$/.test(status));
    expect(documented.map(([code]) => code).sort()).toEqual([...ERROR_CODES].sort());
    for (const [code, status] of documented) expect(STATUS_BY_CODE[code as keyof typeof STATUS_BY_CODE], code).toBe(Number(status));
  });

  it('lists every OAuth error value, and nothing else', () => {
    const documented = rows.filter(([, status]) => !/^\d{3}$/.test(status)).map(([code]) => code);
    expect(documented.sort()).toEqual([...OAUTH_ERROR_CODES].sort());
  });
});
