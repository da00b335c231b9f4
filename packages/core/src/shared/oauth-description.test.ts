// RFC 6749 §5.2: error_description is printable ASCII without `"` and `\`. The HTTP layer passes
// every wallet-facing message through oauthErrorDescription; the messages the wallet-facing code
// writes keep to the set already, so that what a wallet reads is what was written.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OAUTH_DESCRIPTION_CHARACTERS, oauthErrorDescription } from './errors.ts';

describe('oauthErrorDescription (RFC 6749 §5.2)', () => {
  it('leaves an allowed message as it is', () => {
    const message = "The proof's nonce is unknown: fetch one (see /v1/openid/nonce) [400] {x} ~ok!";
    expect(oauthErrorDescription(message)).toBe(message);
  });

  it('turns typographic quotes, ", \\, dashes, the ellipsis and white space into allowed characters', () => {
    expect(oauthErrorDescription('The user\u2019s \u201Cclaims\u201D \u2018x\u2019')).toBe("The user's 'claims' 'x'");
    expect(oauthErrorDescription('without " or \\, at most 1000')).toBe("without ' or /, at most 1000");
    expect(oauthErrorDescription('a \u2013 b \u2014 c\u2026')).toBe('a - b - c...');
    expect(oauthErrorDescription('line\nbreak\ttab')).toBe('line break tab');
    expect(oauthErrorDescription('caf\u00e9 \u{1F600} \u0000')).toBe('caf? ? ?');
  });

  it('answers only allowed characters, for every character of the Basic Multilingual Plane and beyond', () => {
    let all = '';
    for (let c = 0; c < 0x3000; c++) all += String.fromCharCode(c);
    all += '\u{1F600}\uFFFD\uD800';
    expect(oauthErrorDescription(all)).toMatch(OAUTH_DESCRIPTION_CHARACTERS);
  });
});

/** The string literals of a TypeScript source, comments left out (enough for the messages we write). */
function stringLiterals(source: string): string[] {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/\s\/\/ .*$/gm, '');
  return [...code.matchAll(/'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g)].map((m) => (m[1] ?? m[2] ?? '').replace(/\$\{[^}]*\}/g, ''));
}

describe('the messages of the wallet-facing endpoints (token, nonce, credential, notification)', () => {
  // Every error those endpoints raise is written in these modules (the rest of the core's reach
  // the wallet only through credential_request_denied, and the HTTP layer cleans those).
  const dirs = ['issuance', 'oauth', 'mdoc-issuance'];
  const files = [
    ...dirs.flatMap((d) =>
      readdirSync(new URL(`../${d}/`, import.meta.url))
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .map((f) => join(d, f)),
    ),
    // How the token endpoint and PAR authenticate wallet clients (the rest of oauth-clients is the admin API).
    join('oauth-clients', 'attestation.ts'),
    join('oauth-clients', 'authenticate.ts'),
  ];

  it('are found', () => {
    expect(files).toContain(join('issuance', 'credential-endpoint.ts'));
    expect(files).toContain(join('oauth', 'token.ts'));
  });

  it.each(files)('%s writes no string with a character error_description may not carry', (file) => {
    const source = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
    // Escapes as written: \\ in a literal is a backslash in the message, \" a double quote.
    const bad = stringLiterals(source).filter((s) => !OAUTH_DESCRIPTION_CHARACTERS.test(s.replace(/\\'/g, "'")) || /\\\\|\\"/.test(s));
    expect(bad).toEqual([]);
  });
});
