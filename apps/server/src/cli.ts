// The `vellum` command line as data: its commands, their options and examples, the help printed
// from them, and how an argument list picks a command. No I/O here; main.ts runs what this finds.
// The parser reads the same option lists the help prints, so the two cannot drift apart.
import { parseArgs } from 'node:util';
import { REGIONS, ROLES, SIGNING_KEY_ROLES } from '@vellum/core';

/** One `--name VALUE` option of a command. */
export interface CliOption {
  readonly name: string;
  /** The placeholder shown for its value. */
  readonly value: string;
  readonly required: boolean;
  readonly description: string;
}

/** One command: what the overview and `vellum <command> --help` say about it. */
export interface CliCommand {
  /** One or two words: `serve`, `tenants create`. */
  readonly name: string;
  /** One line, shown in the overview. */
  readonly summary: string;
  readonly options: readonly CliOption[];
  /** The first is shown in the overview; all of them in the command's own help. */
  readonly examples: readonly [string, ...string[]];
  /** Paragraphs about what it prints or needs, in the command's own help only (wrapped there). */
  readonly details?: readonly string[];
}

const subdomain: CliOption = { name: 'tenant', value: 'SUBDOMAIN', required: true, description: 'the tenant, by its subdomain' };
const batch: CliOption = { name: 'batch', value: 'N', required: false, description: 'rows read and written per pass (default 100)' };
const clientId: CliOption = { name: 'client', value: 'CLIENT_ID', required: true, description: 'the admin client, by its client id (see `clients list`)' };

