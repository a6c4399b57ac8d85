// `mailvet`: the command-line tool over the typed client (client/node.ts). Exit codes: 0 done,
// 1 failed job or API error (the API's text on stderr), 2 usage.
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  createNodeClient,
  MailvetApiError,
  type JobListQuery,
  type JobStatus,
  type MailvetNodeClient,
  type Usage,
  type ValidationResult,
} from '../client/node';
import { readFirstRow, resolveColumn } from './csv-header';
import { createProgressView, formatBytes, type ProgressView } from './progress';
import { parseCommandLine, usage, UsageError, type Invocation } from './usage';

export interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** A job that ended failed or expired (exit code 1). */
class JobEndedError extends Error {}

export async function main(argv: string[], io: Io): Promise<number> {
  let progress: ProgressView | undefined;
  let url: string | undefined;
  try {
    const invocation = parseCommandLine(argv, io.env);
    if (invocation === 'help') {
      io.stdout.write(usage);
      return 0;
    }
    url = invocation.url;
    const client = createNodeClient({
      baseUrl: invocation.url,
      apiKey: invocation.key,
      onRetry: ({ status, waitMs, attempt }) =>
        (progress?.note ?? ((text: string) => io.stderr.write(`${text}\n`)))(
          `mailvet: the API answered ${status}${status === 429 ? ' (rate limited)' : ''}; retrying in ${(waitMs / 1000).toFixed(1)} s (retry ${attempt})`,
        ),
    });
    switch (invocation.command) {
      case 'validate':
        await validate(client, invocation, io);
        break;
      case 'validate-file':
        progress = createProgressView(io.stderr);
        await validateFile(client, invocation, io, progress);
        break;
      case 'run-estimate':
        progress = createProgressView(io.stderr);
        await runEstimate(client, invocation, io, progress);
        break;
      case 'job':
        await showJob(client, invocation, io);
        break;
      case 'jobs':
        await listJobs(client, invocation, io);
        break;
      case 'download':
        await download(client, invocation, io);
        break;
      case 'delete':
        await client.deleteJob(invocation.argument);
        io.stdout.write(`deleted ${invocation.argument}\n`);
        break;
      case 'usage':
        await showUsage(client, invocation, io);
        break;
    }
    return 0;
  } catch (error) {
    progress?.stop();
    return report(error, io, url);
  } finally {
    progress?.stop();
  }
}

