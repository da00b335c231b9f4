// The two kinds of certificate authority a tenant holds (docs/decisions.md "mDoc PKI", "Issuer
// certificates"): IACAs, whose document signers sign mDocs, and issuer CAs, whose leaves sign
// SD-JWT VCs, issuer metadata and status list tokens. One service runs both; this says how they differ.

import type { EventPrefix } from '../events/catalogue.ts';
import type { CaProfile } from './ports.ts';
import { IACAS_PATH } from './model.ts';

/** The path of the issuer CA collection under a tenant origin (docs/decisions.md "Issuer certificates"). */
export const ISSUER_CAS_PATH = '/v2/credentials/issuer-cas';
/** The path of the issuer leaf collection under a tenant origin. */
export const ISSUER_SIGNERS_PATH = '/v2/credentials/issuer-signers';

export interface PkiProfile {
  profile: CaProfile;
  /** What the API calls one such CA. */
  noun: string;
  /** Where its collection is served; a managed CA's CRL is `{origin}{path}/{id}/crl`. */
  path: string;
  /** Appended to the tenant's name for a managed CA's default common name. */
  commonNameSuffix: string;
  /** The profile a managed CA's certificate follows, named in messages. */
  standard: string;
  events: { create: EventPrefix; list: EventPrefix; retrieve: EventPrefix; update: EventPrefix; delete: EventPrefix };
}

export const IACA_PROFILE: PkiProfile = {
  profile: 'mdoc',
  noun: 'IACA',
  path: IACAS_PATH,
  commonNameSuffix: ' IACA',
  standard: 'ISO/IEC 18013-5 Annex B',
  events: {
    create: 'MOBILE_IACA_CREATE',
    list: 'MOBILE_IACA_LIST',
    retrieve: 'MOBILE_IACA_RETRIEVE',
    update: 'MOBILE_IACA_UPDATE',
    delete: 'MOBILE_IACA_DELETE',
  },
};

export const ISSUER_CA_PROFILE: PkiProfile = {
  profile: 'issuer',
  noun: 'issuer CA',
  path: ISSUER_CAS_PATH,
  commonNameSuffix: ' Issuer CA',
  standard: 'HAIP 1.0',
  events: { create: 'ISSUER_CA_CREATE', list: 'ISSUER_CA_LIST', retrieve: 'ISSUER_CA_RETRIEVE', update: 'ISSUER_CA_UPDATE', delete: 'ISSUER_CA_DELETE' },
};

/** Whether a stored CA is of `profile` (an IACA record has none). */
export const isOfProfile = (record: { profile?: 'issuer' }, profile: PkiProfile) => (record.profile ?? 'mdoc') === profile.profile;