/** Every command `vellum` runs, in the order the help lists them. */
export const COMMANDS = [
  {
    name: 'serve',
    summary: 'Run the issuer server; the first start migrates the database and creates the demo tenant.',
    options: [],
    examples: ['vellum serve', 'VELLUM_PORT=8080 VELLUM_WORKERS=auto vellum serve'],
    details: [
      'Settings come from environment variables (README.md, Configuration). On the first start with VELLUM_DEFAULT_TENANT unset, it creates the `demo` tenant and prints its admin credentials once, as JSON on stdout. Logs go to stdout, as readable lines on a terminal and JSON lines otherwise (VELLUM_LOG_FORMAT); progress lines on stderr end with `vellum: ready at URL`. SIGTERM or SIGINT stops it gracefully.',
    ],
  },
  {
    name: 'migrate',
    summary: 'Bring the database schema up to date, then exit.',
    options: [],
    examples: ['vellum migrate', 'DATABASE_URL=postgres://vellum@db.internal/vellum VELLUM_MASTER_KEY=… vellum migrate'],
    details: ['Every other command migrates too before it starts; this one only migrates.'],
  },
  {
    name: 'tenants create',
    summary: 'Create a tenant and its first admin client; prints their credentials once, as JSON.',
    options: [
      { name: 'subdomain', value: 'SUBDOMAIN', required: true, description: 'the new tenant’s subdomain: a-z, 0-9 and hyphens' },
      { name: 'region', value: 'REGION', required: true, description: `where it lives: ${REGIONS.join(', ')}` },
      { name: 'name', value: 'NAME', required: false, description: 'a display name' },
    ],
    examples: ['vellum tenants create --subdomain acme --region eu01 --name "Acme"'],
    details: ['Prints tenantId, tenantUrl, authUrl, audience, clientId and clientSecret; the secret is shown only this once.'],
  },
  {
    name: 'tenants list',
    summary: 'List the tenants (up to 1000), as JSON.',
    options: [],
    examples: ['vellum tenants list'],
  },
  {
    name: 'clients create',
    summary: 'Add an admin client to a tenant; prints its secret once, as JSON.',
    options: [
      subdomain,
      { name: 'role', value: 'ROLE', required: true, description: `what it may do: ${ROLES.join(', ')}` },
      { name: 'name', value: 'NAME', required: false, description: 'a display name' },
    ],
    examples: ['vellum clients create --tenant acme --role issuer --name "Issuing service"'],
    details: ['What each role may do: packages/core/src/tenancy/permissions.ts (README.md, Running several tenants).'],
  },
  {
    name: 'clients list',
    summary: 'List a tenant’s admin clients (up to 1000, never their secrets), as JSON.',
    options: [subdomain],
    examples: ['vellum clients list --tenant acme'],
  },
  {
    name: 'clients rotate-secret',
    summary: 'Give an admin client a new secret, printed once; the old one stops working at once.',
    options: [subdomain, clientId],
    examples: ['vellum clients rotate-secret --tenant acme --client CLIENT_ID'],
    details: ['Tokens issued with the old secret are refused from now on as well.'],
  },
  {
    name: 'clients revoke',
    summary: 'Revoke an admin client: it gets no more tokens, and the tokens it has are refused.',
    options: [subdomain, clientId],
    examples: ['vellum clients revoke --tenant acme --client CLIENT_ID'],
    details: ['A tenant’s last admin client cannot be revoked.'],
  },
  {
    name: 'keys rotate',
    summary: 'Rotate a tenant’s signing key for one role; the old key verifies through an overlap.',
    options: [
      subdomain,
      { name: 'role', value: 'ROLE', required: true, description: `the signing role: ${SIGNING_KEY_ROLES.join(', ')}` },
      { name: 'did', value: 'DID', required: false, description: 'dids only: the did:web whose keys rotate' },
      { name: 'app', value: 'ID', required: false, description: 'verifier-applications only: the x509_hash application' },
      { name: 'overlap', value: 'SECONDS', required: false, description: 'access-token and dids only: how long old keys verify' },
    ],
    examples: [
      'vellum keys rotate --tenant acme --role access-token',
      'vellum keys rotate --tenant acme --role document-signers',
      'vellum keys rotate --tenant acme --role dids --did did:web:acme.example',
      'vellum keys rotate --tenant acme --role verifier-applications --app APP_ID',
    ],
    details: [
      'A new key signs from now on; what the old one signed keeps verifying: the access-token key’s for the overlap (it stays in the JWKS), the webhook key’s while a pending delivery signs with it, a document signer’s or issuer certificate’s until its certificate expires, a did:web key’s in its DID document for the overlap or for good; a verifier application’s next key signs once its certificate is uploaded (the output carries its CSR). Does what POST /v1/signing-keys/<role>/rotate does, and records the same event, with `vellum-cli` as the client. Prints what signs now and what was retired, as JSON. docs/key-custody.md, "Rotation".',
    ],
  },
  {
    name: 'keys rotate-admin-token',
    summary: 'Rotate the platform’s admin-token key; the old key verifies its tokens through an overlap.',
    options: [{ name: 'overlap', value: 'SECONDS', required: false, description: 'how long the old key verifies (default a day)' }],
    examples: ['vellum keys rotate-admin-token', 'vellum keys rotate-admin-token --overlap 7200'],
    details: [
      'Admin tokens are signed with one key of the platform’s, sealed under the master key. After this, every server signs with the new key within five minutes, and verifies the old key’s tokens until the overlap ends (at least the tokens’ lifetime, VELLUM_ADMIN_TOKEN_TTL, and those five minutes). The next rotation is refused until then. Prints the new and the retired key ids, as JSON. docs/key-custody.md, "Rotation".',
    ],
  },
  {
    name: 'keys wrapping',
    summary: 'Show how tenants’ software keys are sealed and how many data keys each key wraps (JSON).',
    options: [],
    examples: ['vellum keys wrapping'],
    details: [
      'VELLUM_KEY_WRAPPING says how new keys are sealed: off (directly under the master key), master or pkcs11 (under per-tenant data keys wrapped by the master key or by an AES key in the PKCS#11 token). docs/key-custody.md, "Envelope encryption".',
    ],
  },
  {
    name: 'keys rewrap',
    summary: 'Re-wrap data keys under the current wrapping key; seal older keys under data keys.',
    options: [batch],
    examples: ['vellum keys rewrap --batch 500', 'VELLUM_PKCS11_WRAPPING_KEY=wrap-2027 vellum keys rewrap'],
    details: [
      'Run it after changing the wrapping key (VELLUM_KEY_WRAPPING, VELLUM_PKCS11_WRAPPING_KEY) or adding a recovery key; servers also re-wrap each data key they read. Only the one data key row of each tenant is written again; the keys sealed under it are not. Then, unless VELLUM_KEY_WRAPPING is off, every key sealed under the master key alone is sealed again under its tenant’s data key. The old wrapping key must still be reachable while it runs. Prints what it did as JSON; exits 1 when something could not be done.',
    ],
  },
  {
    name: 'keys recover',
    summary: 'Bring back data keys whose wrapping key is lost, from the offline recovery key.',
    options: [{ name: 'recovery-key', value: 'FILE', required: true, description: 'the recovery key’s RSA private key (PEM), kept offline until now' }, batch],
    examples: ['vellum keys recover --recovery-key ./recovery.pem', 'VELLUM_KEY_WRAPPING=master vellum keys recover --recovery-key ./recovery.pem'],
    details: [
      'For when the token holding the wrapping key is gone: point VELLUM_KEY_WRAPPING at a wrapping key this server has (master, or a new token), and give the recovery private key. docs/key-custody.md, "Recovery". Prints what it did as JSON; exits 1 when something could not be done.',
    ],
  },
] as const satisfies readonly CliCommand[];