function report(error: unknown, io: Io, url: string | undefined): number {
  if (error instanceof UsageError) {
    io.stderr.write(`mailvet: ${error.message}\n\n${usage}`);
    return 2;
  }
  if (error instanceof MailvetApiError) {
    io.stderr.write(`mailvet: ${error.apiMessage} (HTTP ${error.status})\n`);
    return 1;
  }
  if (error instanceof JobEndedError) {
    io.stderr.write(`mailvet: ${error.message}\n`);
    return 1;
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const detail = cause?.code ?? cause?.message;
  // Not `instanceof Error`: fetch's errors may come from another realm (undici's own TypeError).
  const own = (error as { message?: unknown } | undefined)?.message;
  const message = typeof own === 'string' ? own : String(error);
  if (message === 'fetch failed' && url)
    io.stderr.write(
      `mailvet: cannot reach ${url}${detail ? ` (${detail})` : ''}; is the API running (npm start)?\n`,
    );
  else io.stderr.write(`mailvet: ${message}${detail ? ` (${detail})` : ''}\n`);
  return 1;
}

/** Most addresses in one batch call (POST /v1/email/validate-batch). */
const MAX_BATCH = 100;

async function validate(client: MailvetNodeClient, invocation: Invocation, io: Io): Promise<void> {
  const emails = invocation.file === undefined ? invocation.emails : await readList(invocation.file);
  if (emails.length === 1 && invocation.file === undefined) {
    const result = await client.validate(emails[0]!, { async: invocation.async });
    if (invocation.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else io.stdout.write(`${verdictLine(result)}\n`);
    return;
  }
  const results = await client.validateBatch(emails);
  if (invocation.json) io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else io.stdout.write(results.map((result) => `${verdictLine(result)}\n`).join(''));
}

/** A plain list: one address a line, blank lines skipped; 1 to 100 addresses. */
async function readList(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read ${file} (${error.code ?? error.message})`);
  });
  const emails = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (emails.length === 0) throw new Error(`${file} has no addresses`);
  if (emails.length > MAX_BATCH)
    throw new Error(
      `${file} has ${emails.length} addresses; --file takes at most ${MAX_BATCH} (use validate-file for a larger list)`,
    );
  return emails;
}

/** `jane@gmial.com: some_risk (typo_suggestion), did you mean jane@gmail.com?` */
export function verdictLine(result: ValidationResult): string {
  const { status, reason, subStatus } = result.result;
  const detail = subStatus ? `${reason}, ${subStatus}` : reason;
  const suggestion = result.didYouMean ? `, did you mean ${result.didYouMean}?` : '';
  return `${result.email}: ${status} (${detail})${suggestion}`;
}

async function validateFile(
  client: MailvetNodeClient,
  invocation: Invocation,
  io: Io,
  progress: ProgressView,
): Promise<void> {
  const file = invocation.argument;
  try {
    await access(file);
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  const emailColumn = resolveColumn(invocation.column, await readFirstRow(file));
  const out = invocation.out ?? defaultOutPath(file);
  const base = path.basename(file);
  const end = await client.validateFileFrom(
    file,
    {
      emailColumn,
      ...(base.toLowerCase().endsWith('.csv') && base.length <= 255 ? { fileName: base } : {}),
      ...(invocation.callbackUrl === undefined ? {} : { callbackUrl: invocation.callbackUrl }),
      ...(invocation.estimate ? { estimate: true } : {}),
      out,
    },
    (event) => progress.update(event),
  );
  progress.stop();
  if (invocation.estimate) return printEstimate(end.job, invocation, io);
  if (invocation.json)
    io.stdout.write(`${JSON.stringify({ ...end.job, resultsFile: end.outPath }, null, 2)}\n`);
  if (end.job.status !== 'completed') throw jobEnded(end.job);
  if (!invocation.json) {
    io.stdout.write(statisticsTable(end.job));
    io.stdout.write(`results: ${end.outPath}\n`);
  }
}

/**
 * An estimate's outcome: the statistics projected to the whole file, the validations the full run
 * will use, and the command that runs it (non-interactive: print and exit, the user decides).
 */
function printEstimate(job: JobStatus, invocation: Invocation, io: Io): void {
  if (invocation.json) io.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
  if (job.status !== 'completed' || !job.estimate) throw jobEnded(job);
  if (invocation.json) return;
  io.stdout.write(estimateText(job.jobId, job.estimate));
}

function estimateText(jobId: string, estimate: NonNullable<JobStatus['estimate']>): string {
  const sample =
    estimate.sampled === estimate.rows
      ? `every row (${estimate.rows})`
      : `a random sample of ${estimate.sampled} of ${estimate.rows} rows`;
  const projected = statisticsTable({
    jobId,
    status: 'estimate',
    processedEmails: estimate.rows,
    totalEmails: estimate.rows,
    statistics: estimate.statistics,
  }).replace(/^job (\S+): estimate, .*\n/, `estimate ${jobId}: projected from ${sample}\n`);
  return (
    projected +
    `the full run will use ${estimate.rows} validations (the sample used ${estimate.sampled})\n` +
    `run it in full: mailvet run-estimate ${jobId}\n`
  );
}

async function runEstimate(
  client: MailvetNodeClient,
  invocation: Invocation,
  io: Io,
  progress: ProgressView,
): Promise<void> {
  const created = await client.runEstimate(invocation.argument);
  const job = await client.waitForJob(created.jobId, {
    onStatus: (status) => progress.update({ phase: 'processing', job: status }),
  });
  progress.stop();
  if (invocation.json) io.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
  if (job.status !== 'completed') throw jobEnded(job);
  const saved = await client.downloadResults(created.jobId, invocation.out);
  if (!invocation.json) {
    io.stdout.write(statisticsTable(job));
    io.stdout.write(`results: ${saved.path}\n`);
  }
}

/** leads.csv -> leads_processed_by_mailvet.csv, beside the input. */
export function defaultOutPath(file: string): string {
  const parsed = path.parse(file);
  const name = parsed.ext.toLowerCase() === '.csv' ? parsed.name : parsed.base;
  return path.join(parsed.dir, `${name}_processed_by_mailvet.csv`);
}

function jobEnded(job: JobStatus): JobEndedError {
  return new JobEndedError(`job ${job.jobId} ${job.status}${job.error ? `: ${job.error}` : ''}`);
}

export function statisticsTable(
  job: Pick<JobStatus, 'jobId' | 'processedEmails' | 'totalEmails' | 'statistics'> & {
    status: string;
    duplicateEmails?: number;
  },
): string {
  const lines = [`job ${job.jobId}: ${job.status}, ${job.processedEmails} of ${job.totalEmails} emails`];
  const statistics = Object.entries(job.statistics ?? {});
  if (statistics.length) {
    const total = statistics.reduce((sum, [, count]) => sum + count, 0);
    const width = Math.max(...statistics.map(([status]) => status.length), 'status'.length);
    const countWidth = Math.max(String(total).length, 'count'.length);
    lines.push(`  ${'status'.padEnd(width)}  ${'count'.padStart(countWidth)}   share`);
    for (const [status, count] of statistics) {
      const share = total > 0 ? `${((count / total) * 100).toFixed(1)}%` : '-';
      lines.push(`  ${status.padEnd(width)}  ${String(count).padStart(countWidth)}  ${share.padStart(6)}`);
    }
  }
  // jobs from before duplicates were reported have no count: nothing to say
  const duplicates = job.duplicateEmails ?? 0;
  if (duplicates > 0)
    lines.push(`  ${duplicates} of them repeat an earlier row's address: its status, not counted in usage`);
  return `${lines.join('\n')}\n`;
}

async function showJob(client: MailvetNodeClient, invocation: Invocation, io: Io): Promise<void> {
  const job = await client.getJob(invocation.argument);
  if (invocation.json) io.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
  else {
    io.stdout.write(statisticsTable(job));
    if (job.error) io.stdout.write(`error: ${job.error}\n`);
  }
  if (job.status === 'failed' || job.status === 'expired') throw jobEnded(job);
}

async function listJobs(client: MailvetNodeClient, invocation: Invocation, io: Io): Promise<void> {
  const page = await client.listJobs({
    limit: invocation.limit ?? '20',
    // The API checks the status and answers 400 naming the allowed ones.
    ...(invocation.status === undefined ? {} : { status: invocation.status as JobListQuery['status'] }),
  });
  if (invocation.json) {
    io.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
    return;
  }
  const rows = page.jobs.map((job) => [
    job.jobId,
    job.status,
    `${job.percentComplete}%`,
    String(job.totalEmails),
    job.createdAt,
    job.fileName ?? '',
  ]);
  io.stdout.write(table(['job', 'status', 'done', 'rows', 'created', 'file'], rows));
  io.stdout.write(`${page.jobs.length} of ${page.total} jobs\n`);
}

async function showUsage(client: MailvetNodeClient, invocation: Invocation, io: Io): Promise<void> {
  const usage = await client.getUsage(invocation.month);
  if (invocation.json) io.stdout.write(`${JSON.stringify(usage, null, 2)}\n`);
  else io.stdout.write(`${usageLine(usage, new Date())}\n`);
}

/** A month that has ended is told in the past tense: nothing of it remains to be used. */
export function usageLine(usage: Usage, now: Date): string {
  const split = `${usage.used.single} single, ${usage.used.bulk} bulk`;
  if (Date.parse(usage.periodEnd) <= now.getTime())
    return `${usage.month}: ${usage.used.total} validations were used (${split}) of a ${usage.quota} quota`;
  return (
    `${usage.month}: ${usage.used.total} used (${split}) of a ${usage.quota} quota; ` +
    `${usage.creditsRemaining} credits left; ${usage.remaining} validations remain`
  );
}

/** Left-aligned columns, two spaces apart. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

async function download(client: MailvetNodeClient, invocation: Invocation, io: Io): Promise<void> {
  const saved = await client.downloadResults(invocation.argument, invocation.out);
  io.stdout.write(`results: ${saved.path} (${formatBytes(saved.bytes)})\n`);
}

/** Runs the CLI as a program (bin/mailvet.js and `npm run mailvet`) and sets the exit code. */
// bin/mailvet.js (JavaScript, outside the export check) calls it.
// ts-unused-exports:disable-next-line
export function runAsProgram(): void {
  // `npm run mailvet -- file.csv` runs in the package root: take paths from where npm was called.
  if (process.env.npm_lifecycle_event === 'mailvet' && process.env.INIT_CWD)
    process.chdir(process.env.INIT_CWD);
  void main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
    (code) => {
      process.exitCode = code;
    },
  );
}

if (require.main === module) runAsProgram();
