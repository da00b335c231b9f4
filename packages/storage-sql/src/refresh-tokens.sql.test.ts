// Refresh tokens on both dialects beyond the Store contract: two servers (two connections) rotating
// one refresh token at once, as the token endpoint does (docs/refresh-tokens.md).
import type { Store } from '@vellum/core';
import { makeRefreshToken, makeTenant } from '@vellum/testing';
import { expect } from 'vitest';
import { describeRaces } from '../test/races.ts';

/** Of racing rotations of one token across both servers, exactly one commits its successor. */
async function rotatedOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  for (let round = 0; round < 5; round++) {
    const first = makeRefreshToken(tenant.id);
    await a.refreshTokens.insert(first);
    const now = new Date().toISOString();
    const successors = Array.from({ length: 6 }, () => ({ ...makeRefreshToken(tenant.id, { familyId: first.familyId }), createdAt: now }));
    const results = await Promise.all(
      successors.map((next, i) =>
        (i % 2 === 0 ? a : b).transaction(async (tx) => {
          if (!(await tx.refreshTokens.markUsed(tenant.id, first.id, now))) return false;
          await tx.refreshTokens.insert(next);
          return true;
        }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const stored = await Promise.all(successors.map((s) => a.refreshTokens.get(tenant.id, s.id)));
    expect(stored.filter((s) => s !== undefined)).toHaveLength(1);
    expect((await b.refreshTokens.get(tenant.id, first.id))?.usedAt).toBe(now);
  }
}

/** Of racing credential requests under one refreshed access token, one records its configuration. */
async function issuedOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  const token = makeRefreshToken(tenant.id);
  await a.refreshTokens.insert(token);
  const configurationId = token.configurationIds[0] as string;
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).refreshTokens.markIssued(tenant.id, token.id, configurationId)));
  expect(results.filter(Boolean)).toHaveLength(1);
}

describeRaces('refresh tokens', [
  ['rotating one refresh token at once: exactly one successor is stored', rotatedOnce],
  ['issuing one configuration under one refreshed access token at once: exactly one is recorded', issuedOnce],
]);
