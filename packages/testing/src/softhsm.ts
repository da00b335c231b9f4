// A real PKCS#11 token for tests: Debian's SoftHSM 2 (package softhsm2; .ci/run installs it), with
// a fresh token directory and configuration per call. Tests of PKCS#11 key custody run against it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's softhsm2 puts its PKCS#11 library. */
export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const SOFTHSM_UTIL = '/usr/bin/softhsm2-util';

/** Whether SoftHSM 2 is installed here (Debian's softhsm2). */
export const softHsmInstalled = existsSync(SOFTHSM_MODULE) && existsSync(SOFTHSM_UTIL);

export interface SoftHsmToken {
  module: string;
  label: string;
  pin: string;
  /** The token's files and its softhsm2.conf. */
  dir: string;
  /** SOFTHSM2_CONF, pointing at this token's configuration: set it in any process that opens the token. */
  env: { SOFTHSM2_CONF: string };
}

/**
 * Initialises a new token in a fresh directory and points this process's SOFTHSM2_CONF at it. The
 * library reads that variable when it is initialised, so a process uses one token directory at a
 * time (the library is finalised when its last token closes).
 */
export function initSoftHsmToken(options: { label?: string; pin?: string } = {}): SoftHsmToken {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-softhsm-'));
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(conf, `directories.tokendir = ${dir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`);
  const label = options.label ?? 'vellum-test';
  const pin = options.pin ?? '123456';
  const env = { SOFTHSM2_CONF: conf };
  execFileSync(SOFTHSM_UTIL, ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', `so-${pin}`], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  process.env.SOFTHSM2_CONF = conf;
  return { module: SOFTHSM_MODULE, label, pin, dir, env };
}
