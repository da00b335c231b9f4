import { describe, expect, it } from 'vitest';
import { checkWebhookInput, nextAttemptDelay, normaliseWebhookUrl } from './rules.ts';
import {
  bytesToBase64,
  contentDigest,
  parseSignatureField,
  parseSignatureInput,
  receivedSignatureBase,
  serializeSignatureInput,
  signatureBase,
  signatureHeaders,
} from './signature.ts';

describe('webhook URL rules (docs/decisions.md "Webhooks")', () => {
  it.each([
    ['https://hooks.example.com/vellum', 'https://hooks.example.com/vellum'],
    ['https://BÜCHER.example/ränder', 'https://xn--bcher-kva.example/r%C3%A4nder'],
    ['https://hooks.example.com:8443/x', 'https://hooks.example.com:8443/x'],
  ])('accepts and normalises %s', (input, url) => {
    expect(normaliseWebhookUrl(input)).toEqual({ url });
  });

  it.each([
    ['http://hooks.example.com/x', 'Must use https'],
    ['https://203.0.113.5/x', 'Must not be an IP address'],
    ['https://[2001:db8::1]/x', 'Must not be an IP address'],
    ['https://hooks.example.com/x?token=1', 'Must not contain query parameters'],
    ['https://hooks.example.com/x?', 'Must not contain query parameters'],
    ['https://hooks.example.com/x#frag', 'Must not contain a fragment'],
    ['https://user:pw@hooks.example.com/', 'Must not carry credentials'],
    ['not a url', 'Not a valid URL'],
    ['https://intranet/x', 'Must name a fully qualified host'],
  ])('refuses %s', (input, problem) => {
    expect(normaliseWebhookUrl(input)).toEqual({ problem });
  });

  it('refuses unknown and empty event lists, naming each bad entry', () => {
    expect(() => checkWebhookInput({ events: [], url: 'https://h.example.com' })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ param: 'events' })] }),
    );
    expect(() => checkWebhookInput({ events: ['OpenIdCredentialIssued', 'Nope'], url: 'ftp://x', disabled: 'no' })).toThrow(
      expect.objectContaining({
        details: [
          expect.objectContaining({ param: 'events.1', value: 'Nope' }),
          expect.objectContaining({ param: 'url', msg: 'Must use https' }),
          expect.objectContaining({ param: 'disabled' }),
        ],
      }),
    );
    expect(checkWebhookInput({ events: ['OpenIdCredentialIssued', 'OpenIdCredentialIssued'], url: 'https://h.example.com/a' })).toEqual({
      events: ['OpenIdCredentialIssued'],
      url: 'https://h.example.com/a',
      disabled: false,
    });
  });
});

describe('retry schedule (docs/decisions.md "Webhooks")', () => {
  it('doubles from the base with jitter in the upper half, three times', () => {
    expect(nextAttemptDelay(1, 1000, () => 0)).toBe(500);
    expect(nextAttemptDelay(1, 1000, () => 1)).toBe(1000);
    expect(nextAttemptDelay(2, 1000, () => 1)).toBe(2000);
    expect(nextAttemptDelay(3, 1000, () => 0.5)).toBe(3000);
    expect(nextAttemptDelay(4, 1000, () => 0.5)).toBeUndefined();
    expect(nextAttemptDelay(0, 1000, () => 0.5)).toBeUndefined();
  });
});

/** A delivery as it is signed (RFC 9421 §2): its method, target URI and covered headers, and the signature's parameters. */
const request = {
  method: 'post',
  targetUri: 'https://hooks.example.com/vellum',
  headers: { 'content-type': 'application/json', 'content-digest': 'sha-256=:abc=:', 'webhook-id': 'd1' },
};
const params = { keyId: 'k1', created: 1_700_000_000 };

describe('RFC 9421 signature base', () => {
  it('lists the covered components in order, then the parameters', () => {
    expect(signatureBase(request, params)).toBe(
      [
        '"@method": POST',
        '"@target-uri": https://hooks.example.com/vellum',
        '"content-type": application/json',
        '"content-digest": sha-256=:abc=:',
        '"webhook-id": d1',
        '"@signature-params": ("@method" "@target-uri" "content-type" "content-digest" "webhook-id");created=1700000000;keyid="k1";alg="ed25519"',
      ].join('\n'),
    );
    expect(signatureHeaders('c2ln', params)).toEqual({
      'signature-input': 'sig1=("@method" "@target-uri" "content-type" "content-digest" "webhook-id");created=1700000000;keyid="k1";alg="ed25519"',
      signature: 'sig1=:c2ln:',
    });
    expect(() => signatureBase({ ...request, headers: {} }, params)).toThrow(/content-type/);
  });
});

describe('RFC 9530 Content-Digest and RFC 9421 header parsing', () => {
  it('digests the body as sha-256 in a structured byte sequence', async () => {
    // RFC 9530 appendix B.1: the digest of {"hello": "world"}\n.
    expect(await contentDigest(new TextEncoder().encode('{"hello": "world"}\n'))).toBe('sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:');
    expect(bytesToBase64(new Uint8Array([0xfb, 0xff]))).toBe('+/8=');
  });

  it('reads Signature-Input and Signature as they are written, and serialises them back unchanged', () => {
    const params = { keyId: 'k-1', created: 1_700_000_000 };
    const headers = signatureHeaders('c2lnbmF0dXJl', params);
    const parsed = parseSignatureInput(`${headers['signature-input']}, other=("@method");created=1;alg="rsa-pss-sha512"`);
    expect([...parsed.keys()]).toEqual(['sig1', 'other']);
    expect(parsed.get('sig1')).toEqual({
      components: ['@method', '@target-uri', 'content-type', 'content-digest', 'webhook-id'],
      params: [
        ['created', 1_700_000_000],
        ['keyid', 'k-1'],
        ['alg', 'ed25519'],
      ],
    });
    expect(`sig1=${serializeSignatureInput(parsed.get('sig1')!)}`).toBe(headers['signature-input']);
    expect([...(parseSignatureField(headers.signature).get('sig1') ?? [])]).toEqual([...new TextEncoder().encode('signature')]);
    // Strings escape quotes and backslashes; booleans and tokens survive the round trip.
    const odd = parseSignatureInput('a=("x");keyid="q\\"\\\\";flag;tag=tok');
    expect(odd.get('a')?.params).toEqual([
      ['keyid', 'q"\\'],
      ['flag', true],
      ['tag', { token: 'tok' }],
    ]);
    expect(serializeSignatureInput(odd.get('a')!)).toBe('("x");keyid="q\\"\\\\";flag;tag=tok');
  });

  it.each(['sig1', 'sig1=(@method)', 'sig1=("a" "b";req)', 'sig1=("a");x="unterminated', 'sig1=("a"),', 'Sig1=("a")'])(
    'refuses the malformed field %j',
    (value) => {
      expect(() => parseSignatureInput(value)).toThrow();
    },
  );

  it('rebuilds the signature base from the received components, the same as the sender’s', () => {
    const input = parseSignatureInput(signatureHeaders('AA==', params)['signature-input']).get('sig1')!;
    expect(receivedSignatureBase(request, input)).toBe(signatureBase(request, params));
    expect(() => receivedSignatureBase({ ...request, headers: {} }, input)).toThrow(/content-type/);
    expect(() => receivedSignatureBase(request, { components: ['@query'], params: [] })).toThrow(/@query/);
  });
});
