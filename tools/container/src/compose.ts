// Reading compose.yaml as Docker Compose would, without Docker: a real YAML parser, then Compose's
// `${NAME}` interpolation from a given environment.
/** Thrown where Compose itself would stop: a `${NAME:?message}` whose variable is unset or empty. */
export class MissingVariable extends Error {
  override name = 'MissingVariable';
}

/**
 * Compose's interpolation: `${NAME}`, `$NAME`, `${NAME:-default}` / `${NAME-default}` (default when
 * unset or empty / unset), `${NAME:?message}` / `${NAME?message}` (an error instead), `$$` for `$`.
 */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced?: string, colon?: string, op?: string, word?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare) as string;
      const current = env[name];
      const missing = colon === ':' ? current === undefined || current === '' : current === undefined;
      if (!missing || op === undefined) return current ?? '';
      if (op === '-') return word ?? '';
      throw new MissingVariable(`${name}: ${word ?? 'required'}`);
    },
  );
}

/** A compose `environment` given as a mapping or as a list of `NAME=value`. */
export function environmentOf(service: Record<string, unknown>): Record<string, string> {
  const raw = service.environment;
  if (raw === undefined) return {};
  if (Array.isArray(raw)) {
    return Object.fromEntries(
      raw.map((entry: unknown) => {
        const [name, ...value] = String(entry).split('=');
        return [name as string, value.join('=')];
      }),
    );
  }
  return Object.fromEntries(Object.entries(raw as Record<string, unknown>).map(([k, v]) => [k, v === null ? '' : String(v)]));
}
