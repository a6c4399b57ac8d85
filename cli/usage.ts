// Command-line parsing for `mailvet`: one table of commands and options, node's util.parseArgs.
import { parseArgs } from 'node:util';

/** A mistake in how the CLI was called (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const usage = `mailvet: email validation from the command line

usage:
  mailvet help
  mailvet validate <email>... [--async] [--json]
  mailvet validate --file <list.txt> [--json]
  mailvet validate-file <file.csv> [--column <name|index>] [--out <path>] [--callback-url <url>] [--estimate] [--json]
  mailvet run-estimate <jobId> [--out <path>] [--json]
  mailvet job <jobId> [--json]
  mailvet jobs [--status <status>] [--limit <n>] [--json]
  mailvet download <jobId> [--out <path>]
  mailvet delete <jobId>
  mailvet usage [--month <YYYY-MM>] [--json]

  validate        addresses: verdict, reason and suggestion of each (--json: the whole result
                  bodies). One address uses the single endpoint (--async: the async one); several, or
                  --file with a plain list (one address a line, up to 100), one batch call
  validate-file   a CSV file: upload, progress, statistics; the results go next to the input as
                  <name>_processed_by_mailvet.csv unless --out. --column names the email column by its
                  header or zero-based index (default: the column headed email). --estimate
                  validates a sample of 1,000 rows only and prints the statistics projected to the
                  whole file, the validations a full run will use and the command that runs it
  run-estimate    runs an estimate's file in full (no new upload), like validate-file from there on
  job             a bulk job's status and statistics
  jobs            the company's jobs, newest first (--status filters, --limit pages; default 20)
  download        a completed job's results file (default name: the one the service gives it)
  delete          a job and its files (an active job is cancelled first)
  usage           this month's validations against quota and credits (--month for another)
  help            this text (also -h, --help)

options:
  --url <url>     the API (default $MAILVET_URL, else http://localhost:3000)
  --key <key>     the API key (default $MAILVET_API_KEY)
  -h, --help      this text

exit codes: 0 done, 1 failed job or API error (the API's text on stderr), 2 usage
`;

const options = {
  url: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
  async: { type: 'boolean' },
  file: { type: 'string' },
  column: { type: 'string' },
  out: { type: 'string' },
  'callback-url': { type: 'string' },
  estimate: { type: 'boolean' },
  status: { type: 'string' },
  limit: { type: 'string' },
  month: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Which options each command accepts besides --url, --key and --help. */
const accepted: Record<string, string[]> = {
  validate: ['json', 'async', 'file'],
  'validate-file': ['json', 'column', 'out', 'callback-url', 'estimate'],
  'run-estimate': ['json', 'out'],
  job: ['json'],
  jobs: ['json', 'status', 'limit'],
  download: ['out'],
  delete: [],
  usage: ['json', 'month'],
};

/** Commands that take no positional argument. */
const withoutArgument = new Set(['jobs', 'usage']);

export interface Invocation {
  command: string;
  argument: string;
  url: string;
  key: string;
  json: boolean;
  async: boolean;
  /** validate-file: validate a sample and project, no results file. */
  estimate: boolean;
  /** validate: every address given (argument is the first). */
  emails: string[];
  /** validate --file: a plain list of addresses. */
  file?: string;
  column?: string;
  out?: string;
  callbackUrl?: string;
  status?: string;
  limit?: string;
  month?: string;
}

/** The command line as an Invocation, `'help'` for --help, or a UsageError. */
export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): Invocation | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const [command, argument, ...extra] = positionals;
  if (values.help || command === 'help') return 'help';
  if (command === undefined) throw new UsageError('no command given');
  const allowed = accepted[command];
  if (!allowed) throw new UsageError(`unknown command "${command}"`);
  for (const name of Object.keys(values))
    if (!['url', 'key', 'help', ...allowed].includes(name))
      throw new UsageError(`${command} does not take --${name}`);
  if (command === 'validate') {
    if (values.file !== undefined && argument !== undefined)
      throw new UsageError('validate takes addresses or --file, not both');
    if (values.async && (values.file !== undefined || extra.length > 0))
      throw new UsageError('--async takes one address (several go in one batch call)');
  } else if (argument === undefined && !withoutArgument.has(command))
    throw new UsageError(`${command} needs ${command === 'validate-file' ? 'a file' : 'a job id'}`);
  if (command === 'validate' && argument === undefined && values.file === undefined)
    throw new UsageError('validate needs an email address (or --file)');
  const unexpected = withoutArgument.has(command) ? argument : command === 'validate' ? undefined : extra[0];
  if (unexpected !== undefined) throw new UsageError(`unexpected argument "${unexpected}"`);
  const key = values.key ?? env.MAILVET_API_KEY;
  if (!key) throw new UsageError('no API key: set MAILVET_API_KEY or pass --key');
  const url = values.url ?? env.MAILVET_URL ?? 'http://localhost:3000';
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`--url must be an http(s) URL, got "${url}"`);
  return {
    command,
    argument: argument ?? '',
    url,
    key,
    json: values.json ?? false,
    async: values.async ?? false,
    estimate: values.estimate ?? false,
    emails: command === 'validate' && argument !== undefined ? [argument, ...extra] : [],
    ...(values.file === undefined ? {} : { file: values.file }),
    ...(values.column === undefined ? {} : { column: values.column }),
    ...(values.out === undefined ? {} : { out: values.out }),
    ...(values['callback-url'] === undefined ? {} : { callbackUrl: values['callback-url'] }),
    ...(values.status === undefined ? {} : { status: values.status }),
    ...(values.limit === undefined ? {} : { limit: values.limit }),
    ...(values.month === undefined ? {} : { month: values.month }),
  };
}
