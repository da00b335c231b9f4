import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('VELLUM_WORKERS', () => {
  const workers = (value: string | undefined, cores = 8) => loadConfig(value === undefined ? {} : { VELLUM_WORKERS: value }, '/srv', () => cores).workers;

  it('defaults to 1: one process, no cluster', () => {
    expect(workers(undefined)).toBe(1);
    expect(workers('')).toBe(1);
  });

  it('takes a whole number, and auto is one per core the process may use', () => {
    expect(workers('1')).toBe(1);
    expect(workers('4')).toBe(4);
    expect(workers(' 3 ')).toBe(3);
    expect(workers('auto', 6)).toBe(6);
    expect(workers('AUTO', 2)).toBe(2);
    expect(workers('auto', 0)).toBe(1);
  });

  it.each(['0', '-2', '1.5', 'two', '1e3', '257', '0x2'])('refuses %j with an error that names the variable', (value) => {
    expect(() => workers(value)).toThrow(ConfigError);
    expect(() => workers(value)).toThrow(/VELLUM_WORKERS must be auto or a whole number from 1 to 256/);
  });
});