/** The name of a command main.ts runs. */
export type CommandName = (typeof COMMANDS)[number]['name'];

/** `help` is answered here, not run by main.ts; the overview lists it like the others. */
const HELP_COMMAND: CliCommand = {
  name: 'help',
  summary: 'Show this help, or one command’s in more detail (as does `vellum <command> --help`).',
  options: [],
  examples: ['vellum help tenants create'],
};

const ALL: readonly CliCommand[] = [...COMMANDS, HELP_COMMAND];

/** `tenants create --subdomain SUBDOMAIN --region REGION [--name NAME]` */
export function usageLine(command: CliCommand): string {
  const options = command.options.map((o) => (o.required ? `--${o.name} ${o.value}` : `[--${o.name} ${o.value}]`));
  const operand = command === HELP_COMMAND ? ['[COMMAND]'] : [];
  return ['vellum', command.name, ...options, ...operand].join(' ');
}

/** The widest a line of help gets: it reads in a 100-column terminal without wrapping. */
export const HELP_WIDTH = 100;

/** `text` after `lead`, wrapped at word boundaries to HELP_WIDTH, continued under its first word. */
function wrapped(lead: string, text: string): string[] {
  const lines = [lead];
  for (const word of text.split(' ')) {
    const last = lines[lines.length - 1]!;
    if (last.length > lead.length && last.length + 1 + word.length > HELP_WIDTH) lines.push(`${' '.repeat(lead.length)}${word}`);
    else lines[lines.length - 1] = last.length > lead.length ? `${last} ${word}` : `${last}${word}`;
  }
  return lines;
}

function optionLines(command: CliCommand, indent: string): string[] {
  const flags = command.options.map((o) => `--${o.name} ${o.value}`);
  const width = Math.max(0, ...flags.map((f) => f.length));
  return command.options.flatMap((o, i) => wrapped(`${indent}${flags[i]!.padEnd(width)}   `, `${o.description}${o.required ? '' : ' (optional)'}`));
}

/** Exit code of an unknown or missing command. */
export const EXIT_UNKNOWN_COMMAND = 2;
/** Exit code of a known command given wrong options (as for any other failure of a command). */
export const EXIT_BAD_OPTIONS = 1;

const FOOTER = [
  'Settings come from environment variables (README.md, Configuration): VELLUM_DATA_DIR or DATABASE_URL name the database every command works on, VELLUM_MASTER_KEY the key that encrypts its private keys, VELLUM_PORT where serve listens.',
  'Results go to stdout (JSON for the tenants and clients commands). Progress and errors go to stderr, as lines that start with "vellum:"; VELLUM_LOG_LEVEL=silent turns the progress lines off.',
  `Exit codes: 0 done, ${EXIT_BAD_OPTIONS} failed (wrong options too), ${EXIT_UNKNOWN_COMMAND} unknown command.`,
];

