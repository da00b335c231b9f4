import { describe, expect, it } from 'vitest';
import { REVOCATION_LIST_CACHE, revocationListCacheSeconds, revocationListReferenceOf } from './revocation-list-2020.ts';

describe('RevocationList2020 references and caching', () => {
  it('keeps a list for its Cache-Control max-age within the documented bounds', () => {
    expect(revocationListCacheSeconds('public, max-age=600')).toBe(600);
    expect(revocationListCacheSeconds(undefined)).toBe(REVOCATION_LIST_CACHE.defaultSeconds);
    expect(revocationListCacheSeconds('max-age=5')).toBe(REVOCATION_LIST_CACHE.minSeconds);
    expect(revocationListCacheSeconds('no-store')).toBe(REVOCATION_LIST_CACHE.minSeconds);
    expect(revocationListCacheSeconds('max-age=999999')).toBe(REVOCATION_LIST_CACHE.maxSeconds);
  });

  it('reads a RevocationList2020Status, ignores other types and refuses malformed ones', () => {
    const status = { type: 'RevocationList2020Status', revocationListIndex: '42', revocationListCredential: 'https://i.example/l/1' };
    expect(revocationListReferenceOf(status)).toEqual({ index: 42, url: 'https://i.example/l/1' });
    expect(revocationListReferenceOf({ type: 'StatusList2021Entry' })).toBeUndefined();
    expect(revocationListReferenceOf({ ...status, revocationListIndex: '-1' })).toMatchObject({ ok: false });
    expect(revocationListReferenceOf({ ...status, revocationListCredential: 'http://i.example/l/1' })).toMatchObject({ ok: false });
  });
});
