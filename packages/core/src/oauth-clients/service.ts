import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids, SecretHasher } from '../shared/ports.ts';
import { adminCollection, type CollectionService, conflictAs } from '../shared/admin-resource.ts';
import { conflict, DomainError, invalidField, notFound } from '../shared/errors.ts';
import type { PageQuery } from '../shared/pagination.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { WalletClient, WalletClientAuthMethod } from './model.ts';
import { checkWalletClientId, checkWalletClientInput } from './rules.ts';

export interface WalletClientDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  /** Hashes the client secrets Vellum makes; only the hash is stored. */
  hasher: SecretHasher;
  events: EventRecorder;
}

/** A wallet client as the API shows it (docs/wallet-clients.md): never its secret nor the secret's hash. */
export interface WalletClientView {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  grantTypes: WalletClient['grantTypes'];
  tokenEndpointAuthMethod: WalletClientAuthMethod;
  dpop?: { required: boolean };
  clientAttestation?: { rootCertificates: string[]; dpopRequired?: boolean };
  credentialResponseEncryption?: { required: boolean };
  createdAt: string;
  updatedAt: string;
}

/** A view that may carry a secret Vellum just made: shown in this one answer and never again. */
export interface WalletClientWithSecret extends WalletClientView {
  clientSecret?: string;
}

export type WalletClientListQuery = PageQuery;

/** `/v1/openid/clients` (docs/wallet-clients.md): the wallets the Authorization Code flow accepts. Permission `issuance-setup`. */
export interface WalletClientService extends CollectionService<WalletClientView> {
  /** Registers a client; a confidential one gets a secret, in this answer only. */
  create(ctx: RequestContext, input: unknown): Promise<WalletClientWithSecret>;
  /**
   * Replaces the client's settings (PUT; its id never changes). A public client made confidential
   * gets a secret, in this answer only; a confidential one keeps its secret; one made public loses it.
   */
  update(ctx: RequestContext, clientId: string, input: unknown): Promise<WalletClientWithSecret>;
  /** A new secret for a confidential client, in this answer only; the old one stops working at once. */
  rotateSecret(ctx: RequestContext, clientId: string): Promise<WalletClientView & { clientSecret: string }>;
}

