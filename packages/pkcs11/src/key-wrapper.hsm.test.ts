// The PKCS#11 wrapping key on a real token (SoftHSM 2): an AES-256 key made inside the token,
// never readable out of it, that wraps data keys with AES-GCM there and finds its key again in
// another wrapper, another token session or another process.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initSoftHsmToken, type SoftHsmToken, softHsmInstalled } from '@vellum/testing';
import type * as Pkcs11Module from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkcs11KeyWrapper, findPkcs11KeyWrapper, openPkcs11Token, type Pkcs11Token, Pkcs11TokenError, pkcs11KeyWrapperLabel } from './index.ts';

const freshLabel = () => `vellum-wrap:${randomUUID()}`;
const context = (n = 1) => `vellum-data-key:tenant-${n}:dk-${n}`;

// Skipped only where Debian's softhsm2 is not installed (.ci/run installs it): there is no token to use.
describe.skipIf(!softHsmInstalled)('PKCS#11 wrapping key on SoftHSM 2', () => {
  let hsm: SoftHsmToken;
  let token: Pkcs11Token;

  beforeAll(() => {
    hsm = initSoftHsmToken({ label: 'vellum-wrap' });
    token = openPkcs11Token({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin });
  });
  afterAll(async () => {
    await token?.close();
  });

  it('wraps 32 random bytes inside the token and unwraps them with the same associated data', async () => {
    const label = freshLabel();
    const wrapper = await createPkcs11KeyWrapper({ token, label });
    expect(wrapper).toMatchObject({ id: `pkcs11:${label}`, label, created: true });
    const dataKey = randomBytes(32);
    const wrapped = await wrapper.wrap(dataKey, context());
    // 12-byte IV, 32 bytes of ciphertext and a 16-byte tag.
    expect(wrapped).toMatch(/^p11\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{64}$/);
    expect(wrapped).not.toContain(dataKey.toString('base64url'));
    expect(Buffer.from(await wrapper.unwrap(wrapped, context()))).toEqual(dataKey);
  });

  it('wraps under a fresh IV each time: the same data key never wraps the same way twice', async () => {
    const wrapper = await createPkcs11KeyWrapper({ token, label: freshLabel() });
    const dataKey = randomBytes(32);
    const wrapped = await Promise.all(Array.from({ length: 20 }, () => wrapper.wrap(dataKey, context())));
    expect(new Set(wrapped).size).toBe(20);
    expect(new Set(wrapped.map((w) => w.split('.')[1])).size).toBe(20);
    for (const w of wrapped) expect(Buffer.from(await wrapper.unwrap(w, context()))).toEqual(dataKey);
  });

  it('refuses other associated data (another tenant or data key), and still unwraps with the right one after', async () => {
    const wrapper = await createPkcs11KeyWrapper({ token, label: freshLabel() });
    const dataKey = randomBytes(32);
    const wrapped = await wrapper.wrap(dataKey, context(1));
    for (const other of [context(2), '', `${context(1)} `]) {
      await expect(wrapper.unwrap(wrapped, other)).rejects.toThrow(Pkcs11TokenError);
      await expect(wrapper.unwrap(wrapped, other)).rejects.toThrow(/associated data does not match/);
    }
    expect(Buffer.from(await wrapper.unwrap(wrapped, context(1)))).toEqual(dataKey);
  });

  it('refuses a wrapped key whose IV, ciphertext or tag was changed', async () => {
    const wrapper = await createPkcs11KeyWrapper({ token, label: freshLabel() });
    const dataKey = randomBytes(32);
    const wrapped = await wrapper.wrap(dataKey, context());
    const [form, ivPart, sealedPart] = wrapped.split('.') as [string, string, string];
    const flip = (part: string, index: number) => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[index] = (bytes[index] as number) ^ 0x01;
      return bytes.toString('base64url');
    };
    const tampered = [
      `${form}.${flip(ivPart, 0)}.${sealedPart}`,
      `${form}.${ivPart}.${flip(sealedPart, 0)}`,
      `${form}.${ivPart}.${flip(sealedPart, 47)}`,
      `${form}.${ivPart}.${Buffer.from(sealedPart, 'base64url').subarray(0, 47).toString('base64url')}`,
    ];
    for (const t of tampered) {
      expect(t).not.toBe(wrapped);
      await expect(wrapper.unwrap(t, context())).rejects.toMatchObject({ name: 'Pkcs11TokenError', message: expect.stringMatching(/data is corrupt/) });
    }
    expect(Buffer.from(await wrapper.unwrap(wrapped, context()))).toEqual(dataKey);
  });

  it('refuses malformed wrapped forms before asking the token', async () => {
    const label = freshLabel();
    const wrapper = await createPkcs11KeyWrapper({ token, label });
    const wrapped = await wrapper.wrap(randomBytes(32), context());
    const [, ivPart, sealedPart] = wrapped.split('.') as [string, string, string];
    const b64 = (n: number) => randomBytes(n).toString('base64url');
    const malformed = [
      '',
      'p11',
      `p11.${ivPart}`,
      `p11.${ivPart}.${sealedPart}.x`,
      `v1.${ivPart}.${sealedPart}`,
      `P11.${ivPart}.${sealedPart}`,
      `p11..${sealedPart}`,
      `p11.${ivPart}.`,
      `p11.${b64(11)}.${sealedPart}`,
      `p11.${b64(13)}.${sealedPart}`,
      `p11.${ivPart}=.${sealedPart}`,
      `p11.${ivPart.replace(/^./, '+')}.${sealedPart}`,
      `p11.${ivPart}.${b64(15)}`,
      `p11.${ivPart}.${sealedPart} `,
    ];
    // Non-canonical base64url: a 47-byte body's last character has 2 bits beyond the data, which a
    // lenient decoder ignores; set, they make another string for the same bytes.
    const body47 = Buffer.from(sealedPart, 'base64url').subarray(0, 47).toString('base64url');
    const last = body47.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const strayBits = alphabet[(alphabet.indexOf(last) & ~0x03) | ((alphabet.indexOf(last) + 1) & 0x03)] as string;
    malformed.push(`p11.${ivPart}.${body47.slice(0, -1)}${strayBits}`);
    for (const form of malformed) {
      const error = await wrapper.unwrap(form, context()).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error, form).toBeInstanceOf(Error);
      expect(error, form).not.toBeInstanceOf(Pkcs11TokenError);
      expect(error?.message, form).toMatch(new RegExp(`^Not a data key wrapped by the PKCS#11 key "${label}" \\(p11\\.<iv>\\.<ciphertext>\\): `));
    }
    expect(await wrapper.unwrap(wrapped, context())).toHaveLength(32);
  });

  it('keeps the AES key sensitive and never extractable: the token refuses to give its value', async () => {
    const label = freshLabel();
    expect(await token.secretKeyProtection(label)).toBeUndefined();
    await createPkcs11KeyWrapper({ token, label });
    expect(await token.secretKeyProtection(label)).toEqual({
      sensitive: true,
      extractable: false,
      alwaysSensitive: true,
      neverExtractable: true,
      valueRefused: true,
    });
  });

  it('finds the same key for a second wrapper of the same label (created: false), in this token and in another', async () => {
    const label = freshLabel();
    const first = await createPkcs11KeyWrapper({ token, label });
    const dataKey = randomBytes(32);
    const wrapped = await first.wrap(dataKey, context());
    const second = await createPkcs11KeyWrapper({ token, label });
    expect(second).toMatchObject({ id: first.id, created: false });
    expect(Buffer.from(await second.unwrap(wrapped, context()))).toEqual(dataKey);
    expect(Buffer.from(await first.unwrap(await second.wrap(dataKey, context(2)), context(2)))).toEqual(dataKey);
    // Another server on the same token: its own sessions and caches.
    const other = openPkcs11Token({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin, sessions: 1, threadPool: false });
    try {
      const third = await createPkcs11KeyWrapper({ token: other, label });
      expect(third.created).toBe(false);
      expect(Buffer.from(await third.unwrap(wrapped, context()))).toEqual(dataKey);
    } finally {
      await other.close();
    }
  });

  it('makes a different key for a different label: neither unwraps what the other wrapped', async () => {
    const a = await createPkcs11KeyWrapper({ token, label: freshLabel() });
    const b = await createPkcs11KeyWrapper({ token, label: freshLabel() });
    expect(b.created).toBe(true);
    expect(b.id).not.toBe(a.id);
    const dataKey = randomBytes(32);
    const underA = await a.wrap(dataKey, context());
    const underB = await b.wrap(dataKey, context());
    await expect(b.unwrap(underA, context())).rejects.toThrow(/data is corrupt or not encrypted under this key/);
    await expect(a.unwrap(underB, context())).rejects.toThrow(/data is corrupt or not encrypted under this key/);
    expect(Buffer.from(await a.unwrap(underA, context()))).toEqual(dataKey);
    expect(Buffer.from(await b.unwrap(underB, context()))).toEqual(dataKey);
  });

  it('finds a wrapper for a label the token holds, and none (making nothing) for one it does not', async () => {
    const known = await createPkcs11KeyWrapper({ token, label: freshLabel() });
    const dataKey = randomBytes(32);
    const wrapped = await known.wrap(dataKey, context());
    const found = await findPkcs11KeyWrapper(token, known.id);
    expect(found).toMatchObject({ id: known.id, label: known.label, created: false });
    expect(Buffer.from(await (found as NonNullable<typeof found>).unwrap(wrapped, context()))).toEqual(dataKey);

    const unknown = freshLabel();
    expect(await findPkcs11KeyWrapper(token, `pkcs11:${unknown}`)).toBeUndefined();
    expect(await token.hasAesKey(unknown)).toBe(false);
    expect(await findPkcs11KeyWrapper(token, 'master:0123456789abcdef')).toBeUndefined();
    expect(await findPkcs11KeyWrapper(token, 'pkcs11:')).toBeUndefined();

    expect(pkcs11KeyWrapperLabel(known.id)).toBe(known.label);
    expect(pkcs11KeyWrapperLabel('pkcs11:a:b')).toBe('a:b');
    expect(pkcs11KeyWrapperLabel('pkcs11:')).toBeUndefined();
    expect(pkcs11KeyWrapperLabel('master:abc')).toBeUndefined();
    expect(pkcs11KeyWrapperLabel('xpkcs11:abc')).toBeUndefined();
  });

  it('names the missing label, and never a key, when the token has no such AES key', async () => {
    const label = freshLabel();
    const iv = randomBytes(12);
    await expect(token.aesGcmEncrypt(label, iv, Buffer.alloc(0), randomBytes(32))).rejects.toThrow(
      new Pkcs11TokenError(`The PKCS#11 token "vellum-wrap" holds no AES key labelled "${label}"`),
    );
    await expect(token.aesGcmDecrypt(label, iv, Buffer.alloc(0), randomBytes(48))).rejects.toThrow(
      new Pkcs11TokenError(`The PKCS#11 token "vellum-wrap" holds no AES key labelled "${label}"`),
    );
    // An IV of another length is refused here: SoftHSM itself takes even an empty one.
    await token.ensureAesKey(label);
    await expect(token.aesGcmEncrypt(label, randomBytes(0), Buffer.alloc(0), randomBytes(32))).rejects.toThrow(/12-byte IV/);
    await expect(token.aesGcmEncrypt(label, randomBytes(16), Buffer.alloc(0), randomBytes(32))).rejects.toThrow(/12-byte IV/);
  });

  it('finds a key another process made after this one opened the token, also after making one of its own', async () => {
    const label = freshLabel();
    const dataKey = randomBytes(32);
    const script = join(mkdtempSync(join(tmpdir(), 'vellum-pkcs11-wrap-')), 'wrap.mjs');
    writeFileSync(
      script,
      `import { openPkcs11Token } from ${JSON.stringify(join(import.meta.dirname, 'token.ts'))};
       import { createPkcs11KeyWrapper } from ${JSON.stringify(join(import.meta.dirname, 'key-wrapper.ts'))};
       const token = openPkcs11Token(${JSON.stringify({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin, sessions: 1 })});
       const wrapper = await createPkcs11KeyWrapper({ token, label: ${JSON.stringify(label)} });
       const wrapped = await wrapper.wrap(Buffer.from(${JSON.stringify(dataKey.toString('hex'))}, 'hex'), ${JSON.stringify(context())});
       console.log(JSON.stringify({ created: wrapper.created, wrapped }));
       await token.close();`,
    );
    const out = JSON.parse(execFileSync(process.execPath, [script], { env: { ...process.env, ...hsm.env }, encoding: 'utf8' }).trim());
    expect(out.created).toBe(true);
    // SoftHSM takes in the generation counter when it makes a key (token.ts, generate): this
    // process makes a key of its own first, then looks for the other process's.
    expect((await token.ensureAesKey(freshLabel())).created).toBe(true);
    const wrapper = await createPkcs11KeyWrapper({ token, label });
    expect(wrapper.created).toBe(false);
    expect(Buffer.from(await wrapper.unwrap(out.wrapped, context()))).toEqual(dataKey);
  });

  it('unwraps under every key of its label, when two servers made the label’s key at once', async () => {
    // Two servers that search at once, find nothing and both generate leave two AES keys with one
    // label: what each wrapped must stay readable. The second key is made, and wraps, beside the token.
    const label = freshLabel();
    const wrapper = await createPkcs11KeyWrapper({ token, label });
    const dataKey = randomBytes(32);
    const underFirst = await wrapper.wrap(dataKey, context());
    const p = createRequire(import.meta.url)('pkcs11js') as typeof Pkcs11Module;
    const raw = new p.PKCS11();
    raw.load(hsm.module);
    const slot = raw.C_GetSlotList(true).find((s) => raw.C_GetTokenInfo(s).label.trim() === hsm.label) as Buffer;
    // The library is initialized and logged in already in this process (the token above).
    const session = raw.C_OpenSession(slot, p.CKF_RW_SESSION | p.CKF_SERIAL_SESSION);
    const iv = randomBytes(12);
    let sealed: Buffer;
    try {
      const second = raw.C_GenerateKey(session, { mechanism: p.CKM_AES_KEY_GEN }, [
        { type: p.CKA_CLASS, value: p.CKO_SECRET_KEY },
        { type: p.CKA_KEY_TYPE, value: p.CKK_AES },
        { type: p.CKA_VALUE_LEN, value: 32 },
        { type: p.CKA_LABEL, value: label },
        { type: p.CKA_TOKEN, value: true },
        { type: p.CKA_ENCRYPT, value: true },
        { type: p.CKA_DECRYPT, value: true },
      ]);
      const parameter = { type: p.CK_PARAMS_AES_GCM_v240, iv, ivBits: 96, aad: Buffer.from(context(), 'utf8'), tagBits: 128 };
      raw.C_EncryptInit(session, { mechanism: p.CKM_AES_GCM, parameter }, second);
      sealed = raw.C_Encrypt(session, dataKey, Buffer.alloc(48));
    } finally {
      raw.C_CloseSession(session);
      raw.close();
    }
    const underSecond = `p11.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
    expect(Buffer.from(await wrapper.unwrap(underSecond, context()))).toEqual(dataKey);
    expect(Buffer.from(await wrapper.unwrap(underFirst, context()))).toEqual(dataKey);
    await expect(wrapper.unwrap(underSecond, context(2))).rejects.toThrow(/associated data does not match/);
  });
});
