// `GET`/`PUT /v1/config/key-custody` (docs/key-custody.md): where a tenant's new signing keys are
// made, software or a PKCS#11 token. Kept on the tenant, which every request reads anyway; the keys
// already made stay where they are, each row naming its custody.

import { type Static, Type } from '@sinclair/typebox';
import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import { adminOperations } from '../shared/admin-resource.ts';
import { Problems } from '../shared/body-problems.ts';
import { DomainError, invalidField } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { KEY_CUSTODIES, type KeyCustody } from './model.ts';

/** A custody as a body field takes it: `software` or `pkcs11`. */
export const KeyCustodyField = Type.Union(
  KEY_CUSTODIES.map((c) => Type.Literal(c)),
  { errorMessage: `One of ${KEY_CUSTODIES.join(', ')}` },
);

/** `PUT /v1/config/key-custody`: the custody of the tenant's new keys. */
export const KeyCustodyBody = Type.Object(
  {
    custody: KeyCustodyField,
  },
  { additionalProperties: false, errorMessage: "An object such as { custody: 'pkcs11' }" },
);

/** What the platform offers: the custodies it has, and where keys go for a tenant that has not chosen. */
export interface KeyCustodyOptions {
  available: readonly KeyCustody[];
  platformDefault: KeyCustody;
}

/** What `GET` and `PUT /v1/config/key-custody` answer. */
export interface KeyCustodySettings {
  /** Where the tenant's new keys are made. */
  custody: KeyCustody;
  /** Whether that is the tenant's own choice (`tenant`) or the platform's default (`platform`). */
  chosenBy: 'tenant' | 'platform';
  /** The custodies this server has. */
  available: KeyCustody[];
}

/** `GET`/`PUT /v1/config/key-custody`. Reading needs `configurations:read`, choosing `configurations:write`. */
export interface KeyCustodyService {
  get(ctx: RequestContext): Promise<KeyCustodySettings>;
  /** Chooses the custody of the tenant's new keys; refused (400) for one this server does not have. */
  update(ctx: RequestContext, input: unknown): Promise<KeyCustodySettings>;
}

/** Where a tenant's new keys go: its own choice, else the platform's. */
export const custodyOfTenant = (tenant: { keyCustody?: KeyCustody }, options: KeyCustodyOptions): KeyCustody => tenant.keyCustody ?? options.platformDefault;

export function createKeyCustodyService(deps: { store: Store; events: EventRecorder; options: KeyCustodyOptions }): KeyCustodyService {
  const { store, events, options } = deps;
  const reading = adminOperations(events, 'configurations:read');
  const writing = adminOperations(events, 'configurations:write');
  const settingsOf = (keyCustody: KeyCustody | undefined): KeyCustodySettings => ({
    custody: keyCustody ?? options.platformDefault,
    chosenBy: keyCustody === undefined ? 'platform' : 'tenant',
    available: [...options.available],
  });
  const meta = (s: KeyCustodySettings) => ({ custody: s.custody });
  return {
    get(ctx) {
      return reading.run(ctx, 'CONFIG_KEY_CUSTODY_RETRIEVE', { meta }, async () => settingsOf(ctx.tenant.keyCustody));
    },
    update(ctx, input) {
      return writing.run(ctx, 'CONFIG_KEY_CUSTODY_UPDATE', { input, meta }, async () => {
        const p = new Problems();
        if (!p.checkShape(KeyCustodyBody, input)) p.throwIfAny(KeyCustodyBody);
        const { custody } = input as Static<typeof KeyCustodyBody>;
        if (!options.available.includes(custody)) {
          throw invalidField('custody', `This server has no ${custody} key custody; it has ${options.available.join(', ')} (docs/key-custody.md)`, custody);
        }
        if (!(await store.tenants.setKeyCustody(ctx.tenant.id, custody))) throw new DomainError('NotFound', 'The tenant is gone');
        return settingsOf(custody);
      });
    },
  };
}
