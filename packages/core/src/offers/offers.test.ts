import { describe, expect, it } from 'vitest';
import { checkPreAuthorizedOffer, describeTxCode, makeTransactionCode } from './rules.ts';
import { buildCredentialOffer, offerUriByReference, offerUriByValue, PRE_AUTHORIZED_CODE_GRANT } from './uri.ts';

describe('credential offer URIs (OpenID4VCI 1.0 §4.1)', () => {
  it('carries the offer URL-encoded under openid-credential-offer://, with the legacy credentials list', () => {
    const offer = buildCredentialOffer('https://acme.eu01.vellum.test', ['a', 'b'], {
      preAuthorizedCode: { code: 'c0de', txCode: { length: 6, input_mode: 'numeric', description: 'Sent by SMS' } },
    });
    const uri = offerUriByValue(offer);
    expect(uri.startsWith('openid-credential-offer://?credential_offer=')).toBe(true);
    const decoded = JSON.parse(decodeURIComponent(new URL(uri).searchParams.get('credential_offer') ?? 'null'));
    expect(decoded).toEqual({
      credential_issuer: 'https://acme.eu01.vellum.test',
      credential_configuration_ids: ['a', 'b'],
      credentials: ['a', 'b'],
      grants: { [PRE_AUTHORIZED_CODE_GRANT]: { 'pre-authorized_code': 'c0de', tx_code: { length: 6, input_mode: 'numeric', description: 'Sent by SMS' } } },
    });
  });

  it('puts issuer_state and request parameters in Authorization Code offers', () => {
    const offer = buildCredentialOffer(
      'https://i.example',
      ['a'],
      { authorizationCode: { issuerState: 'st' } },
      { login_hint: 'x@example.com', prompt: 'login' },
    );
    expect(offer.grants).toEqual({ authorization_code: { issuer_state: 'st' } });
    expect(offer.request_parameters).toEqual({ login_hint: 'x@example.com', prompt: 'login' });
  });

  it('points at the offer when by reference', () => {
    const uri = offerUriByReference('https://i.example/v1/openid/offers/123');
    expect(new URL(uri).searchParams.get('credential_offer_uri')).toBe('https://i.example/v1/openid/offers/123');
  });
});

describe('pre-authorized offer input (OpenID4VCI 1.0 §4.1, docs/decisions.md "Users, offers, the token and nonce endpoints")', () => {
  it('applies the defaults', () => {
    expect(checkPreAuthorizedOffer({ credentials: ['x'] })).toEqual({
      credentials: ['x'],
      claims: {},
      claimsToPersist: [],
      ttlSeconds: 300,
      byReference: false,
    });
    expect(checkPreAuthorizedOffer({ credentials: ['x'], transactionCodeConfiguration: {} }).txCode).toEqual({ inputMode: 'numeric', length: 6 });
  });

  it('accepts minutes and seconds up to 10 minutes', () => {
    expect(checkPreAuthorizedOffer({ credentials: ['x'], expiresIn: { minutes: 9, seconds: 60 } }).ttlSeconds).toBe(600);
    expect(checkPreAuthorizedOffer({ credentials: ['x'], expiresIn: { seconds: 1 } }).ttlSeconds).toBe(1);
  });

  it('reports every problem at once', () => {
    let error: unknown;
    try {
      checkPreAuthorizedOffer({
        credentials: [],
        transactionCodeConfiguration: { inputMode: 'emoji', length: 12, description: 'x'.repeat(301) },
        claims: { a: 1 },
        claimsToPersist: ['a', 'b'],
        expiresIn: { minutes: 11 },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: 'BadRequest',
      details: [
        { param: 'credentials' },
        { param: 'transactionCodeConfiguration.inputMode', value: 'emoji' },
        { param: 'transactionCodeConfiguration.length', value: 12 },
        { param: 'transactionCodeConfiguration.description' },
        { param: 'claimsToPersist.1', value: 'b' },
        { param: 'expiresIn', msg: 'From 1 second to 10 minutes' },
      ],
    });
  });

  it.each([{ hours: 1 }, { seconds: 0 }, { minutes: 1.5 }, 'PT5M'])('refuses expiresIn %j', (expiresIn) => {
    expect(() => checkPreAuthorizedOffer({ credentials: ['x'], expiresIn })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ param: 'expiresIn' })] }),
    );
  });
});

describe('transaction codes', () => {
  let seed = 1;
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff);

  it('have the configured length and alphabet, keeping leading zeros', () => {
    const zeros = makeTransactionCode({ inputMode: 'numeric', length: 6 }, (n) => new Uint8Array(n));
    expect(zeros).toBe('000000');
    for (let i = 0; i < 50; i++) {
      expect(makeTransactionCode({ inputMode: 'numeric', length: 8 }, bytes)).toMatch(/^\d{8}$/);
      expect(makeTransactionCode({ inputMode: 'text', length: 4 }, bytes)).toMatch(/^[A-HJKMNP-Z2-9]{4}$/);
    }
  });

  it('never uses the biased tail of a byte', () => {
    // 250..255 would favour 0..5 if taken modulo 10: they are skipped.
    const code = makeTransactionCode({ inputMode: 'numeric', length: 3 }, (n) => Uint8Array.from({ length: n }, (_, i) => (i < 3 ? 255 : 7)));
    expect(code).toBe('777');
  });

  it('are described to the wallet as OpenID4VCI tx_code', () => {
    expect(describeTxCode({ inputMode: 'text', length: 5, description: 'Check your email' })).toEqual({
      input_mode: 'text',
      length: 5,
      description: 'Check your email',
    });
  });
});
