import type { FormatRegistry } from '../credential-formats/port.ts';
import type { EventPrefix } from '../events/catalogue.ts';
import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids } from '../shared/ports.ts';
import { adminOperations, conflictAs } from '../shared/admin-resource.ts';
import { conflict, DomainError, invalidField, notFound } from '../shared/errors.ts';
import type { IssuerSigners } from '../issuer-pki/model.ts';
import type { Addressing } from '../tenancy/addressing.ts';
import type { Page, PageQuery } from '../shared/pagination.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { isUuid } from '../shared/ids.ts';
import { isPlainObject } from '../shared/body-problems.ts';
import { checkConfigurationInput } from './input.ts';
import type { CredentialConfiguration, CredentialConfigurationInput, CredentialFormat, KeyResolution } from './model.ts';
import { isSigningDid } from './rules.ts';

export interface CredentialConfigurationDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
  /** The format handlers, which check each format's own fields. */
  formats: FormatRegistry;
  /**
   * The leaves of issuer CAs and where the tenant is served: a dc+sd-jwt configuration's key
   * resolution defaults to `x5c` on an https issuer with an active issuer CA, and `x5c` is refused
   * when no leaf can sign for the issuer (docs/decisions.md "Issuer certificates"). Without them,
   * configurations default to `did`.
   */
  x509?: { signers: Pick<IssuerSigners, 'current' | 'available'>; addressing: Pick<Addressing, 'publicOrigin'> };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A configuration as the API shows it: everything but the tenant and the format (the path says which). */
export type CredentialConfigurationView = DistributiveOmit<CredentialConfiguration, 'tenantId' | 'format'>;

export interface CredentialConfigurationListQuery extends PageQuery {
  /** Only configurations of this type (docType for mDocs). */
  type?: string | undefined;
}

/** docs/decisions.md "Credential configurations": one collection of configurations per format, with the same operations on each. */
export interface CredentialConfigurationService {
  /** Creates a configuration; its `type` must be new among the tenant's configurations of that format. */
  create(ctx: RequestContext, format: CredentialFormat, input: CredentialConfigurationInput): Promise<CredentialConfigurationView>;
  list(ctx: RequestContext, format: CredentialFormat, query: CredentialConfigurationListQuery): Promise<Page<CredentialConfigurationView>>;
  get(ctx: RequestContext, format: CredentialFormat, id: string): Promise<CredentialConfigurationView>;
  /** Replaces a configuration whole (PUT): the same rules as create; id and creation time stay. */
  update(ctx: RequestContext, format: CredentialFormat, id: string, input: CredentialConfigurationInput): Promise<CredentialConfigurationView>;
  delete(ctx: RequestContext, format: CredentialFormat, id: string): Promise<void>;
}

/** The event prefix group of each format (docs/decisions.md "Analytic events": `MOBILE_CREDENTIAL_CONFIGURATION_CREATE`, …). */
const EVENT_GROUP = {
  mso_mdoc: 'MOBILE',
  ldp_vc: 'WEB_SEMANTIC',
  cwt: 'COMPACT',
  cwt_vc: 'COMPACT_SEMANTIC',
  'dc+sd-jwt': 'SD_JWT',
} as const satisfies Record<CredentialFormat, string>;

type Operation = 'CREATE' | 'LIST' | 'RETRIEVE' | 'UPDATE' | 'DELETE';

/** The analytic event prefix of an operation on a format's configurations. */
export function configurationEventPrefix(format: CredentialFormat, operation: Operation): EventPrefix {
  return `${EVENT_GROUP[format]}_CREDENTIAL_CONFIGURATION_${operation}`;
}

/** Renders a stored configuration as the API shows it. */
export function credentialConfigurationView(c: CredentialConfiguration): CredentialConfigurationView {
  const { tenantId: _tenantId, format: _format, ...view } = c;
  return view;
}

/** Checks a configuration id named in a path; anything but a UUID is a 400 about `id`. */
export function checkConfigurationId(id: string): string {
  if (!isUuid(id)) throw invalidField('id', 'A credential configuration id (UUID)', id, 'params');
  return id.toLowerCase();
}

const missing = (format: CredentialFormat) => notFound(`The tenant has no such ${format} credential configuration`);

