import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids } from '../shared/ports.ts';
import type { DnsResolver } from './ports.ts';
import { conflict, DomainError, notFound } from '../shared/errors.ts';
import { adminOperations, requireFound } from '../shared/admin-resource.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { CustomDomain } from './model.ts';
import { checkCustomDomainInput, type CustomDomainInput } from './rules.ts';

export interface CustomDomainDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  dns: DnsResolver;
  events: EventRecorder;
  platformDomain: string;
}

/** docs/decisions.md "Custom domains": the response body, the domain without its tenant and times. */
export type CustomDomainView = Omit<CustomDomain, 'tenantId' | 'createdAt' | 'updatedAt'>;

export interface CustomDomainService {
  create(ctx: RequestContext, input: CustomDomainInput): Promise<CustomDomainView>;
  get(ctx: RequestContext): Promise<CustomDomainView>;
  update(ctx: RequestContext, input: CustomDomainInput): Promise<CustomDomainView>;
  delete(ctx: RequestContext): Promise<void>;
  verify(ctx: RequestContext): Promise<void>;
}

export function customDomainView(d: CustomDomain): CustomDomainView {
  return {
    ...(d.name !== undefined ? { name: d.name } : {}),
    ...(d.logoUrl !== undefined ? { logoUrl: d.logoUrl } : {}),
    domain: d.domain,
    verificationToken: d.verificationToken,
    isVerified: d.isVerified,
    ...(d.verifiedAt !== undefined ? { verifiedAt: d.verifiedAt } : {}),
  };
}

const TOKEN_PREFIX = 'vellum-domain-verification=';
const missing = () => notFound('The tenant has no custom domain');

/** Custom domain life cycle (docs/decisions.md "Custom domains"). */
export function createCustomDomainService(deps: CustomDomainDeps): CustomDomainService {
  const { store, clock, ids, dns, events } = deps;
  const { run } = adminOperations(events, 'custom-domain');

  async function refuseIfClaimed(ctx: RequestContext, domain: string): Promise<void> {
    const owner = await store.customDomains.findVerified(domain);
    if (owner && owner.tenantId !== ctx.tenant.id) {
      throw conflict('This domain is verified by another tenant', [{ value: domain, msg: 'Already claimed', param: 'domain', location: 'body' }]);
    }
  }

  const meta = (v: CustomDomainView | void) => (v ? { domain: v.domain, isVerified: v.isVerified } : {});

  return {
    create(ctx, input) {
      return run(ctx, 'CONFIG_CUSTOM_DOMAIN_CREATE', { input, meta }, async () => {
        const checked = checkCustomDomainInput(input, deps.platformDomain);
        await refuseIfClaimed(ctx, checked.domain);
        const now = clock.now().toISOString();
        const record: CustomDomain = {
          tenantId: ctx.tenant.id,
          ...checked,
          verificationToken: TOKEN_PREFIX + ids.token(24),
          isVerified: false,
          createdAt: now,
          updatedAt: now,
        };
        await store.customDomains.insert(record);
        return customDomainView(record);
      });
    },

    get(ctx) {
      return run(ctx, 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', { meta }, async () =>
        customDomainView(await requireFound(store.customDomains.get(ctx.tenant.id), missing)),
      );
    },

    update(ctx, input) {
      return run(ctx, 'CONFIG_CUSTOM_DOMAIN_UPDATE', { input, meta }, async () => {
        const checked = checkCustomDomainInput(input, deps.platformDomain);
        return store.transaction(async (tx) => {
          const current = await requireFound(tx.customDomains.get(ctx.tenant.id), missing);
          const sameDomain = current.domain === checked.domain;
          if (!sameDomain) await refuseIfClaimed(ctx, checked.domain);
          // A new name must be proven again: it gets a fresh token and loses its verification.
          const next: CustomDomain = {
            tenantId: ctx.tenant.id,
            ...checked,
            verificationToken: sameDomain ? current.verificationToken : TOKEN_PREFIX + ids.token(24),
            isVerified: sameDomain && current.isVerified,
            ...(sameDomain && current.verifiedAt ? { verifiedAt: current.verifiedAt } : {}),
            createdAt: current.createdAt,
            updatedAt: clock.now().toISOString(),
          };
          await tx.customDomains.update(next);
          return customDomainView(next);
        });
      });
    },

    delete(ctx) {
      return run(ctx, 'CONFIG_CUSTOM_DOMAIN_DELETE', {}, async () => {
        if (!(await store.customDomains.delete(ctx.tenant.id))) throw missing();
      });
    },

    verify(ctx) {
      return run(ctx, 'CONFIG_CUSTOM_DOMAIN_VERIFY', {}, async () => {
        const current = await requireFound(store.customDomains.get(ctx.tenant.id), missing);
        const lookup = await dns.resolveTxt(current.domain);
        if (lookup.status === 'failed') {
          throw new DomainError('BadRequest', `The TXT records of ${current.domain} could not be read: ${lookup.reason}`);
        }
        const records = lookup.status === 'found' ? lookup.records.map((r) => r.trim()) : [];
        if (!records.includes(current.verificationToken)) {
          throw new DomainError('BadRequest', `No TXT record of ${current.domain} holds the verification token`, {
            details: [{ value: current.domain, msg: `Publish a TXT record with the value ${current.verificationToken}`, param: 'domain', location: 'body' }],
          });
        }
        await refuseIfClaimed(ctx, current.domain);
        if (!current.isVerified) await store.customDomains.markVerified(ctx.tenant.id, clock.now().toISOString());
      });
    },
  };
}