/** `vellum --help`: every command with its summary, options and an example. */
export function overviewHelp(): string {
  const lines = [
    'vellum: run the Vellum OID4VCI issuer and manage its tenants and admin clients.',
    '',
    'Usage:',
    '  vellum <command> [options]',
    '  vellum help [command]          or: vellum <command> --help',
    '  vellum --version',
    '',
    'Commands:',
  ];
  for (const command of ALL) {
    lines.push(
      `  ${usageLine(command).slice('vellum '.length)}`,
      `      ${command.summary}`,
      ...optionLines(command, '      '),
      `      Example: ${command.examples[0]}`,
      '',
    );
  }
  return [...lines, ...FOOTER.flatMap((paragraph) => [...wrapped('', paragraph), ''])].join('\n').trimEnd();
}

/** `vellum <command> --help`: its usage, summary, every option, details and examples. */
export function commandHelp(command: CliCommand): string {
  const lines = [`Usage: ${usageLine(command)}`, '', command.summary];
  if (command.options.length > 0) lines.push('', 'Options:', ...optionLines(command, '  '));
  if (command.details) lines.push('', ...command.details.flatMap((paragraph) => wrapped('', paragraph)));
  lines.push('', command.examples.length > 1 ? 'Examples:' : 'Example:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

/** `vellum tenants --help`: the commands of one group (`tenants`, `clients`). */
function groupHelp(group: string): string {
  const commands = ALL.filter((c) => c.name.startsWith(`${group} `));
  const lines = [`Usage: vellum ${group} <${commands.map((c) => c.name.slice(group.length + 1)).join('|')}> [options]`, '', 'Commands:'];
  for (const command of commands)
    lines.push(`  ${usageLine(command).slice('vellum '.length)}`, `      ${command.summary}`, `      Example: ${command.examples[0]}`);
  lines.push('', `Run \`vellum ${group} <command> --help\` for a command's options.`);
  return lines.join('\n');
}

const GROUPS = [
  ...new Set(
    ALL.map((c) => c.name.split(' '))
      .filter((words) => words.length > 1)
      .map((words) => words[0]!),
  ),
];

/** What an argument list asks for. */
export type Invocation =
  /** Print `text` to stdout and exit 0. */
  | { kind: 'help'; text: string }
  /** Print the version (`vellum --version`) and exit 0. */
  | { kind: 'version' }
  /** Print `vellum: ${message}`, then `text`, to stderr and exit with `exitCode`. */
  | { kind: 'usage-error'; message: string; text: string; exitCode: number }
  | { kind: 'run'; command: CommandName; options: Record<string, string | undefined> };

const isHelpFlag = (arg: string) => arg === '--help' || arg === '-h';

/** The command named by the first one or two words of `words`, and how many words it took. */
function findCommand(words: readonly string[]): { command: CliCommand; length: number } | undefined {
  for (const length of [2, 1]) {
    const name = words.slice(0, length).join(' ');
    const command = words.length >= length ? ALL.find((c) => c.name === name) : undefined;
    if (command) return { command, length };
  }
  return undefined;
}

function unknown(words: readonly string[]): Invocation {
  const group = GROUPS.find((g) => g === words[0]);
  if (group) {
    const message = words.length < 2 ? `\`${group}\` needs a command` : `unknown command "${group} ${words[1]}"`;
    return { kind: 'usage-error', message, text: groupHelp(group), exitCode: EXIT_UNKNOWN_COMMAND };
  }
  const message = words.length === 0 ? 'no command given' : `unknown command "${words[0]}"`;
  return { kind: 'usage-error', message, text: overviewHelp(), exitCode: EXIT_UNKNOWN_COMMAND };
}

/** The help `vellum help WORDS` prints, or the error for words that name nothing. */
function helpAbout(words: readonly string[]): Invocation {
  if (words.length === 0) return { kind: 'help', text: overviewHelp() };
  const found = findCommand(words);
  if (found && found.length === words.length) return { kind: 'help', text: commandHelp(found.command) };
  if (words.length === 1 && GROUPS.includes(words[0]!)) return { kind: 'help', text: groupHelp(words[0]!) };
  return { kind: 'usage-error', message: `no command named "${words.join(' ')}"`, text: overviewHelp(), exitCode: EXIT_UNKNOWN_COMMAND };
}

/** Reads `args` against the command's options; throws a message for the first thing wrong. */
function readOptions(command: CliCommand, args: string[]): Record<string, string | undefined> {
  const { tokens } = parseArgs({
    args,
    options: Object.fromEntries(command.options.map((o) => [o.name, { type: 'string' as const }])),
    strict: false,
    tokens: true,
  });
  const values: Record<string, string | undefined> = {};
  for (const token of tokens) {
    if (token.kind === 'positional') throw new Error(`unexpected argument "${token.value}"`);
    if (token.kind === 'option-terminator') continue;
    const option = command.options.find((o) => o.name === token.name);
    if (!option) throw new Error(`\`vellum ${command.name}\` has no option ${token.rawName}`);
    // Without `=`, a following word that starts with `-` is the next option, not this one's value.
    if (token.value === undefined || token.value === '' || (token.inlineValue === false && token.value.startsWith('-'))) {
      throw new Error(`--${option.name} needs a value (${option.value}; write --${option.name}=VALUE for one that starts with -)`);
    }
    values[option.name] = token.value;
  }
  const missing = command.options.find((o) => o.required && values[o.name] === undefined);
  if (missing) throw new Error(`--${missing.name} is required`);
  return values;
}

/** Picks what `vellum ...argv` should do: print help, refuse, or run a command with its options. */
export function parseInvocation(argv: readonly string[]): Invocation {
  if (argv[0] === 'help') return helpAbout(argv.slice(1).filter((a) => !isHelpFlag(a)));
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version')) return { kind: 'version' };
  const wantsHelp = argv.some(isHelpFlag);
  const first = argv[0];
  if (first === undefined) return unknown([]);
  if (first.startsWith('-')) {
    if (wantsHelp) return { kind: 'help', text: overviewHelp() };
    return { kind: 'usage-error', message: `unknown option ${first} (options follow the command)`, text: overviewHelp(), exitCode: EXIT_UNKNOWN_COMMAND };
  }
  const second = argv[1]?.startsWith('-') ? undefined : argv[1];
  const words = second === undefined ? [first] : [first, second];
  const found = findCommand(words);
  if (!found) return wantsHelp && words.length === 1 && GROUPS.includes(first) ? { kind: 'help', text: groupHelp(first) } : unknown(words);
  if (wantsHelp) return { kind: 'help', text: commandHelp(found.command) };
  try {
    return { kind: 'run', command: found.command.name as CommandName, options: readOptions(found.command, argv.slice(found.length)) };
  } catch (error) {
    return { kind: 'usage-error', message: (error as Error).message, text: commandHelp(found.command), exitCode: EXIT_BAD_OPTIONS };
  }
}

/** The credentials `tenants create` and the first start print (runtime.ts tenantCredentials). */
export interface PrintedCredentials {
  tenantUrl: string;
  authUrl: string;
  audience: string;
  clientId: string;
  clientSecret: string;
}

/**
 * What to type after the first start (issue 28): an admin token request with the credentials just
 * printed, the API reference and the tenant's page. Printed to stdout right after the credentials, once.
 */
export function nextSteps(c: PrintedCredentials): string {
  const body = JSON.stringify({ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret, audience: c.audience });
  return [
    'Next:',
    '  # an admin access token for this tenant (README.md, "Calling the API with curl")',
    `  curl -s ${c.authUrl}/oauth/token -H 'content-type: application/json' -d '${body}'`,
    `  # the API reference, in a browser: ${c.tenantUrl}/docs`,
    `  # the tenant's page and its issuer metadata: ${c.tenantUrl}/ and ${c.tenantUrl}/.well-known/openid-credential-issuer`,
    '',
  ].join('\n');
}