/** Credential configurations of every format (docs/decisions.md "Credential configurations"): create, list, read, replace, delete. */
export function createCredentialConfigurationService(deps: CredentialConfigurationDeps): CredentialConfigurationService {
  const { store, clock, ids, events, formats, x509 } = deps;
  const repository = store.credentialConfigurations;
  const reading = adminOperations(events, 'configurations:read');
  const writing = adminOperations(events, 'configurations:write');

  /** The configuration with this id, of this format and tenant; any other is as good as absent. */
  async function find(ctx: RequestContext, format: CredentialFormat, id: string): Promise<CredentialConfiguration> {
    const found = await repository.get(ctx.tenant.id, checkConfigurationId(id));
    if (!found || found.format !== format) throw missing(format);
    return found;
  }

  /** Looks up the DID an input pins as its issuer, so one 400 can say every problem, this one too. */
  async function issuerDidOf(ctx: RequestContext, input: CredentialConfigurationInput) {
    const id = input !== null && typeof input === 'object' ? (input.issuer as { id?: unknown } | undefined)?.id : undefined;
    return isSigningDid(id) ? store.dids.get(ctx.tenant.id, id) : undefined;
  }

  /** The unique index refused the type: say which configuration holds it. */
  async function typeTaken(ctx: RequestContext, c: CredentialConfiguration): Promise<DomainError> {
    const holder = (await repository.list(ctx.tenant.id, { format: c.format, type: c.type }, { limit: 1 })).items[0];
    return conflict(`The tenant already has a ${c.format} configuration of this type`, [
      { value: c.type, msg: holder ? `Already the type of configuration ${holder.id}` : 'Already in use', param: 'type', location: 'body' },
    ]);
  }

  /**
   * A dc+sd-jwt body without `keyResolution` gets one: a replaced configuration keeps its own (`did`
   * when it predates the field), a new one takes `x5c` when the tenant presents itself over https
   * and has an active issuer CA (HAIP 1.0), else `did`. A replaced cwt or cwt_vc configuration keeps
   * its `x5c` too (a new one has `did` unless it asks). Other formats' bodies pass as they are.
   */
  async function withKeyResolution(
    ctx: RequestContext,
    format: CredentialFormat,
    input: CredentialConfigurationInput,
    existing: CredentialConfiguration | undefined,
  ) {
    if (input === null || typeof input !== 'object' || Array.isArray(input) || Object.hasOwn(input, 'keyResolution')) return input;
    if (format === 'cwt' || format === 'cwt_vc')
      return existing && 'keyResolution' in existing && existing.keyResolution === 'x5c' ? { ...input, keyResolution: 'x5c' } : input;
    if (format !== 'dc+sd-jwt') return input;
    // The body is not checked yet: `issuer` may be anything (null included), which the checks refuse later.
    if (isPlainObject(input.issuer) && input.issuer.id !== undefined) return { ...input, keyResolution: 'did' };
    let keyResolution: KeyResolution = 'did';
    if (existing) keyResolution = existing.format === 'dc+sd-jwt' ? (existing.keyResolution ?? 'did') : 'did';
    else if (x509 && (await x509.addressing.publicOrigin(ctx.tenant)).startsWith('https://') && (await x509.signers.available(ctx.tenant, clock.now())))
      keyResolution = 'x5c';
    return { ...input, keyResolution };
  }

  /**
   * A configuration that signs with x5c needs a leaf that can sign for the tenant's issuer
   * identifier now: under a managed issuer CA one is made if needed; under an imported one, its
   * certificate must name the identifier, or verifiers would refuse every credential (SD-JWT VC §3.5).
   */
  async function checkX5cSigner(ctx: RequestContext, configuration: CredentialConfiguration): Promise<void> {
    if (!('keyResolution' in configuration) || configuration.keyResolution !== 'x5c') return;
    if (!x509) throw invalidField('keyResolution', 'This host signs no credentials with X.509 certificates', 'x5c');
    const issuer = await x509.addressing.publicOrigin(ctx.tenant);
    try {
      await x509.signers.current(ctx.tenant, 'credential', issuer, clock.now());
      // Its status list is signed under the same CA by a status list leaf (docs/status-lists.md
      // "Status list tokens signed with X.509 (issue 29)"): under an imported CA, one must be there.
      if (configuration.revocable === true) await x509.signers.current(ctx.tenant, 'status-list', issuer, clock.now());
    } catch (error) {
      if (error instanceof DomainError && error.code === 'BadRequest') throw invalidField('keyResolution', error.message, 'x5c');
      throw error;
    }
  }

  const meta = (format: CredentialFormat) => (v: CredentialConfigurationView | void) => (v ? { id: v.id, format, type: v.type } : { format });

  return {
    create(ctx, format, input) {
      return writing.run(ctx, configurationEventPrefix(format, 'CREATE'), { input, meta: meta(format) }, async () => {
        const now = clock.now().toISOString();
        const assigned = { id: ids.uuid(), tenantId: ctx.tenant.id, createdAt: now, updatedAt: now };
        const given = await withKeyResolution(ctx, format, input, undefined);
        const configuration = checkConfigurationInput(formats.get(format), given, assigned, { issuerDid: await issuerDidOf(ctx, input) });
        await checkX5cSigner(ctx, configuration);
        await conflictAs(repository.insert(configuration), () => typeTaken(ctx, configuration));
        return credentialConfigurationView(configuration);
      });
    },

    list(ctx, format, query) {
      const filter = query.type === undefined ? { format } : { format, type: query.type };
      return reading.list(
        ctx,
        configurationEventPrefix(format, 'LIST'),
        query,
        (page) => repository.list(ctx.tenant.id, filter, page),
        credentialConfigurationView,
        { meta: (p) => ({ format, count: p.data.length }) },
      );
    },

    get(ctx, format, id) {
      return reading.run(ctx, configurationEventPrefix(format, 'RETRIEVE'), { meta: meta(format) }, async () =>
        credentialConfigurationView(await find(ctx, format, id)),
      );
    },

    update(ctx, format, id, input) {
      return writing.run(ctx, configurationEventPrefix(format, 'UPDATE'), { input, meta: meta(format) }, async () => {
        const existing = await find(ctx, format, id);
        const assigned = { id: existing.id, tenantId: existing.tenantId, createdAt: existing.createdAt, updatedAt: clock.now().toISOString() };
        const given = await withKeyResolution(ctx, format, input, existing);
        const configuration = checkConfigurationInput(formats.get(format), given, assigned, { issuerDid: await issuerDidOf(ctx, input) });
        await checkX5cSigner(ctx, configuration);
        // Deleted between the read and the write.
        if (!(await conflictAs(repository.update(configuration), () => typeTaken(ctx, configuration)))) throw missing(format);
        return credentialConfigurationView(configuration);
      });
    },

    delete(ctx, format, id) {
      return writing.run(ctx, configurationEventPrefix(format, 'DELETE'), { meta: () => ({ id, format }) }, async () => {
        const existing = await find(ctx, format, id);
        if (!(await repository.delete(ctx.tenant.id, existing.id))) throw missing(format);
      });
    },
  };
}
