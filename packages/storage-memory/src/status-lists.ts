// Status lists, their entries and tokens, and the status list configurations, in memory
// (core/src/status-lists/model.ts: StatusListRepository, StatusListConfigurationRepository).
// Every check-then-write below runs without an await in between, so it is atomic as the SQL store's
// single conditional statements and transactions are. The state sits inside the store's, so a
// transaction that fails restores it with the rest.

import {
  conflict,
  type CredentialStatus,
  type Repositories,
  type StatusEntry,
  type StatusListConfiguration,
  type StatusListRecord,
  type StoredStatusToken,
} from '@vellum/core';
import { copy, deleteOwned, insertRow, ownedRow, ownedValue, type Row, tenantValues } from './rows.ts';

export interface StatusListState {
  /** By id (the SQL store's unique index). */
  configurations: Map<string, Row<StatusListConfiguration>>;
  /** By id (the SQL store's unique index). */
  lists: Map<string, Row<StatusListRecord>>;
  /** By `${tenantId} ${credentialId}` (the SQL store's unique index). */
  entries: Map<string, StatusEntry>;
  /** Which credential holds each `${listId} ${idx}` (the SQL store's primary key). */
  slots: Map<string, string>;
  /** Per list id, the entries that are not valid, by index: what `nonValidEntries` reads without a scan. */
  nonValid: Map<string, Map<number, CredentialStatus>>;
  /** By `${tenantId} ${listId}`: one kept token per list. */
  tokens: Map<string, StoredStatusToken>;
}

export const emptyStatusListState = (): StatusListState => ({
  configurations: new Map(),
  lists: new Map(),
  entries: new Map(),
  slots: new Map(),
  nonValid: new Map(),
  tokens: new Map(),
});

const keyOf = (a: string, b: string | number) => `${a} ${b}`;

/** Records (or clears) an entry's place among its list's non-valid entries. */
function track(s: StatusListState, entry: StatusEntry): void {
  let byIdx = s.nonValid.get(entry.listId);
  if (entry.status === 'valid') {
    byIdx?.delete(entry.idx);
    return;
  }
  if (byIdx === undefined) s.nonValid.set(entry.listId, (byIdx = new Map()));
  byIdx.set(entry.idx, entry.status);
}

/** The repositories over the state `get` returns; `next` hands out creation-order numbers. */
export function statusListRepositories(get: () => StatusListState, next: () => number): Pick<Repositories, 'statusLists' | 'statusListConfigurations'> {
  const configurationOf = (tenantId: string, id: string) => ownedRow(get().configurations, tenantId, id);
  const listOf = (tenantId: string, id: string) => ownedRow(get().lists, tenantId, id);
  /** Another configuration of the tenant for the same docType (the SQL store's unique index). */
  const docTypeHolder = (c: StatusListConfiguration) =>
    [...get().configurations.values()].find((r) => r.value.id !== c.id && r.value.tenantId === c.tenantId && r.value.docType === c.docType);
  const docTypeTaken = () => conflict('The tenant already has a status list configuration for this docType');

  return {
    statusListConfigurations: {
      async insert(configuration) {
        const s = get();
        if (s.configurations.has(configuration.id)) throw conflict('Status list configuration id exists');
        if (docTypeHolder(configuration)) throw docTypeTaken();
        s.configurations.set(configuration.id, { seq: next(), value: copy(configuration) });
      },
      async get(tenantId, id) {
        return ownedValue(get().configurations, tenantId, id);
      },
      async findByDocType(tenantId, docType) {
        const r = [...get().configurations.values()].find((x) => x.value.tenantId === tenantId && x.value.docType === docType);
        return r && copy(r.value);
      },
      async list(tenantId) {
        return tenantValues(get().configurations, tenantId);
      },
      async update(configuration) {
        const r = configurationOf(configuration.tenantId, configuration.id);
        if (!r) return false;
        if (docTypeHolder(configuration)) throw docTypeTaken();
        // The tenant, the id and the creation time stay as inserted.
        const { id, tenantId, createdAt } = r.value;
        r.value = { ...copy(configuration), id, tenantId, createdAt };
        return true;
      },
      async delete(tenantId, id) {
        return deleteOwned(get().configurations, tenantId, id);
      },
    },

    statusLists: {
      async insert(list) {
        insertRow(get().lists, list.id, { ...list, taken: 0, revision: 0 }, next, 'Status list id exists', {
          taken: (r) => r.tenantId === list.tenantId && r.kind === list.kind && r.generation === list.generation,
          message: 'The tenant already has this generation of the kind',
        });
      },
      async get(tenantId, id) {
        return ownedValue(get().lists, tenantId, id);
      },
      async list(tenantId, kind) {
        return tenantValues(get().lists, tenantId, (l) => kind === undefined || l.kind === kind);
      },
      async takePosition(tenantId, kind) {
        // The newest list of the kind with room: the last in creation order (Map keeps insertion order).
        let newest: Row<StatusListRecord> | undefined;
        for (const r of get().lists.values()) {
          if (r.value.tenantId === tenantId && r.value.kind === kind && r.value.taken < r.value.size) newest = r;
        }
        if (newest === undefined) return undefined;
        newest.value.taken += 1;
        return { list: copy(newest.value), position: newest.value.taken - 1 };
      },
      async insertEntry(entry) {
        const s = get();
        const slot = keyOf(entry.listId, entry.idx);
        const key = keyOf(entry.tenantId, entry.credentialId);
        if (s.slots.has(slot)) throw conflict('The status list already has an entry at this index');
        if (s.entries.has(key)) throw conflict('The credential already has a status entry');
        s.entries.set(key, copy(entry));
        s.slots.set(slot, key);
        track(s, entry);
      },
      async entryOf(tenantId, credentialId) {
        const e = get().entries.get(keyOf(tenantId, credentialId));
        return e && copy(e);
      },
      async setStatus(tenantId, credentialId, from, to, at) {
        const s = get();
        const e = s.entries.get(keyOf(tenantId, credentialId));
        if (!e || e.status !== from) return false;
        e.status = to;
        e.updatedAt = at;
        track(s, e);
        // As in SQL, the list of the entry within the tenant; an entry always names one.
        const list = listOf(tenantId, e.listId);
        if (list) list.value.revision += 1;
        return true;
      },
      async nonValidEntries(tenantId, listId) {
        const s = get();
        const byIdx = s.nonValid.get(listId);
        if (byIdx === undefined) return [];
        const found: Array<{ idx: number; status: CredentialStatus }> = [];
        for (const [idx, status] of byIdx) {
          // Only the tenant's own entries (an index belongs to whoever inserted it).
          const key = s.slots.get(keyOf(listId, idx));
          if (key !== undefined && s.entries.get(key)?.tenantId === tenantId) found.push({ idx, status });
        }
        return found.sort((a, b) => a.idx - b.idx);
      },
      async getToken(tenantId, listId) {
        const t = get().tokens.get(keyOf(tenantId, listId));
        return t && copy(t);
      },
      async putToken(token) {
        get().tokens.set(keyOf(token.tenantId, token.listId), copy(token));
      },
    },
  };
}