/** Renders a stored client as the API shows it. */
export function walletClientView(c: WalletClient): WalletClientView {
  return {
    clientId: c.clientId,
    clientName: c.clientName,
    redirectUris: [...c.redirectUris],
    grantTypes: [...c.grantTypes],
    tokenEndpointAuthMethod: c.tokenEndpointAuthMethod,
    ...(c.dpop ? { dpop: { ...c.dpop } } : {}),
    ...(c.clientAttestation ? { clientAttestation: { ...c.clientAttestation, rootCertificates: [...c.clientAttestation.rootCertificates] } } : {}),
    ...(c.credentialResponseEncryption ? { credentialResponseEncryption: { ...c.credentialResponseEncryption } } : {}),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** Bytes of entropy in a client secret Vellum makes (and in a client id it makes). */
const SECRET_BYTES = 32;
const CLIENT_ID_BYTES = 16;

const missing = () => notFound('The tenant has no such wallet client');
const isConfidential = (method: WalletClientAuthMethod) => method !== 'none';

/** What a finished operation's events keep of its answer: never the secret, at any logging level. */
function withoutSecret(result: WalletClientWithSecret): WalletClientView {
  const { clientSecret: _secret, ...view } = result;
  return view;
}

/** Wallet (OAuth) clients (docs/wallet-clients.md): create, list, read, replace, delete, rotate the secret. */
export function createWalletClientService(deps: WalletClientDeps): WalletClientService {
  const { store, clock, ids, hasher, events } = deps;

  // `authMethod`: a name with `token` in it would be masked as a secret (events/sanitize.ts).
  const meta = (v: WalletClientView) => ({ clientId: v.clientId, authMethod: v.tokenEndpointAuthMethod });
  const secretless = { meta, response: withoutSecret };
  const clients = adminCollection({
    events,
    permission: 'issuance-setup',
    stem: 'OPENID_CLIENT',
    records: () => store.walletClients,
    view: walletClientView,
    meta,
    checkId: checkWalletClientId,
    missing,
  });
  const { run, find } = clients;

  /** A fresh secret and its hash. */
  async function newSecret(): Promise<{ clientSecret: string; secretHash: string }> {
    const clientSecret = ids.token(SECRET_BYTES);
    return { clientSecret, secretHash: await hasher.hash(clientSecret) };
  }

  return {
    create(ctx, input) {
      return run(ctx, 'OPENID_CLIENT_CREATE', { input, ...secretless }, async () => {
        const settings = checkWalletClientInput(input);
        const now = clock.now().toISOString();
        const secret = isConfidential(settings.tokenEndpointAuthMethod) ? await newSecret() : undefined;
        const client: WalletClient = {
          ...settings,
          tenantId: ctx.tenant.id,
          clientId: settings.clientId ?? ids.token(CLIENT_ID_BYTES),
          ...(secret ? { secretHash: secret.secretHash } : {}),
          createdAt: now,
          updatedAt: now,
        };
        await conflictAs(store.walletClients.insert(client), () =>
          conflict('The tenant already has a wallet client with this clientId', [
            { value: client.clientId, msg: 'Taken', param: 'clientId', location: 'body' },
          ]),
        );
        return { ...walletClientView(client), ...(secret ? { clientSecret: secret.clientSecret } : {}) };
      });
    },

    list: clients.list,
    get: clients.get,

    update(ctx, clientId, input) {
      return run(ctx, 'OPENID_CLIENT_UPDATE', { input, ...secretless }, async () => {
        const existing = await find(ctx, clientId);
        const settings = checkWalletClientInput(input);
        if (settings.clientId !== undefined && settings.clientId !== existing.clientId) {
          throw invalidField('clientId', 'A client id never changes: leave it out, or repeat the one in the path', settings.clientId);
        }
        const confidential = isConfidential(settings.tokenEndpointAuthMethod);
        // A client already confidential keeps its secret across methods; a public one made confidential gets one.
        const secret = confidential && existing.secretHash === undefined ? await newSecret() : undefined;
        const secretHash = confidential ? (secret?.secretHash ?? existing.secretHash) : undefined;
        const { clientId: _given, ...rest } = settings;
        const client: WalletClient = {
          ...rest,
          tenantId: existing.tenantId,
          clientId: existing.clientId,
          ...(secretHash !== undefined ? { secretHash } : {}),
          createdAt: existing.createdAt,
          updatedAt: clock.now().toISOString(),
        };
        // Deleted between the read and the write.
        if (!(await store.walletClients.update(client))) throw missing();
        return { ...walletClientView(client), ...(secret ? { clientSecret: secret.clientSecret } : {}) };
      });
    },

    delete(ctx, clientId) {
      return run(ctx, 'OPENID_CLIENT_DELETE', { meta: () => ({ clientId }) }, async () => {
        if (!(await store.walletClients.delete(ctx.tenant.id, checkWalletClientId(clientId)))) throw missing();
      });
    },

    rotateSecret(ctx, clientId) {
      return run(ctx, 'OPENID_CLIENT_ROTATE_SECRET', { input: { clientId }, ...secretless }, async () => {
        const existing = await find(ctx, clientId);
        if (!isConfidential(existing.tokenEndpointAuthMethod)) {
          throw new DomainError('Conflict', 'This client is public (tokenEndpointAuthMethod none): it has no secret to rotate');
        }
        const { clientSecret, secretHash } = await newSecret();
        const client: WalletClient = { ...existing, secretHash, updatedAt: clock.now().toISOString() };
        if (!(await store.walletClients.update(client))) throw missing();
        return { ...walletClientView(client), clientSecret };
      });
    },
  };
}
