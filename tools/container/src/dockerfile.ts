// Reading the Dockerfile and .dockerignore without a container engine, so that tests can check the
// image's recipe on any machine. Covers the syntax the project's own files use; anything else
// (heredocs, escape directives) is refused loudly rather than misread.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** One instruction, its continuation lines joined. */
export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** A build stage: its FROM, its `AS` name and its instructions after FROM. */
export interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** A Dockerfile: the ARGs declared before the first FROM (with their defaults) and the stages. */
export interface Dockerfile {
  args: Record<string, string | undefined>;
  stages: Stage[];
}

/** Splits a Dockerfile into its global ARGs and its stages. */
export function parseDockerfile(text: string): Dockerfile {
  const args: Record<string, string | undefined> = {};
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let logical = lines[i] ?? '';
    if (/^\s*(#.*)?$/.test(logical)) {
      if (/^#\s*escape\s*=/i.test(logical)) throw new Error('the escape directive is not supported');
      continue;
    }
    // Continuation lines end with a backslash; comment lines inside an instruction are dropped.
    while (/\\\s*$/.test(logical)) {
      logical = logical.replace(/\\\s*$/, '');
      i++;
      while (i < lines.length && /^\s*#/.test(lines[i] ?? '')) i++;
      if (i >= lines.length) throw new Error(`line ${first}: continues past the end of the file`);
      logical += ` ${(lines[i] ?? '').trim()}`;
    }
    const match = /^\s*([A-Za-z]+)\s*(.*)$/.exec(logical);
    if (!match) throw new Error(`line ${first}: not an instruction: ${logical}`);
    const keyword = (match[1] as string).toUpperCase();
    const rest = (match[2] as string).trim();
    if (rest.includes('<<')) throw new Error(`line ${first}: heredocs are not supported`);
    if (keyword === 'FROM') {
      const from = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!from) throw new Error(`line ${first}: cannot read FROM ${rest}`);
      stages.push({ image: from[1] as string, name: from[2]?.toLowerCase(), instructions: [] });
    } else if (stages.length > 0) {
      (stages[stages.length - 1] as Stage).instructions.push({ keyword, args: rest, line: first });
    } else if (keyword === 'ARG') {
      const arg = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(\S*))?$/.exec(rest);
      if (!arg) throw new Error(`line ${first}: cannot read ARG ${rest}`);
      args[arg[1] as string] = arg[2];
    } else {
      throw new Error(`line ${first}: ${keyword} before the first FROM`);
    }
  }
  return { args, stages };
}

/** A FROM image with the global ARGs' defaults put in for `${NAME}` and `$NAME`. */
export function resolveImage(dockerfile: Dockerfile, image: string): string {
  return image.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, braced: string | undefined, bare: string | undefined) => {
    const value = dockerfile.args[(braced ?? bare) as string];
    if (value === undefined) throw new Error(`FROM ${image}: ARG ${braced ?? bare} has no default`);
    return value;
  });
}

/** The instructions of a stage with this keyword. */
export function instructions(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword);
}

/** Leading `--name=value` flags and the words after them (COPY, HEALTHCHECK, RUN). */
export function splitFlags(args: string): { flags: Record<string, string>; rest: string } {
  const flags: Record<string, string> = {};
  let rest = args.trim();
  for (let m = /^--([a-z-]+)(?:=(\S*))?\s+/.exec(rest); m; m = /^--([a-z-]+)(?:=(\S*))?\s+/.exec(rest)) {
    flags[m[1] as string] = m[2] ?? 'true';
    rest = rest.slice(m[0].length);
  }
  return { flags, rest };
}

/** The JSON (exec) form of CMD, ENTRYPOINT, VOLUME or HEALTHCHECK CMD; undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.trim().startsWith('[')) return undefined;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string')) throw new Error(`not a list of strings: ${args}`);
  return parsed;
}

/** ENV's and LABEL's `name=value` pairs (values may be double-quoted; LABEL keys may hold dots and dashes); the legacy `ENV name value` form is refused. */
export function envPairs(args: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  const re = /([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\]|\\.)*"|\S*)\s*/y;
  let at = 0;
  while (at < args.length) {
    re.lastIndex = at;
    const m = re.exec(args);
    if (!m) throw new Error(`cannot read ENV ${args}`);
    const raw = m[2] as string;
    pairs[m[1] as string] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    at = re.lastIndex;
  }
  return pairs;
}

/** The words of a shell-form COPY (sources then destination); quotes are not expected there. */
export function copyPaths(args: string): { from: string | undefined; sources: string[]; destination: string } {
  const { flags, rest } = splitFlags(args);
  const words = execForm(rest) ?? rest.split(/\s+/);
  if (words.length < 2) throw new Error(`COPY needs a source and a destination: ${args}`);
  return { from: flags.from, sources: words.slice(0, -1), destination: words[words.length - 1] as string };
}

interface IgnoreRule {
  exclude: boolean;
  pattern: RegExp;
}

/** The rules of a .dockerignore file, in order. */
export function parseDockerignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const exclude = !line.startsWith('!');
    if (!exclude) line = line.slice(1).trim();
    // Docker cleans each pattern as a path: no leading "/" or "./", no trailing "/".
    line = line.replace(/^(\.?\/)+/, '').replace(/\/+$/, '');
    rules.push({ exclude, pattern: globToRegExp(line) });
  }
  return rules;
}

/** Docker's pattern syntax: `*` within one name, `?` one character, `**` any number of directories. */
function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      i++;
      if (glob[i + 1] === '/') i++;
      out += i === glob.length - 1 ? '.*' : '(?:.*/)?';
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[' || c === '\\') throw new Error(`character classes and escapes are not supported: ${glob}`);
    else out += c.replace(/[.+^${}()|]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/**
 * Whether the builder leaves this context path out: the last rule that matches the path, or any
 * directory above it, decides (as Docker's own matcher does).
 */
export function isIgnored(rules: IgnoreRule[], path: string): boolean {
  const parts = path.split('/');
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const rule of rules) {
    if (candidates.some((c) => rule.pattern.test(c))) ignored = rule.exclude;
  }
  return ignored;
}

/** The files under `root` that reach the builder, as context paths; .git and node_modules are never walked. */
export function contextFiles(root: string, rules: IgnoreRule[], dir = ''): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === '.git' || entry.name === 'node_modules' ? [] : contextFiles(root, rules, path);
    return isIgnored(rules, path) ? [] : [path];
  });
}
