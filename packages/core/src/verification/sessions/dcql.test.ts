import { describe, expect, it } from 'vitest';
import { sessionDcql } from './dcql.ts';

describe('sessionDcql.problems', () => {
  it('refuses an ldp_vc query in a session (the verify API takes those), and takes dc+sd-jwt and mso_mdoc', () => {
    const query = {
      credentials: [
        { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['urn:pid'] } },
        { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' } },
        { id: 'membership', format: 'ldp_vc', meta: { type_values: [['VerifiableCredential', 'Membership']] } },
      ],
    };
    expect(sessionDcql.problems(query)).toEqual([{ path: 'credentials.2.format', message: 'Presentation sessions ask for dc+sd-jwt or mso_mdoc only' }]);
    expect(sessionDcql.problems({ credentials: query.credentials.slice(0, 2) })).toEqual([]);
  });
});
